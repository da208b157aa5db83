// MocCUDA runtime: memory.
//
// Every kind of memory is host memory, so copies of every kind are memmove.  Allocations are
// tracked (start address, size, kind) so that, as on a GPU, freeing a pointer the runtime did not
// hand out is an error rather than heap corruption, cudaPointerGetAttributes can classify any
// address, and cudaMalloc fails once the reported device memory is used up.
#include "internal.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace moccuda {
namespace runtime {
namespace {

enum class Kind { device, managed, pinned_host, registered_host };

struct Allocation {
    size_t size;
    Kind kind;
    unsigned int flags;
};

// CUDA aligns allocations to at least 256 bytes; cudaMallocPitch rows to 512 bytes.
constexpr size_t allocation_alignment = 256;
constexpr size_t pitch_alignment = 512;
// Allocations of at least this many bytes start on a 2 MiB boundary, span whole 2 MiB units and
// ask the kernel for transparent huge pages (where it backs them only when asked: "madvise" in
// /sys/kernel/mm/transparent_hugepage/enabled, Debian's and Ubuntu's default).  A GPU maps device
// memory in large pages too; on the CPU, a kernel that walks a big array across its rows (Rodinia
// nw's anti-diagonal tiles of a 268 MB matrix, a row of 64 KiB per tile row) misses the TLB on
// nearly every row with 4 KiB pages, and each 4 KiB page costs a fault when first written.
constexpr size_t huge_page_bytes = size_t(2) << 20;

std::mutex mutex;
std::map<uintptr_t, Allocation> allocations;  // by start address, for range lookups
size_t device_bytes = 0;                      // live cudaMalloc and cudaMallocManaged bytes

bool round_up(size_t size, size_t alignment, size_t *rounded)
{
    if (size > SIZE_MAX - (alignment - 1))
        return false;
    *rounded = (size + alignment - 1) / alignment * alignment;
    return true;
}

cudaError_t allocate(void **ptr, size_t size, Kind kind, unsigned int flags)
{
    if (ptr == nullptr)
        return fail(cudaErrorInvalidValue);
    *ptr = nullptr;
    if (cudaError_t sticky = sticky_error())
        return fail(sticky);
    if (size == 0)
        return cudaSuccess;  // as CUDA: success, and a null pointer
    size_t rounded;
    if (!round_up(size, allocation_alignment, &rounded))
        return fail(cudaErrorMemoryAllocation);
    bool counted = kind == Kind::device || kind == Kind::managed;
    if (counted) {
        // Reserve the bytes first, so that concurrent allocations cannot together exceed the
        // device.  Device memory is limited to what the reported device has; managed memory may
        // oversubscribe it, as on Pascal and later GPUs.
        std::lock_guard<std::mutex> guard(mutex);
        bool fits = device_bytes <= total_global_memory && size <= total_global_memory - device_bytes;
        if (kind == Kind::device && !fits)
            return fail(cudaErrorMemoryAllocation);
        device_bytes += size;
    }
    size_t alignment = allocation_alignment;
    if (rounded >= huge_page_bytes && round_up(rounded, huge_page_bytes, &rounded))
        alignment = huge_page_bytes;
    void *p = aligned_alloc(alignment, rounded);
#ifdef MADV_HUGEPAGE
    if (p != nullptr && alignment == huge_page_bytes)
        madvise(p, rounded, MADV_HUGEPAGE);  // a hint: errors change nothing
#endif
    std::lock_guard<std::mutex> guard(mutex);
    if (p == nullptr) {
        if (counted)
            device_bytes -= size;
        return fail(cudaErrorMemoryAllocation);
    }
    allocations[reinterpret_cast<uintptr_t>(p)] = Allocation{size, kind, flags};
    *ptr = p;
    return cudaSuccess;
}

// Frees `ptr` if it starts an allocation of one of the two kinds; false if it does not.
bool release(void *ptr, Kind kind, Kind other_kind)
{
    std::lock_guard<std::mutex> guard(mutex);
    auto found = allocations.find(reinterpret_cast<uintptr_t>(ptr));
    if (found == allocations.end() || (found->second.kind != kind && found->second.kind != other_kind))
        return false;
    if (found->second.kind == Kind::device || found->second.kind == Kind::managed)
        device_bytes -= found->second.size;
    allocations.erase(found);
    free(ptr);
    return true;
}

// The allocation containing `ptr`, or null (the caller holds the mutex).
const Allocation *containing(const void *ptr, uintptr_t *start)
{
    uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
    auto after = allocations.upper_bound(address);
    if (after == allocations.begin())
        return nullptr;
    auto found = std::prev(after);
    if (address - found->first >= found->second.size)
        return nullptr;
    *start = found->first;
    return &found->second;
}

bool valid_kind(cudaMemcpyKind kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

// Copies and fills of at least this many bytes map their destination's missing pages in one go.
constexpr size_t prefault_bytes = size_t(4) << 20;

// Maps the pages of [dst, dst + count) that the copy or fill about to write them would fault in
// one by one, when the first of them is not mapped yet: a fresh allocation, as the destination of
// a program's first copy to the device usually is (`cudaMalloc` then `cudaMemcpy`; on a GPU the
// copy goes to memory that exists).  One fault per 4 KiB page cost about as much as the copy
// itself (Rodinia nw's 268 MB matrices: 0.19 s of CPU per copy, 0.12 s populated first).  Only
// pages the copy writes in full, so nothing is mapped that it would not have mapped; already
// mapped memory is left alone (walking its pages again costs a fifth of a copy).
void prefault_for_write(void *dst, size_t count)
{
#ifdef MADV_POPULATE_WRITE
    if (count < prefault_bytes)
        return;
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    uintptr_t first = (reinterpret_cast<uintptr_t>(dst) + page - 1) & ~(page - 1);
    uintptr_t end = (reinterpret_cast<uintptr_t>(dst) + count) & ~(page - 1);
    if (end <= first)
        return;
    unsigned char resident = 0;
    if (mincore(reinterpret_cast<void *>(first), page, &resident) != 0 || (resident & 1))
        return;
    madvise(reinterpret_cast<void *>(first), end - first, MADV_POPULATE_WRITE);  // a hint: errors change nothing
#else
    (void)dst;
    (void)count;
#endif
}

}  // namespace

void release_all_memory()
{
    std::lock_guard<std::mutex> guard(mutex);
    for (const auto &entry : allocations)
        if (entry.second.kind != Kind::registered_host)  // the program's own memory
            free(reinterpret_cast<void *>(entry.first));
    allocations.clear();
    device_bytes = 0;
}

}  // namespace runtime
}  // namespace moccuda

