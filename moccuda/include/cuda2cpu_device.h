/* MocCUDA: what device code needs beyond the runtime API.
 *
 *  - Parse mode: the builtin variables (threadIdx, ...) and the device-only functions
 *    (__syncthreads, warp shuffles and votes, ...) are declared so that clang type-checks kernels.
 *    cuda2cpu replaces every use of them, so compile mode declares none of them: a use the
 *    translator missed is then a compile error, not a silently wrong program.
 *  - Both modes: math (cuda2cpu_math.h), atomics and fences (cuda2cpu_atomic.h), clock64().
 *  - Compile mode: moccuda::LaunchConfig and the hooks every translated kernel calls.
 */
#ifndef MOCCUDA_CUDA2CPU_DEVICE_H
#define MOCCUDA_CUDA2CPU_DEVICE_H
#ifdef __cplusplus

#include <stdlib.h>
#include <time.h>

#include "cuda_runtime_api.h"
#include "cuda2cpu_math.h"
#include "cuda2cpu_atomic.h"
#include "cuda2cpu_warp.h"

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
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);

/* Warp shuffles, overloaded as CUDA's are (a narrower integer promotes to int). */
#define MOCCUDA_SHUFFLES(T)                                                                         \
    __device__ T __shfl_sync(unsigned int mask, T var, int src_lane, int width = 32);               \
    __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);      \
    __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);    \
    __device__ T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32);
MOCCUDA_SHUFFLES(int)
MOCCUDA_SHUFFLES(unsigned int)
MOCCUDA_SHUFFLES(long)
MOCCUDA_SHUFFLES(unsigned long)
MOCCUDA_SHUFFLES(long long)
MOCCUDA_SHUFFLES(unsigned long long)
MOCCUDA_SHUFFLES(float)
MOCCUDA_SHUFFLES(double)
#undef MOCCUDA_SHUFFLES

__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ unsigned int __activemask(void);
__device__ unsigned int __match_any_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);

/* clang lowers k<<<grid, block, shared, stream>>>(...) to a call of this function. */
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, void *stream = 0);
#endif /* __CUDA2CPU_PARSE__ */

/* A per-thread cycle counter on the GPU; here nanoseconds of a monotonic clock, which serves the
 * usual use (differences between two readings). */
inline __host__ __device__ long long clock64(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Suspends the calling thread for about `ns` nanoseconds (CUDA: at most 1 ms, a hint). */
inline __host__ __device__ void __nanosleep(unsigned int ns)
{
    struct timespec wait = {0, (long)(ns < 1000000u ? ns : 1000000u)};
    nanosleep(&wait, 0);
}

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

/* Called first by every translated kernel: checks the configuration as CUDA does.  On a bad one
 * it records the error (cudaGetLastError reports it, as after a failed launch) and returns false,
 * and the kernel returns without running.  `kernel`, when given, selects limits set for it with
 * cudaFuncSetAttribute. */
inline bool launch_begin(const LaunchConfig &launch, const void *kernel = nullptr)
{
    return moccuda_launch_check(launch.grid, launch.block, launch.shared_bytes, launch.stream, kernel) == cudaSuccess;
}

/* Called last by every translated kernel.  Streams are synchronous, so the launch is complete. */
inline void launch_end(const LaunchConfig &) {}

/* Dynamic shared memory (extern __shared__) for the blocks one OpenMP thread runs: at least
 * `bytes` bytes, 64-byte aligned (enough for any CUDA type), never a null pointer. */
class SharedMemory {
public:
    explicit SharedMemory(size_t bytes) : data_(aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)) {}
    ~SharedMemory() { free(data_); }
    SharedMemory(const SharedMemory &) = delete;
    SharedMemory &operator=(const SharedMemory &) = delete;
    void *data() const { return data_; }

private:
    void *data_;
};

}  // namespace moccuda
#endif /* !__CUDA2CPU_PARSE__ */

#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_DEVICE_H */
