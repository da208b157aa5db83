/* MocCUDA: texture and surface fetches in kernels compiled as host code, legacy texture
 * references (texture<T, dim, mode> with cudaBindTexture*), and cudaCreateChannelDesc<T>().
 *
 * Sampling follows CUDA's rules: unnormalized coordinates address texel centres at i + 0.5;
 * normalized ones are scaled by the size first; point filtering takes texel floor(u); linear
 * filtering blends the 2, 4 or 8 nearest texels with weights from u - 0.5.  Address modes act on
 * texel indices: clamp, border (the border colour), and, with normalized coordinates only (as in
 * CUDA; otherwise clamp), wrap and mirror.  tex1Dfetch on linear memory reads zero out of range.
 *
 * Difference from the GPU: the weights of linear filtering are exact floats, whereas the GPU
 * rounds them to 9-bit fixed point (8 fractional bits), so filtered values differ from a GPU's
 * in about the third decimal digit.  Layered, cubemap and mipmapped textures, gathers and legacy
 * surface references are not supported: their use is a located error naming the construct.
 */
#ifndef MOCCUDA_CUDA2CPU_TEXTURE_H
#define MOCCUDA_CUDA2CPU_TEXTURE_H
#ifdef __cplusplus

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"
#include "cuda2cpu_half_bits.h"

#define MOCCUDA_HD inline __host__ __device__