using moccuda::runtime::fail;
using moccuda::runtime::Kind;

extern "C" {

// ---- allocation ----

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    return moccuda::runtime::allocate(ptr, size, Kind::device, 0);
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return fail(cudaErrorInvalidValue);
    return moccuda::runtime::allocate(ptr, size, Kind::managed, flags);
}

// Stream-ordered allocation inside a stream capture (CUDA's memory-allocation nodes) is not
// supported: the call fails and invalidates the capture.
static bool refuse_in_capture(cudaStream_t stream)
{
    if (!moccuda::runtime::capturing(stream))
        return false;
    moccuda::runtime::invalidate_capture(stream);
    fail(cudaErrorStreamCaptureUnsupported);
    return true;
}

cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
    if (refuse_in_capture(stream))
        return cudaErrorStreamCaptureUnsupported;
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMalloc(ptr, size);
}

cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (ptr == nullptr || pitch == nullptr)
        return fail(cudaErrorInvalidValue);
    size_t row;
    if (!moccuda::runtime::round_up(width, moccuda::runtime::pitch_alignment, &row) ||
        (height != 0 && row > SIZE_MAX / height))
        return fail(cudaErrorMemoryAllocation);
    *pitch = row;
    return cudaMalloc(ptr, row * height);
}

cudaError_t cudaFree(void *ptr)
{
    if (ptr == nullptr)
        return cudaSuccess;
    moccuda::runtime::synchronize_all();  // as CUDA's cudaFree, so queued work never sees freed memory
    if (!moccuda::runtime::release(ptr, Kind::device, Kind::managed))
        return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
    if (refuse_in_capture(stream))
        return cudaErrorStreamCaptureUnsupported;
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaFree(ptr);
}

