// MocCUDA runtime: the CUDA runtime API served from host memory.
//
// All "device" memory is host memory, so copies of every kind are memcpy.  Allocations are
// tracked so that freeing an unknown pointer is an error (as on a GPU) rather than a crash.
// Streams are synchronous: work runs when it is issued, so an event records the time at which
// cudaEventRecord is called and elapsed times are real.  Errors are returned and remembered as
// the last error (cudaGetLastError returns and clears it; cudaPeekAtLastError only returns it).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace {

std::mutex lock;
std::unordered_map<void *, size_t> device_allocations;
std::unordered_set<void *> host_allocations;
thread_local cudaError_t last_error = cudaSuccess;
thread_local int current_device = 0;

struct Event {
    bool recorded = false;
    std::chrono::steady_clock::time_point when;
};
std::unordered_set<Event *> events;
std::unordered_set<void *> streams;

cudaError_t record(cudaError_t status)
{
    if (status != cudaSuccess)
        last_error = status;
    return status;
}

bool valid_kind(cudaMemcpyKind kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

cudaError_t allocate(void **ptr, size_t size, bool device)
{
    if (ptr == nullptr)
        return record(cudaErrorInvalidValue);
    void *p = aligned_alloc(256, ((size + 255) / 256) * 256 + 256);
    if (p == nullptr) {
        *ptr = nullptr;
        return record(cudaErrorMemoryAllocation);
    }
    std::lock_guard<std::mutex> guard(lock);
    if (device)
        device_allocations[p] = size;
    else
        host_allocations.insert(p);
    *ptr = p;
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void **ptr, size_t size) { return allocate(ptr, size, true); }
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int) { return allocate(ptr, size, true); }
cudaError_t cudaMallocHost(void **ptr, size_t size) { return allocate(ptr, size, false); }
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int) { return allocate(ptr, size, false); }

cudaError_t cudaFree(void *ptr)
{
    if (ptr == nullptr)
        return cudaSuccess;
    std::lock_guard<std::mutex> guard(lock);
    if (device_allocations.erase(ptr) == 0)
        return record(cudaErrorInvalidValue);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr)
{
    if (ptr == nullptr)
        return cudaSuccess;
    std::lock_guard<std::mutex> guard(lock);
    if (host_allocations.erase(ptr) == 0)
        return record(cudaErrorInvalidValue);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return record(cudaErrorInvalidMemcpyDirection);
    if (count == 0)
        return cudaSuccess;
    if (dst == nullptr || src == nullptr)
        return record(cudaErrorInvalidValue);
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t)
{
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return record(cudaErrorInvalidMemcpyDirection);
    if (width > dpitch || width > spitch)
        return record(cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; ++row)
        memmove(static_cast<char *>(dst) + row * dpitch, static_cast<const char *>(src) + row * spitch, width);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    if (count == 0)
        return cudaSuccess;
    if (ptr == nullptr)
        return record(cudaErrorInvalidValue);
    memset(ptr, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t) { return cudaMemset(ptr, value, count); }

cudaError_t moccuda_memcpy_symbol(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (free_bytes == nullptr || total_bytes == nullptr)
        return record(cudaErrorInvalidValue);
    *total_bytes = 16945512448ull;
    size_t used = 0;
    std::lock_guard<std::mutex> guard(lock);
    for (const auto &entry : device_allocations)
        used += entry.second;
    *free_bytes = used < *total_bytes ? *total_bytes - used : 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaThreadSynchronize(void) { return cudaSuccess; }
cudaError_t cudaDeviceReset(void) { last_error = cudaSuccess; return cudaSuccess; }

cudaError_t cudaGetLastError(void)
{
    cudaError_t status = last_error;
    last_error = cudaSuccess;
    return status;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }
void moccuda_set_last_error(cudaError_t error) { last_error = error; }

#define MOCCUDA_ERRORS(X)                                                                 \
    X(cudaSuccess, "no error")                                                            \
    X(cudaErrorInvalidValue, "invalid argument")                                          \
    X(cudaErrorMemoryAllocation, "out of memory")                                         \
    X(cudaErrorInitializationError, "initialization error")                               \
    X(cudaErrorInvalidConfiguration, "invalid configuration argument")                    \
    X(cudaErrorInvalidPitchValue, "invalid pitch argument")                               \
    X(cudaErrorInvalidSymbol, "invalid device symbol")                                    \
    X(cudaErrorInvalidDevicePointer, "invalid device pointer")                            \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")               \
    X(cudaErrorNoDevice, "no CUDA-capable device is detected")                            \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                   \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")                          \
    X(cudaErrorNotReady, "device not ready")                                              \
    X(cudaErrorIllegalAddress, "an illegal memory access was encountered")                \
    X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")           \
    X(cudaErrorNotSupported, "operation not supported")                                   \
    X(cudaErrorUnknown, "unknown error")

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
#define X(code, text) case code: return text;
        MOCCUDA_ERRORS(X)
#undef X
    }
    return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define X(code, text) case code: return #code;
        MOCCUDA_ERRORS(X)
