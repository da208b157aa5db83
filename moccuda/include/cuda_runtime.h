/* MocCUDA: the CUDA runtime API on the CPU.
 *
 * One header, two modes:
 *  - parse mode (__CUDA2CPU_PARSE__, used when cuda2cpu parses .cu files with libclang in CUDA
 *    mode): the execution-space qualifiers are clang's CUDA attributes and the builtin index
 *    variables and device-only functions are declared, so device code type-checks;
 *  - compile mode (the translated C++ under g++/clang++ -fopenmp): the qualifiers expand to
 *    nothing, and kernels receive a moccuda::LaunchConfig instead of builtin variables.
 */
#ifndef MOCCUDA_CUDA_RUNTIME_H
#define MOCCUDA_CUDA_RUNTIME_H

#include <stddef.h>
#include <string.h>

#ifdef __CUDA2CPU_PARSE__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#else
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#endif

#include "vector_types.h"
#include "driver_types.h"

#ifdef __cplusplus
extern "C" {
#endif
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags __MOCCUDA_DEFAULT(1));
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream __MOCCUDA_DEFAULT(0));
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream __MOCCUDA_DEFAULT(0));
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t moccuda_memcpy_symbol(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags __MOCCUDA_DEFAULT(0));
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream __MOCCUDA_DEFAULT(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
/* Launch support for translated kernels: validates a configuration as CUDA does. */
cudaError_t moccuda_launch_check(dim3 grid, dim3 block, size_t shared_bytes);
void moccuda_set_last_error(cudaError_t error);
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
template <class T>
cudaError_t cudaMalloc(T **ptr, size_t size) { return cudaMalloc((void **)ptr, size); }
template <class T>
cudaError_t cudaMallocHost(T **ptr, size_t size) { return cudaMallocHost((void **)ptr, size); }
template <class T>
cudaError_t cudaMallocManaged(T **ptr, size_t size, unsigned int flags = 1) { return cudaMallocManaged((void **)ptr, size, flags); }
template <class T>
cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t count, size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{ return moccuda_memcpy_symbol((char *)&symbol + offset, src, count, kind); }
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{ return moccuda_memcpy_symbol(dst, (const char *)&symbol + offset, count, kind); }
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(T &symbol, const void *src, size_t count, size_t offset = 0,
                                    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0)
{ return cudaMemcpyToSymbol(symbol, src, count, offset, kind); }
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0)
{ return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind); }
#endif

#include "cuda2cpu_device.h"

#endif
