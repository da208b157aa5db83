/* MocCUDA: the CUDA runtime API as C functions (the library's ABI).
 *
 * Everything runs on the host: "device" memory is host memory, streams are synchronous (work runs
 * when it is issued), and there is one device, which reports the properties of a Tesla
 * V100-SXM2-16GB under the name "MocCUDA (Tesla V100-SXM2-16GB on the CPU)".
 *
 * Errors follow CUDA: each call returns its status, a failure also becomes the calling thread's
 * last error (cudaGetLastError returns and clears it, cudaPeekAtLastError only returns it), and
 * no misuse the runtime can detect crashes or aborts.
 */
#ifndef MOCCUDA_CUDA_RUNTIME_API_H
#define MOCCUDA_CUDA_RUNTIME_API_H
#define __CUDA_RUNTIME_API_H__  /* CUDA's own include guard, which programs test */

#include <stddef.h>

#include "host_defines.h"
#include "vector_types.h"
#include "driver_types.h"
#include "texture_types.h"

/* The runtime version MocCUDA's types and layouts follow: 13.0. */
#define CUDART_VERSION 13000
#define MOCCUDA_VERSION 1
/* The most threads a grid may have along one dimension (gridDim * blockDim): 2^31 - 1 - 1024,
 * so that blockIdx * blockDim + threadIdx always fits an int (see moccuda::assume_checked_launch). */
#define MOCCUDA_THREAD_INDEX_LIMIT 2147482623u

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---- */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

/* ---- devices ---- */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags);
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaThreadSynchronize(void); /* deprecated names of the two above */
cudaError_t cudaThreadExit(void);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config);
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);
cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer_device);
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t dynamic_shared_bytes);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attributes, const void *func);
cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value); /* deprecated names of */
cudaError_t cudaThreadGetLimit(size_t *value, enum cudaLimit limit); /* cudaDevice{Set,Get}Limit */
/* Launches a kernel registered by an nvcc-built program (see src/launch.cpp); kernels of programs
 * translated by cuda2cpu go through the C++ overloads in cuda_runtime.h. */
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                             cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                                        cudaStream_t stream);
/* Whether a cooperative launch of `func` fits on the device at once (else
 * cudaErrorCooperativeLaunchTooLarge, recorded as the last error). */
cudaError_t moccuda_cooperative_check(const void *func, dim3 grid, dim3 block, size_t shared_bytes);

/* ---- memory ---- */
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags MOCCUDA_DEFAULT(cudaMemAttachGlobal));
cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **device_ptr, void *host_ptr, unsigned int flags);
cudaError_t cudaHostGetFlags(unsigned int *flags, void *host_ptr);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);

/* Managed memory is host memory, reachable from host and kernels alike: a prefetch moves nothing and
 * advice changes nothing, but both check their arguments as CUDA does (the range in one managed
 * allocation, a valid location and stream).  CUDA 13's signatures, with CUDA 12's _v2 names for them;
 * the C++ overloads in cuda_runtime.h take CUDA 12's device ids. */
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaMemPrefetchAsync_v2(const void *ptr, size_t count, struct cudaMemLocation location,
                                    unsigned int flags, cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location);
cudaError_t cudaMemAdvise_v2(const void *ptr, size_t count, enum cudaMemoryAdvise advice,
                             struct cudaMemLocation location);

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaMemcpy2D(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t count);
cudaError_t cudaMemset(void *ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *ptr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream MOCCUDA_DEFAULT(0));

/* A __device__ or __constant__ variable is an ordinary variable here, so a symbol is its address.
 * C++ code normally calls the overloads in cuda_runtime.h that take the variable itself. */
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                               size_t offset MOCCUDA_DEFAULT(0),
                               enum cudaMemcpyKind kind MOCCUDA_DEFAULT(cudaMemcpyHostToDevice));
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset MOCCUDA_DEFAULT(0),
                                 enum cudaMemcpyKind kind MOCCUDA_DEFAULT(cudaMemcpyDeviceToHost));
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaGetSymbolAddress(void **device_ptr, const void *symbol);

/* ---- pitched 3-D memory, arrays, textures and surfaces (src/texture.cpp) ---- */
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitched, int value, struct cudaExtent extent);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *parms);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *parms, cudaStream_t stream MOCCUDA_DEFAULT(0));
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height MOCCUDA_DEFAULT(0), unsigned int flags MOCCUDA_DEFAULT(0));
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags MOCCUDA_DEFAULT(0));
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t count,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t src_pitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dst_pitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t w_offset_dst, size_t h_offset_dst, cudaArray_const_t src,
                                     size_t w_offset_src, size_t h_offset_src, size_t width, size_t height,
                                     enum cudaMemcpyKind kind MOCCUDA_DEFAULT(cudaMemcpyDeviceToDevice));
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t w_offset_dst, size_t h_offset_dst, cudaArray_const_t src,
                                   size_t w_offset_src, size_t h_offset_src, size_t count,
                                   enum cudaMemcpyKind kind MOCCUDA_DEFAULT(cudaMemcpyDeviceToDevice));
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
                                     size_t src_pitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texture, const struct cudaResourceDesc *resource,
                                    const struct cudaTextureDesc *sampling, const struct cudaResourceViewDesc *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *resource, cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *sampling, cudaTextureObject_t texture);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surface, const struct cudaResourceDesc *resource);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surface);