/* ---- channel descriptions of C++ types ---- */
template <class T>
inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc(void)
{
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define MOCCUDA_CHANNEL_DESC(T, BITS, KIND, N)                                                      \
    template <>                                                                                     \
    inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc<T>(void)                            \
    {                                                                                               \
        return cudaCreateChannelDesc(BITS, N > 1 ? BITS : 0, N > 2 ? BITS : 0, N > 3 ? BITS : 0, KIND); \
    }
#define MOCCUDA_CHANNEL_FAMILY(SCALAR, VEC, BITS, KIND)                                            \
    MOCCUDA_CHANNEL_DESC(SCALAR, BITS, KIND, 1)                                                     \
    MOCCUDA_CHANNEL_DESC(VEC##1, BITS, KIND, 1)                                                     \
    MOCCUDA_CHANNEL_DESC(VEC##2, BITS, KIND, 2)                                                     \
    MOCCUDA_CHANNEL_DESC(VEC##4, BITS, KIND, 4)
MOCCUDA_CHANNEL_FAMILY(signed char, char, 8, cudaChannelFormatKindSigned)
MOCCUDA_CHANNEL_FAMILY(unsigned char, uchar, 8, cudaChannelFormatKindUnsigned)
MOCCUDA_CHANNEL_FAMILY(short, short, 16, cudaChannelFormatKindSigned)
MOCCUDA_CHANNEL_FAMILY(unsigned short, ushort, 16, cudaChannelFormatKindUnsigned)
MOCCUDA_CHANNEL_FAMILY(int, int, 32, cudaChannelFormatKindSigned)
MOCCUDA_CHANNEL_FAMILY(unsigned int, uint, 32, cudaChannelFormatKindUnsigned)
MOCCUDA_CHANNEL_FAMILY(float, float, 32, cudaChannelFormatKindFloat)
/* char is signed on the platforms MocCUDA runs on, as CUDA assumes. */
MOCCUDA_CHANNEL_DESC(char, 8, cudaChannelFormatKindSigned, 1)
#undef MOCCUDA_CHANNEL_FAMILY
#undef MOCCUDA_CHANNEL_DESC

namespace moccuda {
namespace texture {

/* How a fetch samples: from a texture object's cudaTextureDesc or a texture reference. */
struct Sampler {
    cudaTextureAddressMode address[3];
    cudaTextureFilterMode filter;
    cudaTextureReadMode read;
    bool normalized;
    const float *border;
};

MOCCUDA_HD Sampler sampler_of(const cudaTextureDesc &d)
{
    return Sampler{{d.addressMode[0], d.addressMode[1], d.addressMode[2]}, d.filterMode, d.readMode,
                   d.normalizedCoords != 0, d.borderColor};
}

MOCCUDA_HD int channel_count(const cudaChannelFormatDesc &d) { return (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0); }

/* Component c of the texel at p as a float; integer components are mapped to [0, 1] (unsigned)
 * or [-1, 1] (signed) when `normalize`. */
MOCCUDA_HD float component(const unsigned char *p, int c, const cudaChannelFormatDesc &d, bool normalize)
{
    switch (d.f) {
    case cudaChannelFormatKindFloat:
        if (d.x == 16) {
            unsigned short bits;
            memcpy(&bits, p + 2 * c, 2);
            return moccuda::detail::half_bits_to_float(bits);
        } else {
            float v;
            memcpy(&v, p + 4 * c, 4);
            return v;
        }
    case cudaChannelFormatKindUnsigned:
        if (d.x == 8)
            return normalize ? p[c] / 255.0f : (float)p[c];
        if (d.x == 16) {
            unsigned short v;
            memcpy(&v, p + 2 * c, 2);
            return normalize ? v / 65535.0f : (float)v;
        } else {
            unsigned int v;
            memcpy(&v, p + 4 * c, 4);
            return (float)v;
        }
    default:
        if (d.x == 8) {
            float v = (float)(signed char)p[c];
            return normalize ? fmaxf(v / 127.0f, -1.0f) : v;
        }
        if (d.x == 16) {
            short v;
            memcpy(&v, p + 2 * c, 2);
            return normalize ? fmaxf(v / 32767.0f, -1.0f) : (float)v;
        } else {
            int v;
            memcpy(&v, p + 4 * c, 4);
            return (float)v;
        }
    }
}

/* Texel index i of a dimension of n texels under an address mode; -1 means the border. */
MOCCUDA_HD long address(long i, long n, cudaTextureAddressMode mode, bool normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (!normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror))
        mode = cudaAddressModeClamp;
    switch (mode) {
    case cudaAddressModeWrap: {
        long r = i % n;
        return r < 0 ? r + n : r;
    }
    case cudaAddressModeMirror: {
        long period = 2 * n, r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - 1 - r;
    }
    case cudaAddressModeBorder:
        return -1;
    default:
        return i < 0 ? 0 : n - 1;
    }
}

MOCCUDA_HD const unsigned char *texel_at(const moccuda_texels &t, long x, long y, long z)
{
    return t.data + (size_t)z * t.slice_pitch + (size_t)y * t.pitch + (size_t)x * t.element_size;
}

/* The texel at already addressed indices as four floats (absent components 0); the border colour
 * where an index is -1. */
MOCCUDA_HD void texel_floats(const moccuda_texels &t, const Sampler &s, long x, long y, long z, float out[4])
{
    if (x < 0 || y < 0 || z < 0) {
        for (int c = 0; c < 4; ++c)
            out[c] = s.border ? s.border[c] : 0.0f;
        return;
    }
    const unsigned char *p = texel_at(t, x, y, z);
    int n = channel_count(t.desc);
    bool normalize = s.read == cudaReadModeNormalizedFloat;
    for (int c = 0; c < 4; ++c)
        out[c] = c < n ? component(p, c, t.desc, normalize) : 0.0f;
}

/* Bilinear filtering of a 2D texture of one 32-bit float channel (an image of floats, the common
 * case) between the addressed texels low and high with weights frac: what the general loop in
 * sample() computes, in the same order of operations, without its per-texel dispatch on the
 * channel format (cuda-samples' convolutionTexture spent 90% of its time in that dispatch). */
MOCCUDA_HD void sample_linear_2d_float(const moccuda_texels &t, const Sampler &s, const long low[3], const long high[3],
                                       const float frac[3], float out[4])
{
    for (int c = 0; c < 4; ++c)
        out[c] = 0.0f;
    for (int corner = 0; corner < 4; ++corner) {
        bool right = corner & 1, down = (corner >> 1) & 1;
        long x = right ? high[0] : low[0], y = down ? high[1] : low[1];
        float weight = 1.0f;
        weight *= right ? frac[0] : 1.0f - frac[0];
        weight *= down ? frac[1] : 1.0f - frac[1];
        if (x < 0 || y < 0) {
            for (int c = 0; c < 4; ++c)
                out[c] += weight * (s.border ? s.border[c] : 0.0f);
            continue;
        }
        float v;
        memcpy(&v, t.data + (size_t)y * t.pitch + (size_t)x * sizeof(float), sizeof v);
        out[0] += weight * v;
        for (int c = 1; c < 4; ++c)
            out[c] += weight * 0.0f;
    }
}

MOCCUDA_HD bool one_float_channel(const cudaChannelFormatDesc &d)
{
    return d.f == cudaChannelFormatKindFloat && d.x == 32 && d.y == 0 && d.z == 0 && d.w == 0;
}

/* Samples `dims` dimensions at coordinates u (texel units or normalized) into four floats. */
MOCCUDA_HD void sample(const moccuda_texels &t, const Sampler &s, int dims, const float *coord, float out[4])
{
    long size[3] = {(long)t.width, (long)t.height, (long)t.depth};
    float u[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < dims; ++k)
        u[k] = s.normalized ? coord[k] * (float)size[k] : coord[k];
    if (s.filter == cudaFilterModePoint) {
        long index[3] = {0, 0, 0};
        for (int k = 0; k < dims; ++k)
            index[k] = address((long)floorf(u[k]), size[k], s.address[k], s.normalized);
        texel_floats(t, s, index[0], index[1], index[2], out);
        return;
    }
    long low[3] = {0, 0, 0}, high[3] = {0, 0, 0};
    float frac[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < dims; ++k) {
        float b = u[k] - 0.5f, f = floorf(b);
        frac[k] = b - f;
        low[k] = address((long)f, size[k], s.address[k], s.normalized);
        high[k] = address((long)f + 1, size[k], s.address[k], s.normalized);
    }
    if (dims == 2 && one_float_channel(t.desc)) {
        sample_linear_2d_float(t, s, low, high, frac, out);
        return;
    }
    for (int c = 0; c < 4; ++c)
        out[c] = 0.0f;
    for (int corner = 0; corner < (1 << dims); ++corner) {
        long index[3] = {0, 0, 0};
        float weight = 1.0f, texel[4];
        for (int k = 0; k < dims; ++k) {
            bool up = (corner >> k) & 1;
            index[k] = up ? high[k] : low[k];
            weight *= up ? frac[k] : 1.0f - frac[k];
        }
        texel_floats(t, s, index[0], index[1], index[2], texel);
        for (int c = 0; c < 4; ++c)
            out[c] += weight * texel[c];
    }
}

/* Four floats as the type a fetch returns. */
template <class T>
MOCCUDA_HD T from_floats(const float *v)
{
    return (T)v[0];
}
#define MOCCUDA_FROM_FLOATS(VEC, T)                                                                 \
    template <> MOCCUDA_HD VEC##1 from_floats<VEC##1>(const float *v) { return make_##VEC##1((T)v[0]); } \
    template <> MOCCUDA_HD VEC##2 from_floats<VEC##2>(const float *v) { return make_##VEC##2((T)v[0], (T)v[1]); } \
    template <> MOCCUDA_HD VEC##3 from_floats<VEC##3>(const float *v)                               \
    { return make_##VEC##3((T)v[0], (T)v[1], (T)v[2]); }                                            \
    template <> MOCCUDA_HD VEC##4 from_floats<VEC##4>(const float *v)                               \
    { return make_##VEC##4((T)v[0], (T)v[1], (T)v[2], (T)v[3]); }
MOCCUDA_FROM_FLOATS(char, signed char)
MOCCUDA_FROM_FLOATS(uchar, unsigned char)
MOCCUDA_FROM_FLOATS(short, short)
MOCCUDA_FROM_FLOATS(ushort, unsigned short)
MOCCUDA_FROM_FLOATS(int, int)
MOCCUDA_FROM_FLOATS(uint, unsigned int)
MOCCUDA_FROM_FLOATS(float, float)
#undef MOCCUDA_FROM_FLOATS

/* What a fetch through a texture reference returns: the element type, or floats of the same
 * width in cudaReadModeNormalizedFloat. */
template <class T, cudaTextureReadMode M>
struct result {
    typedef T type;
};
template <class T>
struct result<T, cudaReadModeNormalizedFloat> {
    typedef float type;
};
#define MOCCUDA_NORMALIZED_RESULT(VEC)                                                              \
    template <> struct result<VEC##1, cudaReadModeNormalizedFloat> { typedef float1 type; };        \
    template <> struct result<VEC##2, cudaReadModeNormalizedFloat> { typedef float2 type; };        \
    template <> struct result<VEC##4, cudaReadModeNormalizedFloat> { typedef float4 type; };
MOCCUDA_NORMALIZED_RESULT(char)
MOCCUDA_NORMALIZED_RESULT(uchar)
MOCCUDA_NORMALIZED_RESULT(short)
MOCCUDA_NORMALIZED_RESULT(ushort)
#undef MOCCUDA_NORMALIZED_RESULT

/* A fetch returning T.  Point sampling of the element type copies the texel's bytes (so integer
 * textures read exactly); the border colour and everything else go through floats. */
template <class T>
MOCCUDA_HD T fetch(const moccuda_texels &t, const Sampler &s, int dims, const float *coord)
{
    if (s.filter == cudaFilterModePoint && s.read == cudaReadModeElementType) {
        long size[3] = {(long)t.width, (long)t.height, (long)t.depth}, index[3] = {0, 0, 0};
        for (int k = 0; k < dims; ++k)
            index[k] = address((long)floorf(s.normalized ? coord[k] * (float)size[k] : coord[k]), size[k], s.address[k],
                               s.normalized);
        if (index[0] >= 0 && index[1] >= 0 && index[2] >= 0) {
            T value;
            memset(&value, 0, sizeof value);
            memcpy(&value, texel_at(t, index[0], index[1], index[2]), sizeof value < t.element_size ? sizeof value : t.element_size);
            return value;
        }
    }
    float v[4];
    sample(t, s, dims, coord, v);
    return from_floats<T>(v);
}

template <class T>
MOCCUDA_HD T load_texel(const unsigned char *p)
{
    T value;
    memcpy(&value, p, sizeof value);
    return value;
}
template <class T>
MOCCUDA_HD T zero_texel()
{
    T value;
    memset(&value, 0, sizeof value);
    return value;
}

/* tex1Dfetch in general: on linear memory an integer index, no filtering, zero out of range; on
 * anything else (CUDA leaves it undefined) an array read by index, point sampling at the texel
 * centre.  Out of line, so that the common case below stays small inside the kernel's loops, and
 * pure, so that a call of it does not stop gcc from hoisting the texture's fields out of them. */
template <class T>
MOCCUDA_HD __attribute__((noinline, pure)) T fetch_index_general(const moccuda_texture &t, Sampler s, int x)
{
    if (!t.linear) {
        float coord = (float)x + 0.5f;
        s.filter = cudaFilterModePoint;
        s.normalized = false;
        return fetch<T>(t.texels, s, 1, &coord);
    }
    if ((size_t)(long)x >= t.texels.width)  /* a negative x converts to a huge size */
        return zero_texel<T>();
    if (s.read == cudaReadModeElementType) {
        T value = zero_texel<T>();
        memcpy(&value, texel_at(t.texels, x, 0, 0), sizeof value < t.texels.element_size ? sizeof value : t.texels.element_size);
        return value;
    }
    float v[4];
    texel_floats(t.texels, s, x, 0, 0, v);
    return from_floats<T>(v);
}

/* tex1Dfetch: the common case (linear memory holding T, read as the element type) is one
 * unsigned compare and a load of constant size.  The fields are read before any branch so that
 * gcc hoists them out of the kernel's loops (a load only some paths make is not hoisted); a
 * variable-size memcpy here was a library call per fetch (kmeans_texture ran 25x slower). */
template <class T>
MOCCUDA_HD T fetch_index(const moccuda_texture &t, const Sampler &s, int x)
{
    const unsigned char *data = t.texels.data;
    size_t width = t.texels.width;
    bool common = (t.linear != 0) & (s.read == cudaReadModeElementType) & (t.texels.element_size == sizeof(T));
    if (__builtin_expect(!common, 0))
        return fetch_index_general<T>(t, s, x);
    return (size_t)(long)x < width ? load_texel<T>(data + (size_t)x * sizeof(T)) : zero_texel<T>();
}

MOCCUDA_HD const moccuda_texture &object(unsigned long long handle)
{
    return *reinterpret_cast<const moccuda_texture *>((size_t)handle);
}

/* A surface access at byte offset x_bytes: the texel index, or -1 when out of range and the
 * boundary mode is zero; trap stops the program, as the GPU's trap ends the kernel. */
MOCCUDA_HD long surface_index(long x_bytes, size_t element_size, long n, cudaSurfaceBoundaryMode mode, const char *what)
{
    long i = x_bytes / (long)element_size;
    if (i >= 0 && i < n)
        return i;
    if (mode == cudaBoundaryModeClamp)
        return i < 0 ? 0 : n - 1;
    if (mode == cudaBoundaryModeZero)
        return -1;
    fprintf(stderr, "MocCUDA: %s out of range (boundary mode cudaBoundaryModeTrap)\n", what);
    abort();
}

template <class T>
MOCCUDA_HD T surface_read(unsigned long long surface, long x_bytes, long y, long z, cudaSurfaceBoundaryMode mode)
{
    const moccuda_texels &t = object(surface).texels;
    long x = surface_index(x_bytes, t.element_size, (long)t.width, mode, "surface read");
    long yy = surface_index(y, 1, (long)t.height, mode, "surface read");
    long zz = surface_index(z, 1, (long)t.depth, mode, "surface read");
    T value;
    memset(&value, 0, sizeof value);
    if (x >= 0 && yy >= 0 && zz >= 0)
        memcpy(&value, texel_at(t, x, yy, zz), sizeof value);
    return value;
}

template <class T>
MOCCUDA_HD void surface_write(const T &value, unsigned long long surface, long x_bytes, long y, long z,
                              cudaSurfaceBoundaryMode mode)
{
    const moccuda_texels &t = object(surface).texels;
    long x = surface_index(x_bytes, t.element_size, (long)t.width, mode, "surface write");
    long yy = surface_index(y, 1, (long)t.height, mode, "surface write");
    long zz = surface_index(z, 1, (long)t.depth, mode, "surface write");
    if (x >= 0 && yy >= 0 && zz >= 0)
        memcpy(const_cast<unsigned char *>(texel_at(t, x, yy, zz)), &value, sizeof value);
}

/* Layer `layer` (clamped to the layers there are, as CUDA does) of a layered array's texels: one
 * slice, sampled as a 1D or 2D texture. */
MOCCUDA_HD moccuda_texels layer_of(const moccuda_texels &t, long layer)
{
    long layers = (long)t.depth;
    layer = layer < 0 ? 0 : (layer >= layers ? layers - 1 : layer);
    moccuda_texels slice = t;
    slice.data = t.data + (size_t)layer * t.slice_pitch;
    slice.depth = 1;
    return slice;
}

/* A cubemap fetch's face and the normalized coordinates on it of the direction (x, y, z), by
 * the major axis as CUDA's programming guide tabulates it (faces +x, -x, +y, -y, +z, -z). */
MOCCUDA_HD int cube_face(float x, float y, float z, float coord[2])
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
    int face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1;
        m = ax;
        s = x >= 0 ? -z : z;
        t = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3;
        m = ay;
        s = x;
        t = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5;
        m = az;
        s = z >= 0 ? x : -x;
        t = -y;
    }
    coord[0] = m > 0 ? (s / m + 1.0f) * 0.5f : 0.5f;
    coord[1] = m > 0 ? (t / m + 1.0f) * 0.5f : 0.5f;
    return face;
}

/* A fetch from face `face` of cube `cube` of a cubemap (layered) array: the face's coordinates
 * are normalized, and clamped at its edges. */
template <class T>
MOCCUDA_HD T fetch_cube(const moccuda_texture &t, long cube, float x, float y, float z)
{
    float coord[2];
    int face = cube_face(x, y, z, coord);
    Sampler s = sampler_of(t.sampling);
    s.normalized = true;
    s.address[0] = s.address[1] = cudaAddressModeClamp;
    return fetch<T>(layer_of(t.texels, cube * 6 + face), s, 2, coord);
}

}  // namespace texture
}  // namespace moccuda

/* ---- texture objects ---- */
/* Layered and cubemap textures: an array made with cudaArrayLayered (its depth counts the layers)
 * or cudaArrayCubemap (six faces, in the order +x, -x, +y, -y, +z, -z; with cudaArrayLayered too,
 * six per cube). */
template <class T>
MOCCUDA_HD T tex1DLayered(cudaTextureObject_t tex, float x, int layer)
{
    const moccuda_texture &t = moccuda::texture::object(tex);
    return moccuda::texture::fetch<T>(moccuda::texture::layer_of(t.texels, layer), moccuda::texture::sampler_of(t.sampling),
                                      1, &x);
}
template <class T>
MOCCUDA_HD void tex1DLayered(T *value, cudaTextureObject_t tex, float x, int layer)
{
    *value = tex1DLayered<T>(tex, x, layer);
}
template <class T>
MOCCUDA_HD T tex2DLayered(cudaTextureObject_t tex, float x, float y, int layer)
{
    const moccuda_texture &t = moccuda::texture::object(tex);
    float coord[2] = {x, y};
    return moccuda::texture::fetch<T>(moccuda::texture::layer_of(t.texels, layer), moccuda::texture::sampler_of(t.sampling),
                                      2, coord);
}
template <class T>
MOCCUDA_HD void tex2DLayered(T *value, cudaTextureObject_t tex, float x, float y, int layer)
{
    *value = tex2DLayered<T>(tex, x, y, layer);
}
template <class T>
MOCCUDA_HD T texCubemap(cudaTextureObject_t tex, float x, float y, float z)
{
    return moccuda::texture::fetch_cube<T>(moccuda::texture::object(tex), 0, x, y, z);
}
template <class T>
MOCCUDA_HD void texCubemap(T *value, cudaTextureObject_t tex, float x, float y, float z)
{
    *value = texCubemap<T>(tex, x, y, z);
}
template <class T>
MOCCUDA_HD T texCubemapLayered(cudaTextureObject_t tex, float x, float y, float z, int layer)
{
    return moccuda::texture::fetch_cube<T>(moccuda::texture::object(tex), layer, x, y, z);
}
template <class T>
MOCCUDA_HD void texCubemapLayered(T *value, cudaTextureObject_t tex, float x, float y, float z, int layer)
{
    *value = texCubemapLayered<T>(tex, x, y, z, layer);
}
template <class T>
MOCCUDA_HD T tex1Dfetch(cudaTextureObject_t tex, int x)
{
    const moccuda_texture &t = moccuda::texture::object(tex);
    return moccuda::texture::fetch_index<T>(t, moccuda::texture::sampler_of(t.sampling), x);
}
template <class T>
MOCCUDA_HD void tex1Dfetch(T *value, cudaTextureObject_t tex, int x) { *value = tex1Dfetch<T>(tex, x); }
template <class T>
MOCCUDA_HD T tex1D(cudaTextureObject_t tex, float x)
{
    const moccuda_texture &t = moccuda::texture::object(tex);
    return moccuda::texture::fetch<T>(t.texels, moccuda::texture::sampler_of(t.sampling), 1, &x);
}
template <class T>
MOCCUDA_HD void tex1D(T *value, cudaTextureObject_t tex, float x) { *value = tex1D<T>(tex, x); }
template <class T>
MOCCUDA_HD T tex2D(cudaTextureObject_t tex, float x, float y)
{
    const moccuda_texture &t = moccuda::texture::object(tex);
    float coord[2] = {x, y};
    return moccuda::texture::fetch<T>(t.texels, moccuda::texture::sampler_of(t.sampling), 2, coord);
}
template <class T>
MOCCUDA_HD void tex2D(T *value, cudaTextureObject_t tex, float x, float y) { *value = tex2D<T>(tex, x, y); }
template <class T>
MOCCUDA_HD T tex3D(cudaTextureObject_t tex, float x, float y, float z)
{
    const moccuda_texture &t = moccuda::texture::object(tex);
    float coord[3] = {x, y, z};
    return moccuda::texture::fetch<T>(t.texels, moccuda::texture::sampler_of(t.sampling), 3, coord);
}
template <class T>
MOCCUDA_HD void tex3D(T *value, cudaTextureObject_t tex, float x, float y, float z) { *value = tex3D<T>(tex, x, y, z); }

/* ---- surface objects: x in bytes ---- */
template <class T>
MOCCUDA_HD T surf1Dread(cudaSurfaceObject_t surf, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    return moccuda::texture::surface_read<T>(surf, x, 0, 0, mode);
}
template <class T>
MOCCUDA_HD void surf1Dread(T *value, cudaSurfaceObject_t surf, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    *value = surf1Dread<T>(surf, x, mode);
}
template <class T>
MOCCUDA_HD void surf1Dwrite(T value, cudaSurfaceObject_t surf, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    moccuda::texture::surface_write(value, surf, x, 0, 0, mode);
}
template <class T>
MOCCUDA_HD T surf2Dread(cudaSurfaceObject_t surf, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    return moccuda::texture::surface_read<T>(surf, x, y, 0, mode);
}
template <class T>
MOCCUDA_HD void surf2Dread(T *value, cudaSurfaceObject_t surf, int x, int y,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    *value = surf2Dread<T>(surf, x, y, mode);
}
template <class T>
MOCCUDA_HD void surf2Dwrite(T value, cudaSurfaceObject_t surf, int x, int y,
                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    moccuda::texture::surface_write(value, surf, x, y, 0, mode);
}
template <class T>
MOCCUDA_HD T surf3Dread(cudaSurfaceObject_t surf, int x, int y, int z, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    return moccuda::texture::surface_read<T>(surf, x, y, z, mode);
}
template <class T>
MOCCUDA_HD void surf3Dread(T *value, cudaSurfaceObject_t surf, int x, int y, int z,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    *value = surf3Dread<T>(surf, x, y, z, mode);
}
template <class T>
MOCCUDA_HD void surf3Dwrite(T value, cudaSurfaceObject_t surf, int x, int y, int z,
                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    moccuda::texture::surface_write(value, surf, x, y, z, mode);
}

/* ---- legacy texture references (CUDA 11 and older) ----
 * A global `texture<T, dim, mode> tex;` holds its sampling state (the textureReference fields the
 * program sets: normalized, filterMode, addressMode, channelDesc) and what cudaBindTexture* bound
 * to it (textureReference::binding).  The C functions take &tex (as Rodinia's kmeans calls them);
 * these overloads take tex itself. */
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : public textureReference {
    __host__ texture(int norm = 0, enum cudaTextureFilterMode filter = cudaFilterModePoint,
                     enum cudaTextureAddressMode address = cudaAddressModeClamp)
        : texture(norm, filter, address, cudaCreateChannelDesc<T>())
    {
    }
    __host__ texture(int norm, enum cudaTextureFilterMode filter, enum cudaTextureAddressMode address,
                     struct cudaChannelFormatDesc desc)
        : textureReference()
    {
        normalized = norm;
        filterMode = filter;
        addressMode[0] = addressMode[1] = addressMode[2] = address;
        channelDesc = desc;
    }

    __host__ __device__ moccuda::texture::Sampler sampler() const
    {
        return moccuda::texture::Sampler{{addressMode[0], addressMode[1], addressMode[2]}, filterMode, mode,
                                         normalized != 0, 0};
    }
};

template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaBindTexture(size_t *offset, const texture<T, dim, M> &tex, const void *ptr,
                                            const struct cudaChannelFormatDesc &desc, size_t size = ~(size_t)0 >> 1)
{
    return cudaBindTexture(offset, &tex, ptr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaBindTexture(size_t *offset, const texture<T, dim, M> &tex, const void *ptr,
                                            size_t size = ~(size_t)0 >> 1)
{
    return cudaBindTexture(offset, &tex, ptr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, dim, M> &tex, const void *ptr,
                                              const struct cudaChannelFormatDesc &desc, size_t width, size_t height,
                                              size_t pitch)
{
    return cudaBindTexture2D(offset, &tex, ptr, &desc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, dim, M> &tex, const void *ptr,
                                              size_t width, size_t height, size_t pitch)
{
    return cudaBindTexture2D(offset, &tex, ptr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaBindTextureToArray(const texture<T, dim, M> &tex, cudaArray_const_t array)
{
    return cudaBindTextureToArray(&tex, array, &tex.channelDesc);
}
template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaBindTextureToArray(const texture<T, dim, M> &tex, cudaArray_const_t array,
                                                   const struct cudaChannelFormatDesc &desc)
{
    return cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode M>
inline __host__ cudaError_t cudaUnbindTexture(const texture<T, dim, M> &tex)
{
    return cudaUnbindTexture(&tex);
}
/* CUDA 4 also named the reference by a string. */
template <size_t N>
inline __host__ cudaError_t cudaGetTextureReference(const struct textureReference **texture, const char (&name)[N])
{
    const void *symbol = moccuda_symbol_by_name(name);
    return symbol != 0 ? cudaGetTextureReference(texture, symbol) : moccuda_set_error(cudaErrorInvalidTexture);
}

template <class T, enum cudaTextureReadMode M>
MOCCUDA_HD typename moccuda::texture::result<T, M>::type tex1Dfetch(const texture<T, 1, M> &tex, int x)
{
    typedef typename moccuda::texture::result<T, M>::type R;
    return moccuda::texture::fetch_index<R>(tex.binding, tex.sampler(), x);
}
namespace moccuda {
namespace texture {
/* The texels [first, first + count) of a 1D texture reference as one array, or null.  Not null
 * only where tex1Dfetch(tex, first + i) would read texel first + i for every i < count: linear
 * memory read as its element type, 0 <= first, first + count <= the width, and no index past
 * INT_MAX (the int tex1Dfetch takes).  cuda2cpu's texture-span pass tests it once before a
 * thread loop whose fetches are first + threadIdx.x, and then reads span[threadIdx.x], a load
 * that vectorizes, where tex1Dfetch's range check made one scalar load per thread. */
template <class T, enum cudaTextureReadMode M>
MOCCUDA_HD const typename result<T, M>::type *linear_span(const ::texture<T, 1, M> &tex, int first, unsigned count)
{
    typedef typename result<T, M>::type R;
    const moccuda_texture &t = tex.binding;
    const Sampler s = tex.sampler();
    if (!t.linear || s.read != cudaReadModeElementType || t.texels.element_size != sizeof(R))
        return nullptr;
    if (first < 0 || count == 0 || (long long)first + (long long)count - 1 > (long long)INT_MAX
        || (unsigned long long)first + count > (unsigned long long)t.texels.width)
        return nullptr;
    const unsigned char *at = t.texels.data + (size_t)first * sizeof(R);
    if ((size_t)at % alignof(R) != 0)
        return nullptr;
    return reinterpret_cast<const R *>(at);
}
}  // namespace texture
}  // namespace moccuda
template <class T, enum cudaTextureReadMode M>
MOCCUDA_HD typename moccuda::texture::result<T, M>::type tex1D(const texture<T, 1, M> &tex, float x)
{
    return moccuda::texture::fetch<typename moccuda::texture::result<T, M>::type>(tex.binding.texels, tex.sampler(), 1, &x);
}
template <class T, enum cudaTextureReadMode M>
MOCCUDA_HD typename moccuda::texture::result<T, M>::type tex2D(const texture<T, 2, M> &tex, float x, float y)
{
    float coord[2] = {x, y};
    return moccuda::texture::fetch<typename moccuda::texture::result<T, M>::type>(tex.binding.texels, tex.sampler(), 2, coord);
}
template <class T, enum cudaTextureReadMode M>
MOCCUDA_HD typename moccuda::texture::result<T, M>::type tex3D(const texture<T, 3, M> &tex, float x, float y, float z)
{
    float coord[3] = {x, y, z};
    return moccuda::texture::fetch<typename moccuda::texture::result<T, M>::type>(tex.binding.texels, tex.sampler(), 3, coord);
}

/* ---- out of reach: a use is a located error with this message (parse mode) ---- */
#ifdef __CUDA2CPU_PARSE__
#define MOCCUDA_UNSUPPORTED_FETCH(NAME, WHAT)                                                       \
    template <class T, class... A>                                                                  \
    __device__ T NAME(A...) __attribute__((unavailable(WHAT " are not supported by cuda2cpu")));    \
    template <class T, class... A>                                                                  \
    __device__ void NAME(T *, A...) __attribute__((unavailable(WHAT " are not supported by cuda2cpu")));
MOCCUDA_UNSUPPORTED_FETCH(tex2Dgather, "texture gathers (tex2Dgather)")
MOCCUDA_UNSUPPORTED_FETCH(tex1DLod, "mipmapped textures (tex1DLod)")
MOCCUDA_UNSUPPORTED_FETCH(tex2DLod, "mipmapped textures (tex2DLod)")
MOCCUDA_UNSUPPORTED_FETCH(tex3DLod, "mipmapped textures (tex3DLod)")
MOCCUDA_UNSUPPORTED_FETCH(tex1DGrad, "mipmapped textures (tex1DGrad)")
MOCCUDA_UNSUPPORTED_FETCH(tex2DGrad, "mipmapped textures (tex2DGrad)")
MOCCUDA_UNSUPPORTED_FETCH(tex3DGrad, "mipmapped textures (tex3DGrad)")
MOCCUDA_UNSUPPORTED_FETCH(surf1DLayeredread, "layered surfaces (surf1DLayeredread)")
MOCCUDA_UNSUPPORTED_FETCH(surf2DLayeredread, "layered surfaces (surf2DLayeredread)")
MOCCUDA_UNSUPPORTED_FETCH(surf1DLayeredwrite, "layered surfaces (surf1DLayeredwrite)")
MOCCUDA_UNSUPPORTED_FETCH(surf2DLayeredwrite, "layered surfaces (surf2DLayeredwrite)")
MOCCUDA_UNSUPPORTED_FETCH(surfCubemapread, "cubemap surfaces (surfCubemapread)")
MOCCUDA_UNSUPPORTED_FETCH(surfCubemapwrite, "cubemap surfaces (surfCubemapwrite)")
#undef MOCCUDA_UNSUPPORTED_FETCH
/* Legacy surface references (surface<void, 2> s; cudaBindSurfaceToArray): use surface objects. */
template <class T, int dim = 1>
struct __attribute__((unavailable("legacy surface references (surface<T, dim>) are not supported by cuda2cpu; "
                                  "use surface objects (cudaCreateSurfaceObject)"))) surface {
};
cudaError_t cudaBindSurfaceToArray(...) __attribute__((unavailable(
    "legacy surface references (cudaBindSurfaceToArray) are not supported by cuda2cpu; use surface objects")));
#endif

#undef MOCCUDA_HD
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_TEXTURE_H */
