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
/* The include guard of CUDA's own cuda_runtime.h: headers such as the CUDA samples' helper_cuda.h
 * test it to see that the runtime API is declared. */
#define __CUDA_RUNTIME_H__

#ifdef __CUDACC__
/* nvcc's predefined macros (CUDA 13.0), for a .cu file: the front end parses it with them and its
 * translation, which keeps the source's #if choices, is compiled with them. */
#ifndef __NVCC__
#define __NVCC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#endif
#ifndef __CUDA_API_VER_MAJOR__
#define __CUDA_API_VER_MAJOR__ 13
#define __CUDA_API_VER_MINOR__ 0
#endif
#endif

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
/* CUDA 4 and older also named a symbol by a string: cudaMemcpyToSymbol("coeffs", ...).  A string
 * literal is a const char array, chosen by these overloads over the ones above; the variable is
 * found by name (moccuda_symbol_by_name: it must have external linkage), else the copy fails with
 * cudaErrorInvalidSymbol.  A non-const char array stays a symbol itself (the overloads below). */
template <size_t N>
inline cudaError_t cudaMemcpyToSymbol(const char (&name)[N], const void *src, size_t count, size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    void *symbol = moccuda_symbol_by_name(name);
    if (symbol == nullptr)
        return moccuda_set_error(cudaErrorInvalidSymbol);
    return moccuda_symbol_copy(symbol, 0, offset, (void *)src, count, kind, 1);
}
template <size_t N>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const char (&name)[N], size_t count, size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    void *symbol = moccuda_symbol_by_name(name);
    if (symbol == nullptr)
        return moccuda_set_error(cudaErrorInvalidSymbol);
    return moccuda_symbol_copy(symbol, 0, offset, dst, count, kind, 0);
}
template <size_t N>
inline cudaError_t cudaMemcpyToSymbol(char (&symbol)[N], const void *src, size_t count, size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return moccuda_symbol_copy((void *)symbol, N, offset, (void *)src, count, kind, 1);
}
template <size_t N>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, char (&symbol)[N], size_t count, size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return moccuda_symbol_copy((void *)symbol, N, offset, dst, count, kind, 0);
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
inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attributes, T *func)
{
    return cudaFuncGetAttributes(attributes, (const void *)func);
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

/* CUDA 11's cudaGraphInstantiate, which CUDA 12 programs still write: no node fails to
 * instantiate here but for a cycle, which the error node and log do not describe. */
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, cudaGraphNode_t *error_node,
                                        char *log, size_t log_size)
{
    if (error_node != 0)
        *error_node = 0;
    if (log != 0 && log_size > 0)
        log[0] = '\0';
    return cudaGraphInstantiate(exec, graph, 0ull);
}

/* CUDA 12's forms of the managed-memory prefetch and advice, which name a device by its id
 * (cudaCpuDeviceId for the host): the location forms of cuda_runtime_api.h do the work. */
inline cudaMemLocation moccuda_location_of_device(int device)
{
    cudaMemLocation location;
    location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    location.id = device == cudaCpuDeviceId ? 0 : device;
    return location;
}
inline cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, int device, cudaStream_t stream = 0)
{
    return cudaMemPrefetchAsync(ptr, count, moccuda_location_of_device(device), 0, stream);
}
inline cudaError_t cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice, int device)
{
    return cudaMemAdvise(ptr, count, advice, moccuda_location_of_device(device));
}

#endif /* __cplusplus */

#include "cuda2cpu_device.h"
#include "cuda2cpu_texture.h"

#if defined(__CUDA2CPU_PARSE__) && defined(__cplusplus)
/* Placement new in device code (nvcc's headers declare it for the device): cuda2cpu translates
 * `new (p) T(args)` into moccuda::construct_at<T>(p, args). */
#include <new>
__device__ inline void *operator new(size_t, void *p) noexcept { return p; }
__device__ inline void *operator new[](size_t, void *p) noexcept { return p; }
__device__ inline void operator delete(void *, void *) noexcept {}
__device__ inline void operator delete[](void *, void *) noexcept {}
#endif

#ifdef __CUDA2CPU_PARSE__
/* Graph kernel nodes built by hand name the kernel by a void * and its arguments by void **,
 * which a translated kernel (a host function with typed parameters) cannot be called through:
 * a use is a located error saying what works instead. */
#define MOCCUDA_NO_KERNEL_NODES(WHAT)                                                                \
    __attribute__((unavailable(WHAT " (graph kernel nodes built by hand) is not supported by cuda2cpu: "   \
                               "capture the launch into the graph with cudaStreamBeginCapture and "         \
                               "cudaStreamEndCapture instead")))
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, size_t,
                                   const struct cudaKernelNodeParams *) MOCCUDA_NO_KERNEL_NODES("cudaGraphAddKernelNode");
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t, struct cudaKernelNodeParams *)
    MOCCUDA_NO_KERNEL_NODES("cudaGraphKernelNodeGetParams");
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t, const struct cudaKernelNodeParams *)
    MOCCUDA_NO_KERNEL_NODES("cudaGraphKernelNodeSetParams");
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t, cudaGraphNode_t, const struct cudaKernelNodeParams *)
    MOCCUDA_NO_KERNEL_NODES("cudaGraphExecKernelNodeSetParams");
