/* MocCUDA: what device code needs beyond the runtime API.
 *  - parse mode: the builtin index variables and device-only functions, declared for clang;
 *  - both modes: CUDA's math intrinsics, integer intrinsics, min/max, and atomics that are really
 *    atomic across OpenMP threads (GCC __atomic builtins);
 *  - compile mode: moccuda::LaunchConfig and the launch hooks translated kernels call. */
#ifndef MOCCUDA_CUDA2CPU_DEVICE_H
#define MOCCUDA_CUDA2CPU_DEVICE_H

#ifdef __cplusplus
#include <math.h>
#include <stdlib.h>

#ifdef __CUDA2CPU_PARSE__
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
template <class T> __device__ T __shfl_sync(unsigned mask, T var, int src, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32);
__device__ unsigned __ballot_sync(unsigned mask, int predicate);
__device__ int __any_sync(unsigned mask, int predicate);
__device__ int __all_sync(unsigned mask, int predicate);
__device__ unsigned __activemask(void);
__device__ long long clock64(void);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, void *stream = 0);
#endif

#define MOCCUDA_HD static inline __host__ __device__

/* ---- math intrinsics (glibc already declares __expf, __logf, __sinf, __powf, exp10f, ...) ---- */
MOCCUDA_HD float __fdividef(float x, float y) { return x / y; }
MOCCUDA_HD float __frcp_rn(float x) { return 1.0f / x; }
MOCCUDA_HD float __fsqrt_rn(float x) { return sqrtf(x); }
MOCCUDA_HD float __fadd_rn(float x, float y) { return x + y; }
MOCCUDA_HD float __fmul_rn(float x, float y) { return x * y; }
MOCCUDA_HD float rsqrtf(float x) { return 1.0f / sqrtf(x); }
MOCCUDA_HD double rsqrt(double x) { return 1.0 / sqrt(x); }
MOCCUDA_HD float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
MOCCUDA_HD float __int_as_float(int v) { float f; memcpy(&f, &v, sizeof f); return f; }
MOCCUDA_HD int __float_as_int(float f) { int v; memcpy(&v, &f, sizeof v); return v; }
MOCCUDA_HD float __uint_as_float(unsigned v) { float f; memcpy(&f, &v, sizeof f); return f; }
MOCCUDA_HD unsigned __float_as_uint(float f) { unsigned v; memcpy(&v, &f, sizeof v); return v; }
MOCCUDA_HD double __longlong_as_double(long long v) { double d; memcpy(&d, &v, sizeof d); return d; }
MOCCUDA_HD long long __double_as_longlong(double d) { long long v; memcpy(&v, &d, sizeof v); return v; }
MOCCUDA_HD int __float2int_rn(float x) { return (int)nearbyintf(x); }
MOCCUDA_HD int __float2int_rz(float x) { return (int)x; }
MOCCUDA_HD unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
MOCCUDA_HD float __int2float_rn(int x) { return (float)x; }
MOCCUDA_HD int __mul24(int a, int b) { return a * b; }
MOCCUDA_HD unsigned __umul24(unsigned a, unsigned b) { return a * b; }
MOCCUDA_HD int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
MOCCUDA_HD unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
MOCCUDA_HD int __popc(unsigned x) { return __builtin_popcount(x); }
MOCCUDA_HD int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
MOCCUDA_HD int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
MOCCUDA_HD int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
MOCCUDA_HD int __ffs(int x) { return __builtin_ffs(x); }
MOCCUDA_HD int __ffsll(long long x) { return __builtin_ffsll(x); }
MOCCUDA_HD unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
template <class T> static inline __host__ __device__ T __ldg(const T *p) { return *p; }

/* CUDA's global-namespace min/max overloads. */
MOCCUDA_HD int min(int a, int b) { return a < b ? a : b; }
MOCCUDA_HD int max(int a, int b) { return a > b ? a : b; }
MOCCUDA_HD unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
MOCCUDA_HD unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
MOCCUDA_HD long long min(long long a, long long b) { return a < b ? a : b; }
MOCCUDA_HD long long max(long long a, long long b) { return a > b ? a : b; }
MOCCUDA_HD unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
MOCCUDA_HD unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
MOCCUDA_HD float min(float a, float b) { return fminf(a, b); }
MOCCUDA_HD float max(float a, float b) { return fmaxf(a, b); }
MOCCUDA_HD double min(double a, double b) { return fmin(a, b); }
MOCCUDA_HD double max(double a, double b) { return fmax(a, b); }

