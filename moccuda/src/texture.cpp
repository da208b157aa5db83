// MocCUDA runtime: pitched 3-D memory, CUDA arrays, texture and surface objects, and legacy
// texture references.
//
// An array is a dense block of host memory (rows of texels, then slices); a texture object is a
// heap-allocated moccuda_texture whose address is the handle.  Sampling happens inline in the
// kernels (cuda2cpu_texture.h); this file only creates, copies and checks.

#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <set>

#include "internal.h"

using moccuda::runtime::fail;

namespace {

std::mutex registry_mutex;
std::set<const void *> live_arrays, live_textures;  // handles handed out and not yet destroyed

bool is_live(const std::set<const void *> &set, const void *handle)
{
    std::lock_guard<std::mutex> lock(registry_mutex);
    return set.count(handle) != 0;
}

// Bytes per texel of a channel format, or 0 when the format is invalid (components of 8, 16 or
// 32 bits, present from x on without gaps, all of one size; 16-bit floats are halves).
size_t element_size(const cudaChannelFormatDesc &desc)
{
    const int bits[4] = {desc.x, desc.y, desc.z, desc.w};
    if (desc.f != cudaChannelFormatKindSigned && desc.f != cudaChannelFormatKindUnsigned &&
        desc.f != cudaChannelFormatKindFloat)
        return 0;
    size_t total = 0;
    for (int c = 0; c < 4; ++c) {
        if (bits[c] == 0) {
            for (int later = c + 1; later < 4; ++later)
                if (bits[later] != 0)
                    return 0;
            break;
        }
        if ((bits[c] != 8 && bits[c] != 16 && bits[c] != 32) || bits[c] != bits[0])
            return 0;
        if (desc.f == cudaChannelFormatKindFloat && bits[c] == 8)
            return 0;
        total += static_cast<size_t>(bits[c]) / 8;
    }
    return total;
}

bool valid_kind(cudaMemcpyKind kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

// One side of a 2-D or 3-D copy: where row (y, z) starts and how rows and slices are spaced.
struct Side {
    unsigned char *base;
    size_t pitch, slice_pitch;
    unsigned char *row(size_t y, size_t z) const { return base + z * slice_pitch + y * pitch; }
};

cudaError_t copy_rows(Side dst, Side src, size_t width_bytes, size_t height, size_t depth)
{
    moccuda::runtime::wait_for_stream(nullptr);  // the legacy default stream's order
    for (size_t z = 0; z < depth; ++z)
        for (size_t y = 0; y < height; ++y)
            memmove(dst.row(y, z), src.row(y, z), width_bytes);
    return cudaSuccess;
}

Side array_side(const cudaArray *array, size_t x_bytes, size_t y, size_t z)
{
    const moccuda_texels &t = array->texels;
    return Side{t.data + z * t.slice_pitch + y * t.pitch + x_bytes, t.pitch, t.slice_pitch};
}

// Whether a region of `width_bytes` x `height` x `depth` starting at (x_bytes, y, z) lies inside
// the array.
bool inside(const cudaArray *array, size_t x_bytes, size_t y, size_t z, size_t width_bytes, size_t height,
            size_t depth)
{
    const moccuda_texels &t = array->texels;
    size_t row_bytes = t.width * t.element_size;
    return x_bytes <= row_bytes && width_bytes <= row_bytes - x_bytes && y <= t.height && height <= t.height - y &&
           z <= t.depth && depth <= t.depth - z;
}

cudaError_t make_texels(const cudaResourceDesc *resource, moccuda_texels *texels, int *linear)
{
    *linear = 0;
    switch (resource->resType) {
    case cudaResourceTypeArray: {
        const cudaArray *array = resource->res.array.array;
        if (!is_live(live_arrays, array))
            return cudaErrorInvalidResourceHandle;
        *texels = array->texels;
        return cudaSuccess;
    }
    case cudaResourceTypeLinear: {
        size_t size = element_size(resource->res.linear.desc);
        if (size == 0 || resource->res.linear.devPtr == nullptr)
            return cudaErrorInvalidValue;
        size_t width = resource->res.linear.sizeInBytes / size;
        *texels = moccuda_texels{static_cast<unsigned char *>(resource->res.linear.devPtr), size, width * size,
                                 width * size, width, 1, 1, resource->res.linear.desc};
        *linear = 1;
        return cudaSuccess;
    }
    case cudaResourceTypePitch2D: {
        const auto &p = resource->res.pitch2D;
        size_t size = element_size(p.desc);
        if (size == 0 || p.devPtr == nullptr || p.width * size > p.pitchInBytes)
            return cudaErrorInvalidValue;
        *texels = moccuda_texels{static_cast<unsigned char *>(p.devPtr), size, p.pitchInBytes,
                                 p.pitchInBytes * p.height, p.width, p.height, 1, p.desc};
        return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray:
        break;
    }
    return cudaErrorNotSupported;  // mipmapped arrays are not supported
}

}  // namespace

extern "C" {

// ---- pitched 3-D memory ----

cudaError_t cudaMalloc3D(cudaPitchedPtr *pitched, cudaExtent extent)
{
    if (pitched == nullptr)
        return fail(cudaErrorInvalidValue);
    size_t rows = extent.height * extent.depth;
    if (extent.depth != 0 && rows / extent.depth != extent.height)
        return fail(cudaErrorMemoryAllocation);
    void *ptr = nullptr;
    size_t pitch = 0;
    cudaError_t status = cudaMallocPitch(&ptr, &pitch, extent.width, rows);
    if (status != cudaSuccess)
        return status;
    *pitched = make_cudaPitchedPtr(ptr, pitch, extent.width, extent.height);
    return cudaSuccess;
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent)
{
    if (extent.width > pitched.pitch)
        return fail(cudaErrorInvalidValue);
    for (size_t z = 0; z < extent.depth; ++z) {
        cudaError_t status = cudaMemset2D(static_cast<char *>(pitched.ptr) + z * pitched.pitch * pitched.ysize,
                                          pitched.pitch, value, extent.width, extent.height);
        if (status != cudaSuccess)
            return status;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p)
{
    if (p == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!valid_kind(p->kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if ((p->srcArray != nullptr) == (p->srcPtr.ptr != nullptr) || (p->dstArray != nullptr) == (p->dstPtr.ptr != nullptr))
        return fail(cudaErrorInvalidValue);  // each side is exactly one of an array and a pointer
    for (const cudaArray *array : {p->srcArray, p->dstArray})
        if (array != nullptr && !is_live(live_arrays, array))
            return fail(cudaErrorInvalidResourceHandle);
    // With an array on either side, widths and x positions count elements; otherwise bytes.
    size_t element = p->srcArray ? p->srcArray->texels.element_size
                                 : (p->dstArray ? p->dstArray->texels.element_size : 1);
    if (p->srcArray && p->dstArray && p->srcArray->texels.element_size != p->dstArray->texels.element_size)
        return fail(cudaErrorInvalidValue);
    size_t width = p->extent.width * element, height = p->extent.height, depth = p->extent.depth;
    if (width == 0 || height == 0 || depth == 0)
        return cudaSuccess;
    Side sides[2];
    const cudaArray *arrays[2] = {p->srcArray, p->dstArray};
    const cudaPitchedPtr *ptrs[2] = {&p->srcPtr, &p->dstPtr};
    const cudaPos *positions[2] = {&p->srcPos, &p->dstPos};
    for (int s = 0; s < 2; ++s) {
        const cudaPos &pos = *positions[s];
        if (arrays[s] != nullptr) {
            if (!inside(arrays[s], pos.x * element, pos.y, pos.z, width, height, depth))
                return fail(cudaErrorInvalidValue);
            sides[s] = array_side(arrays[s], pos.x * element, pos.y, pos.z);
        } else {
            const cudaPitchedPtr &ptr = *ptrs[s];
            if (pos.x + width > ptr.pitch)
                return fail(cudaErrorInvalidPitchValue);
            size_t slice = ptr.pitch * ptr.ysize;
            unsigned char *base = static_cast<unsigned char *>(ptr.ptr) + pos.z * slice + pos.y * ptr.pitch + pos.x * element;
            sides[s] = Side{base, ptr.pitch, slice};
        }
    }
    return copy_rows(sides[1], sides[0], width, height, depth);
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *parms, cudaStream_t stream)
{
    if (parms != nullptr && moccuda::runtime::capturing(stream)) {  // cudaMemcpy3D waits for no stream
        cudaMemcpy3DParms copy = *parms;
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemcpy, [copy] { cudaMemcpy3D(&copy); });
    }
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemcpy3D(parms);
}

// ---- arrays ----

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f)
{
    return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent,
                              unsigned int flags)
{
    if (array == nullptr || desc == nullptr || extent.width == 0)
        return fail(cudaErrorInvalidValue);
    // A layered array's depth counts its layers; a cubemap's six square faces (six per cube when
    // layered too) are its slices.
    if ((flags & cudaArrayLayered) && extent.depth == 0)
        return fail(cudaErrorInvalidValue);
    if ((flags & cudaArrayCubemap) &&
        (extent.width != extent.height || extent.depth == 0 || extent.depth % 6 != 0 ||
         (!(flags & cudaArrayLayered) && extent.depth != 6)))
        return fail(cudaErrorInvalidValue);
    size_t size = element_size(*desc);
    if (size == 0)
        return fail(cudaErrorInvalidChannelDescriptor);
    size_t height = extent.height ? extent.height : 1, depth = extent.depth ? extent.depth : 1;
    size_t pitch = extent.width * size, slice = pitch * height;
    if (pitch / size != extent.width || slice / height != pitch || (slice * depth) / depth != slice)
        return fail(cudaErrorMemoryAllocation);
    void *data = nullptr;
    cudaError_t status = cudaMalloc(&data, slice * depth);
    if (status != cudaSuccess)
        return status;
    cudaArray *made = new (std::nothrow) cudaArray{
        moccuda_texels{static_cast<unsigned char *>(data), size, pitch, slice, extent.width, height, depth, *desc}, flags};
    if (made == nullptr) {
        cudaFree(data);
        return fail(cudaErrorMemoryAllocation);
    }
    std::lock_guard<std::mutex> lock(registry_mutex);
    live_arrays.insert(made);
    *array = made;
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags)
{
    return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (array == nullptr)
        return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (live_arrays.erase(array) == 0)
            return fail(cudaErrorInvalidValue);
    }
    cudaFree(array->texels.data);
    delete array;
    return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags, cudaArray_t array)
{
    if (!is_live(live_arrays, array))
        return fail(cudaErrorInvalidResourceHandle);
    const moccuda_texels &t = array->texels;
    if (desc != nullptr)
        *desc = t.desc;
    if (extent != nullptr)  // CUDA reports 0 for the dimensions an array lacks
        *extent = make_cudaExtent(t.width, t.depth > 1 || t.height > 1 ? t.height : 0, t.depth > 1 ? t.depth : 0);
    if (flags != nullptr)
        *flags = array->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    if (desc == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!is_live(live_arrays, array))
        return fail(cudaErrorInvalidResourceHandle);
    *desc = array->texels.desc;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t src_pitch,
                                size_t width, size_t height, cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (!is_live(live_arrays, dst))
        return fail(cudaErrorInvalidResourceHandle);
    if (width > src_pitch)
        return fail(cudaErrorInvalidPitchValue);
    if (src == nullptr || !inside(dst, w_offset, h_offset, 0, width, height, 1))
        return fail(cudaErrorInvalidValue);
    Side from{static_cast<unsigned char *>(const_cast<void *>(src)), src_pitch, 0};
    return copy_rows(array_side(dst, w_offset, h_offset, 0), from, width, height, 1);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
                                     size_t src_pitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    if (moccuda::runtime::capturing(stream))
        return moccuda::runtime::capture(stream, cudaGraphNodeTypeMemcpy, [=] {
            cudaMemcpy2DToArray(dst, w_offset, h_offset, src, src_pitch, width, height, kind);
        });
    if (moccuda::runtime::wait_for_stream(stream) != cudaSuccess)  // runs now, in the stream's order
        return cudaErrorInvalidResourceHandle;
    return cudaMemcpy2DToArray(dst, w_offset, h_offset, src, src_pitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dst_pitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (!is_live(live_arrays, src))
        return fail(cudaErrorInvalidResourceHandle);
    if (width > dst_pitch)
        return fail(cudaErrorInvalidPitchValue);
    if (dst == nullptr || !inside(src, w_offset, h_offset, 0, width, height, 1))
        return fail(cudaErrorInvalidValue);
    Side to{static_cast<unsigned char *>(dst), dst_pitch, 0};
    return copy_rows(to, array_side(src, w_offset, h_offset, 0), width, height, 1);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t w_offset_dst, size_t h_offset_dst, cudaArray_const_t src,
                                     size_t w_offset_src, size_t h_offset_src, size_t width, size_t height,
                                     cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (!is_live(live_arrays, dst) || !is_live(live_arrays, src))
        return fail(cudaErrorInvalidResourceHandle);
    if (!inside(dst, w_offset_dst, h_offset_dst, 0, width, height, 1) ||
        !inside(src, w_offset_src, h_offset_src, 0, width, height, 1))
        return fail(cudaErrorInvalidValue);
    return copy_rows(array_side(dst, w_offset_dst, h_offset_dst, 0), array_side(src, w_offset_src, h_offset_src, 0),
                     width, height, 1);
}

// The deprecated linear forms: `count` bytes from (w_offset bytes, h_offset rows) on, rows being
// contiguous in an array.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t count,
                              cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (!is_live(live_arrays, dst))
        return fail(cudaErrorInvalidResourceHandle);
    const moccuda_texels &t = dst->texels;
    size_t start = h_offset * t.pitch + w_offset, total = t.pitch * t.height * t.depth;
    if (src == nullptr || w_offset > t.pitch || start > total || count > total - start)
        return fail(cudaErrorInvalidValue);
    moccuda::runtime::wait_for_stream(nullptr);
    memmove(t.data + start, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (!is_live(live_arrays, src))
        return fail(cudaErrorInvalidResourceHandle);
    const moccuda_texels &t = src->texels;
    size_t start = h_offset * t.pitch + w_offset, total = t.pitch * t.height * t.depth;
    if (dst == nullptr || w_offset > t.pitch || start > total || count > total - start)
        return fail(cudaErrorInvalidValue);
    moccuda::runtime::wait_for_stream(nullptr);
    memmove(dst, t.data + start, count);
    return cudaSuccess;
}

// `count` bytes between arrays, each from (w_offset bytes, h_offset rows) on.
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t w_offset_dst, size_t h_offset_dst, cudaArray_const_t src,
                                   size_t w_offset_src, size_t h_offset_src, size_t count, cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection);
    if (!is_live(live_arrays, dst) || !is_live(live_arrays, src))
        return fail(cudaErrorInvalidResourceHandle);
    const moccuda_texels &d = dst->texels, &s = src->texels;
    size_t to = h_offset_dst * d.pitch + w_offset_dst, from = h_offset_src * s.pitch + w_offset_src;
    size_t d_total = d.pitch * d.height * d.depth, s_total = s.pitch * s.height * s.depth;
    if (to > d_total || count > d_total - to || from > s_total || count > s_total - from)
        return fail(cudaErrorInvalidValue);
    moccuda::runtime::wait_for_stream(nullptr);
    memmove(d.data + to, s.data + from, count);
    return cudaSuccess;
}

// ---- texture and surface objects ----

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texture, const cudaResourceDesc *resource,
                                    const cudaTextureDesc *sampling, const cudaResourceViewDesc *view)
{
    if (texture == nullptr || resource == nullptr || sampling == nullptr)
        return fail(cudaErrorInvalidValue);
    if (view != nullptr)
        return fail(cudaErrorNotSupported);  // resource views are not supported
    moccuda_texture made{};
    cudaError_t status = make_texels(resource, &made.texels, &made.linear);
    if (status != cudaSuccess)
        return fail(status);
    made.sampling = *sampling;
    if (made.sampling.filterMode == cudaFilterModeLinear && made.texels.desc.f != cudaChannelFormatKindFloat &&
        made.sampling.readMode != cudaReadModeNormalizedFloat)
        return fail(cudaErrorInvalidValue);  // CUDA filters only values read as floating point
    moccuda_texture *object = new (std::nothrow) moccuda_texture(made);
    if (object == nullptr)
        return fail(cudaErrorMemoryAllocation);
    std::lock_guard<std::mutex> lock(registry_mutex);
    live_textures.insert(object);
    *texture = reinterpret_cast<uintptr_t>(object);
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture)
{
    moccuda_texture *object = reinterpret_cast<moccuda_texture *>(static_cast<uintptr_t>(texture));
    if (object == nullptr)
        return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (live_textures.erase(object) == 0)
            return fail(cudaErrorInvalidValue);
    }
    delete object;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *sampling, cudaTextureObject_t texture)
{
    const moccuda_texture *object = reinterpret_cast<const moccuda_texture *>(static_cast<uintptr_t>(texture));
    if (sampling == nullptr || !is_live(live_textures, object))
        return fail(cudaErrorInvalidValue);
    *sampling = object->sampling;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *resource, cudaTextureObject_t texture)
{
    const moccuda_texture *object = reinterpret_cast<const moccuda_texture *>(static_cast<uintptr_t>(texture));
    if (resource == nullptr || !is_live(live_textures, object))
        return fail(cudaErrorInvalidValue);
    const moccuda_texels &t = object->texels;
    *resource = cudaResourceDesc{};
    if (object->linear) {
        resource->resType = cudaResourceTypeLinear;
        resource->res.linear.devPtr = t.data;
        resource->res.linear.desc = t.desc;
        resource->res.linear.sizeInBytes = t.width * t.element_size;
    } else {
        resource->resType = cudaResourceTypePitch2D;
        resource->res.pitch2D.devPtr = t.data;
        resource->res.pitch2D.desc = t.desc;
        resource->res.pitch2D.width = t.width;
        resource->res.pitch2D.height = t.height;
        resource->res.pitch2D.pitchInBytes = t.pitch;
    }
    return cudaSuccess;
}