#undef MOCCUDA_NO_KERNEL_NODES
#ifdef __cplusplus
/* CUDA's device runtime (dynamic parallelism: runtime calls and kernel launches from device code).
 * A CPU thread running a block has no runtime of its own to call, so each such call is a located
 * error saying so.  Declared __device__, beside the host functions of the same names: clang picks
 * these in __global__ and __device__ functions, the host ones in __host__ __device__ functions
 * (their host view, as nvcc's host pass). */
#define MOCCUDA_DEVICE_RUNTIME(WHAT)                                                                  \
    __device__ __attribute__((unavailable(WHAT " in device code is CUDA's dynamic parallelism (the device "  \
                                          "runtime), which cuda2cpu does not support: do the work in the "   \
                                          "kernel's own threads, or from the host after the kernel")))
MOCCUDA_DEVICE_RUNTIME("cudaDeviceSynchronize") cudaError_t cudaDeviceSynchronize(void);
MOCCUDA_DEVICE_RUNTIME("cudaGetLastError") cudaError_t cudaGetLastError(void);
MOCCUDA_DEVICE_RUNTIME("cudaPeekAtLastError") cudaError_t cudaPeekAtLastError(void);
MOCCUDA_DEVICE_RUNTIME("cudaGetErrorString") const char *cudaGetErrorString(cudaError_t);
MOCCUDA_DEVICE_RUNTIME("cudaGetErrorName") const char *cudaGetErrorName(cudaError_t);
MOCCUDA_DEVICE_RUNTIME("cudaGetDevice") cudaError_t cudaGetDevice(int *);
MOCCUDA_DEVICE_RUNTIME("cudaGetDeviceCount") cudaError_t cudaGetDeviceCount(int *);
MOCCUDA_DEVICE_RUNTIME("cudaDeviceGetAttribute") cudaError_t cudaDeviceGetAttribute(int *, enum cudaDeviceAttr, int);
MOCCUDA_DEVICE_RUNTIME("cudaDeviceGetLimit") cudaError_t cudaDeviceGetLimit(size_t *, enum cudaLimit);
MOCCUDA_DEVICE_RUNTIME("cudaDeviceGetCacheConfig") cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *);
MOCCUDA_DEVICE_RUNTIME("cudaDeviceGetSharedMemConfig") cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *);
MOCCUDA_DEVICE_RUNTIME("cudaRuntimeGetVersion") cudaError_t cudaRuntimeGetVersion(int *);
MOCCUDA_DEVICE_RUNTIME("cudaFuncGetAttributes") cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *, const void *);
MOCCUDA_DEVICE_RUNTIME("cudaMalloc") cudaError_t cudaMalloc(void **, size_t);
template <class T>
MOCCUDA_DEVICE_RUNTIME("cudaMalloc") cudaError_t cudaMalloc(T **, size_t);
MOCCUDA_DEVICE_RUNTIME("cudaFree") cudaError_t cudaFree(void *);
MOCCUDA_DEVICE_RUNTIME("cudaStreamCreateWithFlags") cudaError_t cudaStreamCreateWithFlags(cudaStream_t *, unsigned int);
MOCCUDA_DEVICE_RUNTIME("cudaStreamDestroy") cudaError_t cudaStreamDestroy(cudaStream_t);
MOCCUDA_DEVICE_RUNTIME("cudaStreamWaitEvent") cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int);
MOCCUDA_DEVICE_RUNTIME("cudaEventCreateWithFlags") cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned int);
MOCCUDA_DEVICE_RUNTIME("cudaEventRecord") cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
MOCCUDA_DEVICE_RUNTIME("cudaEventRecordWithFlags") cudaError_t cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t, unsigned int);
MOCCUDA_DEVICE_RUNTIME("cudaEventDestroy") cudaError_t cudaEventDestroy(cudaEvent_t);
MOCCUDA_DEVICE_RUNTIME("cudaMemcpyAsync") cudaError_t cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind,
                                                                    cudaStream_t = 0);
MOCCUDA_DEVICE_RUNTIME("cudaMemcpy2DAsync") cudaError_t cudaMemcpy2DAsync(void *, size_t, const void *, size_t, size_t,
                                                                        size_t, enum cudaMemcpyKind, cudaStream_t = 0);
MOCCUDA_DEVICE_RUNTIME("cudaMemcpy3DAsync") cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *, cudaStream_t = 0);
MOCCUDA_DEVICE_RUNTIME("cudaMemsetAsync") cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t = 0);
MOCCUDA_DEVICE_RUNTIME("cudaMemset2DAsync") cudaError_t cudaMemset2DAsync(void *, size_t, int, size_t, size_t,
                                                                        cudaStream_t = 0);