#undef X
    }
    return "cudaErrorUnknown";
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (count == nullptr)
        return record(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (device != 0)
        return record(cudaErrorInvalidDevice);
    current_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (device == nullptr)
        return record(cudaErrorInvalidValue);
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaFuncSetCacheConfig(const void *, cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
    if (prop == nullptr)
        return record(cudaErrorInvalidValue);
    if (device != 0)
        return record(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "MocCUDA CPU device (reporting Tesla V100-SXM2-16GB)");
    prop->totalGlobalMem = 16945512448ull;
    prop->sharedMemPerBlock = 49152;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->clockRate = 1530000;
    prop->totalConstMem = 65536;
    prop->major = 7;
    prop->minor = 0;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->deviceOverlap = 1;
    prop->multiProcessorCount = 80;
    prop->canMapHostMemory = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    if (value == nullptr)
        return record(cudaErrorInvalidValue);
    if (device != 0)
        return record(cudaErrorInvalidDevice);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = prop.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = prop.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = prop.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = prop.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = prop.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = prop.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = prop.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)prop.sharedMemPerBlock; break;
    case cudaDevAttrWarpSize: *value = prop.warpSize; break;
    case cudaDevAttrMultiProcessorCount: *value = prop.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = prop.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = prop.minor; break;
    default: return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int)
{
    if (stream == nullptr)
        return record(cudaErrorInvalidValue);
    void *handle = malloc(1);
    std::lock_guard<std::mutex> guard(lock);
    streams.insert(handle);
    *stream = static_cast<cudaStream_t>(handle);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    std::lock_guard<std::mutex> guard(lock);
    if (streams.erase(stream) == 0)
        return record(cudaErrorInvalidResourceHandle);
    free(stream);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int)
{
    if (event == nullptr)
        return record(cudaErrorInvalidValue);
    Event *e = new Event;
    std::lock_guard<std::mutex> guard(lock);
    events.insert(e);
    *event = reinterpret_cast<cudaEvent_t>(e);
    return cudaSuccess;
}

static Event *find_event(cudaEvent_t event)
{
    std::lock_guard<std::mutex> guard(lock);
    Event *e = reinterpret_cast<Event *>(event);
    return events.count(e) ? e : nullptr;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t)
{
    Event *e = find_event(event);
    if (e == nullptr)
        return record(cudaErrorInvalidResourceHandle);
    e->when = std::chrono::steady_clock::now();
    e->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    return find_event(event) ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    return find_event(event) ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    Event *a = find_event(start), *b = find_event(end);
    if (ms == nullptr)
        return record(cudaErrorInvalidValue);
    if (a == nullptr || b == nullptr || !a->recorded || !b->recorded)
        return record(cudaErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    std::lock_guard<std::mutex> guard(lock);
    Event *e = reinterpret_cast<Event *>(event);
    if (events.erase(e) == 0)
        return record(cudaErrorInvalidResourceHandle);
    delete e;
    return cudaSuccess;
}

cudaError_t moccuda_launch_check(dim3 grid, dim3 block, size_t shared_bytes)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
        return cudaErrorInvalidConfiguration;
    if (block.x > 1024 || block.y > 1024 || block.z > 64 || threads > 1024)
        return cudaErrorInvalidConfiguration;
    if (grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u)
        return cudaErrorInvalidConfiguration;
    if (shared_bytes > 49152)
        return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

}  // extern "C"
