/* MocCUDA: the CUDA runtime on the CPU.
 *
 * One header set, read in two modes (see host_defines.h):
 *  - parse mode (__CUDA2CPU_PARSE__): cuda2cpu's front end parses .cu files with libclang in CUDA
 *    mode and force-includes this header, which declares the CUDA language's pieces so that device
 *    code type-checks;
 *  - compile mode: the translated C++ includes it and is compiled by g++ or clang++ -fopenmp and
 *    linked with libmoccuda.  Kernels are host functions taking a moccuda::LaunchConfig.
 * C sources may include it too; they get the C API (cuda_runtime_api.h).
 *
 * Like nvcc's, this header makes the C library's I/O, memory and math functions available.
 */
#ifndef MOCCUDA_CUDA_RUNTIME_H
#define MOCCUDA_CUDA_RUNTIME_H

#include "host_defines.h"
/* Must precede every system header (parse mode only). */
#include "cuda2cpu_libdevice.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __cplusplus
#include <cmath>
#include <cstdlib>
#include <new>
#endif

#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"

#ifdef __cplusplus
/* ---- C++ conveniences of CUDA's runtime header ---- */

/* Allocation into a typed pointer. */
template <class T>
inline cudaError_t cudaMalloc(T **ptr, size_t size) { return cudaMalloc((void **)ptr, size); }
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return cudaHostAlloc((void **)ptr, size, flags);
}
template <class T>
inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) { return cudaHostAlloc((void **)ptr, size, flags); }
template <class T>
inline cudaError_t cudaMallocManaged(T **ptr, size_t size, unsigned int flags = cudaMemAttachGlobal)
{
    return cudaMallocManaged((void **)ptr, size, flags);
}
template <class T>
inline cudaError_t cudaMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height)
{
    return cudaMallocPitch((void **)ptr, pitch, width, height);
}
template <class T>
inline cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaStream_t stream)
{
    return cudaMallocAsync((void **)ptr, size, stream);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **device_ptr, void *host_ptr, unsigned int flags)
{
    return cudaHostGetDevicePointer((void **)device_ptr, host_ptr, flags);
}

/* Symbols named by the variable itself.  Its size is known here, so copies beyond it are
 * rejected (cudaErrorInvalidValue), as CUDA does. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return moccuda_symbol_copy((void *)__builtin_addressof(symbol), sizeof(T), offset, (void *)src, count, kind, 1);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return moccuda_symbol_copy((void *)__builtin_addressof(symbol), sizeof(T), offset, dst, count, kind, 0);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                           enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0)
{
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0)
{
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **device_ptr, const T &symbol)
{
    return cudaGetSymbolAddress(device_ptr, (const void *)__builtin_addressof(symbol));
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &)
{
    if (size == nullptr)
        return moccuda_set_error(cudaErrorInvalidValue);
    *size = sizeof(T);
    return cudaSuccess;
}

/* Kernels named by the function itself. */
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config)
{
    return cudaFuncSetCacheConfig((const void *)func, config);
}
template <class T>
inline cudaError_t cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig config)
{
    return cudaFuncSetSharedMemConfig((const void *)func, config);
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value)
{
    return cudaFuncSetAttribute((const void *)func, attr, value);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, T *func, int block_size,
                                                                 size_t dynamic_shared_bytes)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)func, block_size, dynamic_shared_bytes);
}
/* The block size (a multiple of the warp size, at most block_size_limit when that is nonzero)
 * giving the most resident threads per multiprocessor, and the grid that fills the device. */
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid_size, int *block_size, T *func,
                                                      size_t dynamic_shared_bytes = 0, int block_size_limit = 0)
{
    if (min_grid_size == nullptr || block_size == nullptr)
        return moccuda_set_error(cudaErrorInvalidValue);
    int limit = block_size_limit > 0 && block_size_limit < 1024 ? block_size_limit : 1024;
    int sm_count = 0, best_size = 0, best_threads = 0;
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
    for (int size = 32; size <= limit; size += 32) {
        int blocks = 0;
        cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, size, dynamic_shared_bytes);
        if (status != cudaSuccess)
            return status;
        if (blocks * size >= best_threads) {
            best_threads = blocks * size;
            best_size = size;
        }
    }
    *block_size = best_size;
    *min_grid_size = best_threads / (best_size > 0 ? best_size : 1) * sm_count;
    return cudaSuccess;
}

/* Managed-memory hints (CUDA 12's signatures): nothing to do when all memory is host memory. */
inline cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = 0) { return cudaSuccess; }
inline cudaError_t cudaMemAdvise(const void *, size_t, enum cudaMemoryAdvise, int) { return cudaSuccess; }

#endif /* __cplusplus */

#include "cuda2cpu_device.h"
#include "cuda2cpu_texture.h"

#endif /* MOCCUDA_CUDA_RUNTIME_H */