// A surface is a texture object read and written by byte offsets, without sampling.
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surface, const cudaResourceDesc *resource)
{
    if (surface == nullptr || resource == nullptr)
        return fail(cudaErrorInvalidValue);
    if (resource->resType != cudaResourceTypeArray)
        return fail(cudaErrorInvalidValue);  // CUDA: surfaces are made of arrays only
    cudaTextureDesc sampling{};
    sampling.addressMode[0] = sampling.addressMode[1] = sampling.addressMode[2] = cudaAddressModeClamp;
    cudaTextureObject_t object;
    cudaError_t status = cudaCreateTextureObject(&object, resource, &sampling, nullptr);
    if (status == cudaSuccess)
        *surface = object;
    return status;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surface) { return cudaDestroyTextureObject(surface); }

// ---- legacy texture references ----
// A reference's binding lives in the reference (textureReference::binding), which the program
// declares const (a global texture<...> is bound through const references), hence the casts.

cudaError_t cudaBindTexture2D(size_t *offset, const textureReference *texture, const void *ptr,
                              const cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch)
{
    if (texture == nullptr || desc == nullptr || ptr == nullptr)
        return fail(cudaErrorInvalidValue);
    size_t size = element_size(*desc);
    if (size == 0)
        return fail(cudaErrorInvalidChannelDescriptor);
    if (width * size > pitch)
        return fail(cudaErrorInvalidPitchValue);
    if (offset != nullptr)
        *offset = 0;  // any address can be bound here
    moccuda_texture &binding = const_cast<textureReference *>(texture)->binding;
    binding.texels = moccuda_texels{static_cast<unsigned char *>(const_cast<void *>(ptr)), size, pitch,
                                    pitch * height, width, height, 1, *desc};
    binding.linear = 0;
    return cudaSuccess;
}