MOCCUDA_DEVICE_RUNTIME("cudaOccupancyMaxActiveBlocksPerMultiprocessor")
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *, const void *, int, size_t);
MOCCUDA_DEVICE_RUNTIME("cudaGetParameterBuffer") void *cudaGetParameterBuffer(size_t, size_t);
MOCCUDA_DEVICE_RUNTIME("cudaLaunchDevice") cudaError_t cudaLaunchDevice(void *, void *, dim3, dim3, unsigned int,
                                                                      cudaStream_t);
#undef MOCCUDA_DEVICE_RUNTIME
#endif /* __cplusplus */
#endif

#ifdef __cplusplus
/* ---- launches through the runtime API of kernels translated by cuda2cpu ----
 * A translated kernel is a host function whose first parameter is a moccuda::LaunchConfig, so
 * these overloads take the kernel itself, typed (cudaLaunchKernel(kernel, ...) as CUDA's C++
 * template is called; a kernel cast to void * reaches the C function, which knows only kernels of
 * nvcc-built programs). */
#ifdef __CUDA2CPU_PARSE__
template <class... P>
cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args, size_t shared_bytes = 0,
                             cudaStream_t stream = 0);
template <class... P, class... A>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...), A &&...args);
template <class... P>
cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args,
                                        size_t shared_bytes = 0, cudaStream_t stream = 0);
#else
#include <utility>
namespace moccuda {
namespace detail {
/* std::index_sequence is C++14; nvcc users may compile as C++11. */
template <size_t... I>
struct indices {};
template <size_t N, size_t... I>
struct make_indices : make_indices<N - 1, N - 1, I...> {};
template <size_t... I>
struct make_indices<0, I...> {
    typedef indices<I...> type;
};
template <class... P, size_t... I>
inline void call_with_args(void (*kernel)(LaunchConfig, P...), const LaunchConfig &launch, void **args,
                           indices<I...>)
{
    kernel(launch, *static_cast<typename std::remove_reference<P>::type *>(args[I])...);
}
}  // namespace detail
}  // namespace moccuda

template <class... P>
inline cudaError_t cudaLaunchKernel(void (*kernel)(moccuda::LaunchConfig, P...), dim3 grid, dim3 block, void **args,
                                    size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    cudaError_t status = moccuda_launch_check(grid, block, shared_bytes, stream, (const void *)kernel);
    if (status != cudaSuccess)
        return status;
    if (sizeof...(P) > 0 && args == nullptr)
        return moccuda_set_error(cudaErrorInvalidValue);
    moccuda::detail::call_with_args(kernel, moccuda::LaunchConfig(grid, block, shared_bytes, stream), args,
                                    typename moccuda::detail::make_indices<sizeof...(P)>::type());
    return cudaSuccess;
}
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(moccuda::LaunchConfig, P...), dim3 grid, dim3 block,
                                               void **args, size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    cudaError_t status = moccuda_cooperative_check((const void *)kernel, grid, block, shared_bytes);
    if (status == cudaSuccess)
        status = moccuda_launch_check(grid, block, shared_bytes, stream, (const void *)kernel);
    if (status != cudaSuccess)
        return status;
    if (sizeof...(P) > 0 && args == nullptr)
        return moccuda_set_error(cudaErrorInvalidValue);
    moccuda::LaunchConfig launch(grid, block, shared_bytes, stream);
    launch.cooperative = true;  /* a kernel using grid.sync() runs all its blocks at once */
    moccuda::detail::call_with_args(kernel, launch, args, typename moccuda::detail::make_indices<sizeof...(P)>::type());
    return cudaSuccess;
}
template <class... P, class... A>
inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(moccuda::LaunchConfig, P...),
                                      A &&...args)
{
    if (config == nullptr)
        return moccuda_set_error(cudaErrorInvalidValue);
    cudaError_t status = moccuda_launch_check(config->gridDim, config->blockDim, config->dynamicSmemBytes,
                                              config->stream, (const void *)kernel);
    if (status != cudaSuccess)
        return status;
    moccuda::LaunchConfig launch(config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream);
    for (unsigned i = 0; i < config->numAttrs && config->attrs != nullptr; ++i)
        if (config->attrs[i].id == cudaLaunchAttributeCooperative && config->attrs[i].val.cooperative)
            launch.cooperative = true;  /* as cudaLaunchCooperativeKernel: checked, then all blocks at once */
    if (launch.cooperative) {
        status = moccuda_cooperative_check((const void *)kernel, launch.grid, launch.block, launch.shared_bytes);
        if (status != cudaSuccess)
            return status;
    }
    kernel(launch, std::forward<A>(args)...);
    return cudaSuccess;
}
#endif
#endif /* __cplusplus */

#endif /* MOCCUDA_CUDA_RUNTIME_H */