// The device's one memory pool, the one cudaMallocAsync allocates from.  Its attributes are
// kept so that cudaMemPoolGetAttribute returns them; freed memory goes back at once whatever the
// release threshold (a hint about caching, without effect on results).
struct CUmemPoolHandle_st {
    uint64_t release_threshold = 0;
    int reuse[3] = {1, 1, 1};  // cudaMemPoolReuse*: allowed, as CUDA's defaults
};
static CUmemPoolHandle_st device_pool;

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
    int count = 0;
    cudaGetDeviceCount(&count);
    if (pool == nullptr)
        return fail(cudaErrorInvalidValue);
    if (device < 0 || device >= count)
        return fail(cudaErrorInvalidDevice);
    *pool = &device_pool;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) { return cudaDeviceGetDefaultMemPool(pool, device); }

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value)
{
    if (pool != &device_pool || value == nullptr)
        return fail(cudaErrorInvalidValue);
    if (attr >= cudaMemPoolReuseFollowEventDependencies && attr <= cudaMemPoolReuseAllowInternalDependencies)
        pool->reuse[attr - cudaMemPoolReuseFollowEventDependencies] = *static_cast<int *>(value);
    else if (attr == cudaMemPoolAttrReleaseThreshold)
        pool->release_threshold = *static_cast<uint64_t *>(value);
    else
        return fail(cudaErrorInvalidValue);  // the memory counters are read-only (high marks reset to 0: not kept)
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value)
{
    if (pool != &device_pool || value == nullptr)
        return fail(cudaErrorInvalidValue);
    if (attr >= cudaMemPoolReuseFollowEventDependencies && attr <= cudaMemPoolReuseAllowInternalDependencies)
        *static_cast<int *>(value) = pool->reuse[attr - cudaMemPoolReuseFollowEventDependencies];
    else if (attr == cudaMemPoolAttrReleaseThreshold)
        *static_cast<uint64_t *>(value) = pool->release_threshold;
    else
        return fail(cudaErrorNotSupported);  // how much the pool holds is not counted
    return cudaSuccess;
}

// Nothing is kept in the pool once freed, so there is nothing to trim.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t)
{
    return pool == &device_pool ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return moccuda::runtime::allocate(ptr, size, Kind::pinned_host, cudaHostAllocDefault);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    if (flags & ~0x7u)
        return fail(cudaErrorInvalidValue);
    return moccuda::runtime::allocate(ptr, size, Kind::pinned_host, flags);
}

cudaError_t cudaFreeHost(void *ptr)
{
    if (ptr == nullptr)
        return cudaSuccess;
    if (!moccuda::runtime::release(ptr, Kind::pinned_host, Kind::pinned_host))
        return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    using namespace moccuda::runtime;
    if (ptr == nullptr || size == 0 || (flags & ~0xfu))
        return fail(cudaErrorInvalidValue);
    uintptr_t start = reinterpret_cast<uintptr_t>(ptr), existing;
    if (size > UINTPTR_MAX - start)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    // The new range overlaps an existing allocation if one contains its start or starts inside it.
    auto next = allocations.lower_bound(start);
    if (containing(ptr, &existing) != nullptr || (next != allocations.end() && next->first - start < size))
        return fail(cudaErrorHostMemoryAlreadyRegistered);
    allocations[start] = Allocation{size, Kind::registered_host, flags};
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    auto found = allocations.find(reinterpret_cast<uintptr_t>(ptr));
    if (ptr == nullptr || found == allocations.end() || found->second.kind != Kind::registered_host)
        return fail(cudaErrorHostMemoryNotRegistered);
    allocations.erase(found);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **device_ptr, void *host_ptr, unsigned int flags)
{
    using namespace moccuda::runtime;
    if (device_ptr == nullptr || host_ptr == nullptr || flags != 0)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    uintptr_t start;
    const Allocation *allocation = containing(host_ptr, &start);
    if (allocation == nullptr || allocation->kind == Kind::device)
        return fail(cudaErrorInvalidValue);
    *device_ptr = host_ptr;  // host and device share one address space
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int *flags, void *host_ptr)
{
    using namespace moccuda::runtime;
    if (flags == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    uintptr_t start;
    const Allocation *allocation = containing(host_ptr, &start);
    if (allocation == nullptr || (allocation->kind != Kind::pinned_host && allocation->kind != Kind::registered_host))
        return fail(cudaErrorInvalidValue);
    *flags = allocation->flags;
    return cudaSuccess;
}

// ---- managed memory: prefetches and advice ----

namespace {

// Whether [ptr, ptr + count) lies in one managed allocation (CUDA refuses other memory on a device
// without pageable memory access, as the V100 reported here is).
bool managed_range(const void *ptr, size_t count)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    uintptr_t start;
    const Allocation *found = containing(ptr, &start);
    return found != nullptr && found->kind == Kind::managed
           && count <= found->size - (reinterpret_cast<uintptr_t>(ptr) - start);
}

// CUDA's checks of a location: the one device, or the host (any NUMA node of it).
cudaError_t check_location(cudaMemLocation location)
{
    switch (location.type) {
    case cudaMemLocationTypeDevice:
        return location.id == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
        return cudaSuccess;
    default:
        return fail(cudaErrorInvalidValue);
    }
}

}  // namespace