/* ---- atomics: blocks run on different OpenMP threads, so these must be real atomics ---- */
#define MOCCUDA_INT_ATOMICS(T)                                                                      \
    MOCCUDA_HD T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }      \
    MOCCUDA_HD T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }      \
    MOCCUDA_HD T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }    \
    MOCCUDA_HD T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }      \
    MOCCUDA_HD T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }        \
    MOCCUDA_HD T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }      \
    MOCCUDA_HD T atomicCAS(T *p, T expected, T desired)                                           \
    {                                                                                             \
        __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return expected;                                                                          \
    }                                                                                             \
    MOCCUDA_HD T atomicMin(T *p, T v)                                                             \
    {                                                                                             \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                             \
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} \
        return old;                                                                               \
    }                                                                                             \
    MOCCUDA_HD T atomicMax(T *p, T v)                                                             \
    {                                                                                             \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                             \
        while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} \
        return old;                                                                               \
    }
MOCCUDA_INT_ATOMICS(int)
MOCCUDA_INT_ATOMICS(unsigned int)
MOCCUDA_INT_ATOMICS(unsigned long long)
MOCCUDA_INT_ATOMICS(long long)
#undef MOCCUDA_INT_ATOMICS

#define MOCCUDA_FLOAT_ATOMICS(T, I)                                                                 \
    MOCCUDA_HD T atomicAdd(T *p, T v)                                                             \
    {                                                                                             \
        I *bits = (I *)p;                                                                         \
        I old = __atomic_load_n(bits, __ATOMIC_RELAXED), next;                                    \
        do {                                                                                      \
            T value;                                                                              \
            memcpy(&value, &old, sizeof value);                                                   \
            value += v;                                                                           \
            memcpy(&next, &value, sizeof next);                                                   \
        } while (!__atomic_compare_exchange_n(bits, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
        T result;                                                                                 \
        memcpy(&result, &old, sizeof result);                                                     \
        return result;                                                                            \
    }                                                                                             \
    MOCCUDA_HD T atomicExch(T *p, T v)                                                            \
    {                                                                                             \
        I in, out;                                                                                \
        memcpy(&in, &v, sizeof in);                                                               \
        out = __atomic_exchange_n((I *)p, in, __ATOMIC_RELAXED);                                  \
        T result;                                                                                 \
        memcpy(&result, &out, sizeof result);                                                     \
        return result;                                                                            \
    }
MOCCUDA_FLOAT_ATOMICS(float, unsigned int)
MOCCUDA_FLOAT_ATOMICS(double, unsigned long long)
#undef MOCCUDA_FLOAT_ATOMICS

MOCCUDA_HD unsigned atomicInc(unsigned *p, unsigned limit)
{
    unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1u, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}
MOCCUDA_HD unsigned atomicDec(unsigned *p, unsigned limit)
{
    unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, (old == 0u || old > limit) ? limit : old - 1u, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}
MOCCUDA_HD void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MOCCUDA_HD void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MOCCUDA_HD void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#undef MOCCUDA_HD

#ifndef __CUDA2CPU_PARSE__
namespace moccuda {

/* A kernel launch's configuration, as written between <<< and >>>. */
struct LaunchConfig {
    dim3 grid;
    dim3 block;
    size_t shared_bytes;
    cudaStream_t stream;
    LaunchConfig(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0) : grid(g), block(b), shared_bytes(s), stream(st) {}
};

/* Validates the launch as CUDA does; on a bad configuration records the error and says skip. */
inline bool launch_begin(const LaunchConfig &launch)
{
    cudaError_t status = moccuda_launch_check(launch.grid, launch.block, launch.shared_bytes);
    if (status != cudaSuccess) {
        moccuda_set_last_error(status);
        return false;
    }
    return true;
}

inline void launch_end(const LaunchConfig &) {}

/* Dynamic shared memory for the blocks one OpenMP thread runs (16-byte aligned, zero-size safe). */
class SharedMemory {
public:
    explicit SharedMemory(size_t bytes) : data_(aligned_alloc(16, ((bytes + 15) / 16) * 16 + 16)) {}
    ~SharedMemory() { free(data_); }
    SharedMemory(const SharedMemory &) = delete;
    SharedMemory &operator=(const SharedMemory &) = delete;
    void *data() const { return data_; }

private:
    void *data_;
};

}  // namespace moccuda
#endif
#endif /* __cplusplus */
#endif
