/* MocCUDA: CUDA's execution-space and memory-space qualifiers, for the two compilers that read
 * these headers.
 *
 *  - Parse mode (__CUDA2CPU_PARSE__): cuda2cpu's front end parses .cu files with libclang in
 *    CUDA mode.  The qualifiers become clang's CUDA attributes so that clang type-checks device
 *    code and tells host from device functions.
 *  - Compile mode (anything else: g++ or clang++ -fopenmp on the translated C++, or a C
 *    compiler): a translated kernel is an ordinary host function, so the qualifiers mean nothing.
 */
#ifndef MOCCUDA_HOST_DEFINES_H
#define MOCCUDA_HOST_DEFINES_H

#ifdef __CUDA2CPU_PARSE__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* Clang (18) honours the managed attribute only for HIP and warns that it ignores it in CUDA.  A
 * managed variable is a device variable that host code may also use, which is how clang treats a
 * device variable in host-side compilation anyway. */
#define __managed__ __attribute__((device))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
/* Clang 15 and later know __noinline__ as a keyword in CUDA mode, which also keeps libstdc++'s
 * __attribute__((__noinline__)) valid; a macro would break that. */
#if !defined(__clang__) || __clang_major__ < 15
#define __noinline__ __attribute__((noinline))
#endif
#else
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#ifdef __cplusplus
#define __forceinline__ inline __attribute__((always_inline))
#else
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
/* CUDA's __noinline__ qualifier is also the name of GCC's noinline attribute, which system headers
 * spell __attribute__((__noinline__)) (glibc's bits/stdio2.h, libstdc++'s shared_ptr_base.h) and
 * [[__gnu__::__noinline__]].  nvcc and clang (in CUDA mode) make it a keyword; for g++ and clang++
 * it is a macro that works in both places:
 *  - "__noinline__ int f()" becomes "__attribute__((__noinline__)) int f()" (a macro's own name in
 *    its expansion is not expanded again);
 *  - "__attribute__((__noinline__))" becomes "__attribute__((__attribute__((__noinline__))))": an
 *    attribute the compiler does not know (and ignores, silently in a system header) whose argument
 *    is the expression (__noinline__), which names the enumerator below.  The function loses its
 *    noinline hint, nothing else.
 * C has no such way (its attribute names cannot be keywords), so in C it is not defined, as nvcc's
 * headers do not define it for the host compiler. */
#ifdef __cplusplus
enum { __noinline__ = 0 };
#define __noinline__ __attribute__((__noinline__))
#endif
#endif

/* Qualifiers with no meaning on the CPU (or for the front end), accepted so that sources using
 * them compile. */
#define __grid_constant__
#define __device_builtin__
#define __cudart_builtin__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define CUDARTAPI
#define CUDART_CB

/* Default arguments exist only in C++; the C declarations simply lack them. */
#ifdef __cplusplus
#define MOCCUDA_DEFAULT(value) = value
#else
#define MOCCUDA_DEFAULT(value)
#endif

#endif /* MOCCUDA_HOST_DEFINES_H */