// Every allocation is host memory, reachable from the host and from kernels alike, so a prefetch
// has nothing to move: it is checked and is then complete, in any stream's order.
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream)
{
    if (cudaError_t sticky = moccuda::runtime::sticky_error())
        return fail(sticky);
    if (!moccuda::runtime::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    if (flags != 0 || count == 0 || !managed_range(ptr, count))
        return fail(cudaErrorInvalidValue);
    return check_location(location);
}

cudaError_t cudaMemPrefetchAsync_v2(const void *ptr, size_t count, cudaMemLocation location, unsigned int flags,
                                    cudaStream_t stream)
{
    return cudaMemPrefetchAsync(ptr, count, location, flags, stream);
}

// Advice about where memory is best kept or who reads it: checked as CUDA does, without effect
// on memory that is where every reader finds it.  The location is ignored by the read-mostly
// advice, as in CUDA.
cudaError_t cudaMemAdvise(const void *ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location)
{
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return fail(cudaErrorInvalidValue);
    if (count == 0 || !managed_range(ptr, count))
        return fail(cudaErrorInvalidValue);
    if (advice == cudaMemAdviseSetReadMostly || advice == cudaMemAdviseUnsetReadMostly)
        return cudaSuccess;
    return check_location(location);
}

cudaError_t cudaMemAdvise_v2(const void *ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location)
{
    return cudaMemAdvise(ptr, count, advice, location);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    using namespace moccuda::runtime;
    if (free_bytes == nullptr || total_bytes == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    *total_bytes = total_global_memory;
    *free_bytes = device_bytes < total_global_memory ? total_global_memory - device_bytes : 0;
    return cudaSuccess;
}

const void *moccuda_allocation_start(const void *ptr)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    uintptr_t start;
    return containing(ptr, &start) != nullptr ? reinterpret_cast<const void *>(start) : nullptr;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes, const void *ptr)
{
    using namespace moccuda::runtime;
    if (attributes == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    uintptr_t start;
    const Allocation *allocation = containing(ptr, &start);
    // Only the four fields every CUDA version has are written (see driver_types.h).
    void *p = const_cast<void *>(ptr);
    if (allocation == nullptr) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = cudaInvalidDeviceId;
        attributes->devicePointer = nullptr;
        attributes->hostPointer = p;
        return cudaSuccess;
    }
    attributes->device = 0;
    attributes->devicePointer = p;
    switch (allocation->kind) {
    case Kind::device:
        attributes->type = cudaMemoryTypeDevice;
        attributes->hostPointer = nullptr;
        break;
    case Kind::managed:
        attributes->type = cudaMemoryTypeManaged;
        attributes->hostPointer = p;
        break;
    case Kind::pinned_host:
    case Kind::registered_host:
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = p;
        break;
    }
    return cudaSuccess;
}

// ---- copies and fills ----

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    if (cudaError_t status = moccuda::runtime::wait_for_stream(nullptr))  // the legacy default stream's order
        return status;  // the context's sticky error
    if (!moccuda::runtime::valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (count == 0)
        return cudaSuccess;
    if (dst == nullptr || src == nullptr)
        return fail(cudaErrorInvalidValue);
    moccuda::runtime::prefault_for_write(dst, count);
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream)) {  // recorded in the graph, checked now
        if (!moccuda::runtime::valid_kind(kind))
            return fail(cudaErrorInvalidMemcpyDirection);
        if (count > 0 && (dst == nullptr || src == nullptr))
            return fail(cudaErrorInvalidValue);
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemcpy, [=] { memmove(dst, src, count); });
    }
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t count)
{
    if (dst_device != 0 || src_device != 0)
        return fail(cudaErrorInvalidDevice);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width, size_t height,
                         cudaMemcpyKind kind)
{
    if (cudaError_t sticky = moccuda::runtime::sticky_error())
        return fail(sticky);
    if (!moccuda::runtime::valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (width > dst_pitch || width > src_pitch)
        return fail(cudaErrorInvalidPitchValue);
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (dst == nullptr || src == nullptr)
        return fail(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row)
        memmove(static_cast<char *>(dst) + row * dst_pitch, static_cast<const char *>(src) + row * src_pitch, width);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width,
                              size_t height, cudaMemcpyKind kind, cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream))  // cudaMemcpy2D waits for no stream
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemcpy, [=] {
            cudaMemcpy2D(dst, dst_pitch, src, src_pitch, width, height, kind);
        });
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemcpy2D(dst, dst_pitch, src, src_pitch, width, height, kind);
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    if (cudaError_t sticky = moccuda::runtime::sticky_error())
        return fail(sticky);
    if (count == 0)
        return cudaSuccess;
    if (ptr == nullptr)
        return fail(cudaErrorInvalidValue);
    moccuda::runtime::prefault_for_write(ptr, count);
    memset(ptr, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream)) {  // recorded in the graph, checked now
        if (count > 0 && ptr == nullptr)
            return fail(cudaErrorInvalidValue);
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemset, [=] { memset(ptr, value, count); });
    }
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemset(ptr, value, count);
}

cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    if (width > pitch)
        return fail(cudaErrorInvalidPitchValue);
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (ptr == nullptr)
        return fail(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row)
        memset(static_cast<char *>(ptr) + row * pitch, value, width);
    return cudaSuccess;
}

cudaError_t cudaMemset2DAsync(void *ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream))
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemset,
                                         [=] { cudaMemset2D(ptr, pitch, value, width, height); });
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemset2D(ptr, pitch, value, width, height);
}

// ---- symbols: a __device__ or __constant__ variable is an ordinary variable, named by address ----

cudaError_t moccuda_symbol_copy(void *symbol, size_t symbol_bytes, size_t offset, void *buffer, size_t count,
                                cudaMemcpyKind kind, int to_symbol)
{
    if (cudaError_t sticky = moccuda::runtime::sticky_error())
        return fail(sticky);
    if (symbol == nullptr)
        return fail(cudaErrorInvalidSymbol);
    symbol = moccuda::runtime::device_symbol(symbol, &symbol_bytes);
    // The symbol is on the device side of the copy, so only the directions that allow that.
    bool direction_ok = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
                        kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (!direction_ok)
        return fail(cudaErrorInvalidMemcpyDirection);
    if (symbol_bytes != 0 && (offset > symbol_bytes || count > symbol_bytes - offset))
        return fail(cudaErrorInvalidValue);
    if (count == 0)
        return cudaSuccess;
    if (buffer == nullptr)
        return fail(cudaErrorInvalidValue);
    char *at = static_cast<char *>(symbol) + offset;
    if (to_symbol)
        memmove(at, buffer, count);
    else
        memmove(buffer, at, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind)
{
    return moccuda_symbol_copy(const_cast<void *>(symbol), 0, offset, const_cast<void *>(src), count, kind, 1);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind)
{
    return moccuda_symbol_copy(const_cast<void *>(symbol), 0, offset, dst, count, kind, 0);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream))  // the symbol copy waits for no stream
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemcpy,
                                         [=] { cudaMemcpyToSymbol(symbol, src, count, offset, kind); });
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream))
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemcpy,
                                         [=] { cudaMemcpyFromSymbol(dst, symbol, count, offset, kind); });
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void **device_ptr, const void *symbol)
{
    if (device_ptr == nullptr)
        return fail(cudaErrorInvalidValue);
    if (symbol == nullptr)
        return fail(cudaErrorInvalidSymbol);
    *device_ptr = moccuda::runtime::device_symbol(symbol, nullptr);
    return cudaSuccess;
}

// The C entry point nvcc-built programs call (translated ones use the header's template).
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    if (size == nullptr)
        return fail(cudaErrorInvalidValue);
    size_t bytes = 0;
    if (symbol == nullptr || (moccuda::runtime::device_symbol(symbol, &bytes), bytes == 0))
        return fail(cudaErrorInvalidSymbol);
    *size = bytes;
    return cudaSuccess;
}

}  // extern "C"
