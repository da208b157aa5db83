// MocCUDA runtime: the per-thread default stream entry points that nvcc's
// `--default-stream per-thread` makes programs import.  `_ptsz` functions take a stream, and 0
// there means cudaStreamPerThread; `_ptds` functions are the synchronous copies and fills, ordered
// on the calling thread's own default stream (so without the legacy stream's implicit waits).
#include "internal.h"

namespace {

cudaStream_t per_thread(cudaStream_t stream) { return stream == nullptr ? cudaStreamPerThread : stream; }

}  // namespace

extern "C" {

// ---- _ptsz: a stream argument, 0 meaning the per-thread stream ----

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyAsync(dst, src, count, kind, per_thread(stream));
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
                                   size_t height, cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, height, kind, per_thread(stream));
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count, size_t offset,
                                         cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, per_thread(stream));
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset,
                                           cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, per_thread(stream));
}

cudaError_t cudaMemsetAsync_ptsz(void *ptr, int value, size_t count, cudaStream_t stream)
{
    return cudaMemsetAsync(ptr, value, count, per_thread(stream));
}

cudaError_t cudaMemset2DAsync_ptsz(void *ptr, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream)
{
    return cudaMemset2DAsync(ptr, pitch, value, width, height, per_thread(stream));
}

cudaError_t cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t stream)
{
    return cudaMallocAsync(ptr, size, per_thread(stream));
}

cudaError_t cudaFreeAsync_ptsz(void *ptr, cudaStream_t stream) { return cudaFreeAsync(ptr, per_thread(stream)); }

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) { return cudaStreamQuery(per_thread(stream)); }

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) { return cudaStreamSynchronize(per_thread(stream)); }

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t stream, unsigned int *flags)
{
    return cudaStreamGetFlags(per_thread(stream), flags);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t stream, int *priority)
{
    return cudaStreamGetPriority(per_thread(stream), priority);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return cudaStreamWaitEvent(per_thread(stream), event, flags);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void *user_data,
                                       unsigned int flags)
{
    return cudaStreamAddCallback(per_thread(stream), callback, user_data, flags);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *user_data)
{
    return cudaLaunchHostFunc(per_thread(stream), fn, user_data);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecord(event, per_thread(stream));
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    return cudaEventRecordWithFlags(event, per_thread(stream), flags);
}

// ---- _ptds: synchronous, on the per-thread stream ----

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    return cudaMemcpyAsync(dst, src, count, kind, cudaStreamPerThread);  // runs now, on this thread
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
                              size_t height, cudaMemcpyKind kind)
{
    return cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, height, kind, cudaStreamPerThread);
}

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                    cudaMemcpyKind kind)
{
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, cudaStreamPerThread);
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, cudaStreamPerThread);
}

cudaError_t cudaMemset_ptds(void *ptr, int value, size_t count)
{
    return cudaMemsetAsync(ptr, value, count, cudaStreamPerThread);
}

cudaError_t cudaMemset2D_ptds(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    return cudaMemset2DAsync(ptr, pitch, value, width, height, cudaStreamPerThread);
}

}  // extern "C"