// `size` in bytes; tex1Dfetch reads zero beyond it.
cudaError_t cudaBindTexture(size_t *offset, const textureReference *texture, const void *ptr,
                            const cudaChannelFormatDesc *desc, size_t size)
{
    if (desc == nullptr)
        return fail(cudaErrorInvalidValue);
    size_t element = element_size(*desc);
    if (element == 0)
        return fail(cudaErrorInvalidChannelDescriptor);
    size_t width = size / element;
    cudaError_t status = cudaBindTexture2D(offset, texture, ptr, desc, width, 1, width * element);
    if (status == cudaSuccess)
        const_cast<textureReference *>(texture)->binding.linear = 1;
    return status;
}

cudaError_t cudaBindTextureToArray(const textureReference *texture, cudaArray_const_t array,
                                   const cudaChannelFormatDesc *)
{
    if (texture == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!is_live(live_arrays, array))
        return fail(cudaErrorInvalidResourceHandle);
    moccuda_texture &binding = const_cast<textureReference *>(texture)->binding;
    binding.texels = array->texels;
    binding.linear = 0;
    return cudaSuccess;
}

cudaError_t cudaUnbindTexture(const textureReference *texture)
{
    if (texture == nullptr)
        return fail(cudaErrorInvalidValue);
    const_cast<textureReference *>(texture)->binding = moccuda_texture{};
    return cudaSuccess;
}

// A texture reference is an ordinary variable here, so the symbol is the reference.
cudaError_t cudaGetTextureReference(const textureReference **texture, const void *symbol)
{
    if (texture == nullptr || symbol == nullptr)
        return fail(cudaErrorInvalidValue);
    *texture = static_cast<const textureReference *>(symbol);
    return cudaSuccess;
}

cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const textureReference *texture)
{
    if (offset == nullptr || texture == nullptr)
        return fail(cudaErrorInvalidValue);
    *offset = 0;
    return cudaSuccess;
}

}  // extern "C"
