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

#if defined(__cplusplus) && !defined(__CUDA2CPU_PARSE__)
/* libstdc++ writes __attribute__((__noinline__)) (bits/shared_ptr_base.h).  Once __noinline__ is
 * the macro below that no longer parses, so <memory> is read first: its include guard then keeps
 * the user's own #include <memory> from being read again. */
#include <memory>
#endif

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
#define __noinline__ __attribute__((noinline))
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