/* Legacy texture references (removed in CUDA 12; kept here).  C++ code usually calls the
 * overloads in cuda2cpu_texture.h, which take the texture<T, dim, mode> itself. */
cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texture, const void *ptr,
                            const struct cudaChannelFormatDesc *desc, size_t size);
cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texture, const void *ptr,
                              const struct cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch);
cudaError_t cudaBindTextureToArray(const struct textureReference *texture, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc);
cudaError_t cudaUnbindTexture(const struct textureReference *texture);
cudaError_t cudaGetTextureReference(const struct textureReference **texture, const void *symbol);
cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const struct textureReference *texture);

/* ---- streams (synchronous: work runs when issued, so every stream is always idle) ---- */
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
/* Attaching managed memory to a stream limits which work on the GPU may touch it; on the CPU
 * every thread always sees all of it, so there is nothing to do beyond checking the flags. */
static inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *ptr, size_t length MOCCUDA_DEFAULT(0),
                                                   unsigned int flags MOCCUDA_DEFAULT(cudaMemAttachSingle))
{
    (void)stream;
    (void)ptr;
    (void)length;
    return (flags == cudaMemAttachGlobal || flags == cudaMemAttachHost || flags == cudaMemAttachSingle)
               ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags MOCCUDA_DEFAULT(0));
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority);
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value);
cudaError_t cudaCtxResetPersistingL2Cache(void);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *user_data,
                                  unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data);

/* ---- graphs (src/graphs.cpp) ----
 * Stream capture records the work issued to a stream (kernels, copies, fills, host functions,
 * graph launches; streams that wait on an event recorded in the capture join it) as a graph
 * instead of running it.  A graph runs each time an executable graph made from it is launched:
 * its nodes one after another in an order that respects every dependency, as one item of the
 * launching stream's work.  Kernel nodes come from capture only. */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t original);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                  size_t count);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                 size_t count, const struct cudaHostNodeParams *params);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const struct cudaMemsetParams *params);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const struct cudaMemcpy3DParms *params);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                       size_t count, cudaGraph_t child);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t count);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *dependencies, size_t *count);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags MOCCUDA_DEFAULT(0));
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
/* Whether `stream` is being captured now (nonzero), and the recording of a translated kernel's
 * launch into its capture: `run(closure)` launches the kernel again with the launch's arguments,
 * at each launch of a graph made from the capture; `release(closure)` frees it once no graph
 * holds it (moccuda::launch_captured in cuda2cpu_device.h). */
int moccuda_stream_capturing(cudaStream_t stream);
cudaError_t moccuda_capture_launch(cudaStream_t stream, void (*run)(void *), void *closure, void (*release)(void *));

/* ---- events (record the host's steady clock when recorded) ---- */
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream MOCCUDA_DEFAULT(0));
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream MOCCUDA_DEFAULT(0),
                                     unsigned int flags MOCCUDA_DEFAULT(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* ---- MocCUDA's own entry points, used by the headers ---- */

/* Records `error` as the calling thread's last error (unless it is cudaSuccess) and returns it. */
cudaError_t moccuda_set_error(cudaError_t error);

/* A failing device assert (moccuda::device_assert_fail): prints CUDA's message and makes
 * cudaErrorAssert the context's sticky error. */
void moccuda_device_assert(const char *expression, const char *file, unsigned line, const char *function,
                           uint3 block, uint3 thread);
/* Whether the context has a sticky error: a kernel running then stops its threads. */
int moccuda_kernel_trapped(void);

/* Validates a kernel launch as CUDA does and records a failure as the last error.  `kernel` (may
 * be NULL) identifies the kernel for limits raised with cudaFuncSetAttribute; with NULL the
 * largest limit raised for any kernel applies. */
cudaError_t moccuda_launch_check(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                                 const void *kernel);
/* The start of the allocation (cudaMalloc, cudaMallocManaged, cudaHostAlloc, ...) that holds
 * `ptr`, or NULL where none does. */
const void *moccuda_allocation_start(const void *ptr);
/* Copies between a symbol of `symbol_bytes` bytes (0: unknown, not checked) and a buffer;
 * `to_symbol` says which way. */
cudaError_t moccuda_symbol_copy(void *symbol, size_t symbol_bytes, size_t offset, void *buffer, size_t count,
                                enum cudaMemcpyKind kind, int to_symbol);
/* For kernel libraries of nvcc-built programs: the storage of the __device__/__constant__
 * variable the program registered under `name`, or NULL. */
void *moccuda_device_variable(const char *name);
/* The storage of the __device__/__constant__ variable named `name` (CUDA 4's string-named
 * symbols): a variable registered by an nvcc-built program, else an exported symbol of the
 * program (cuda2cpu links with -rdynamic), else NULL. */
void *moccuda_symbol_by_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MOCCUDA_CUDA_RUNTIME_API_H */
