/* MocCUDA: CUDA arrays, 3-D copies, textures and surfaces: the types (CUDA's texture_types.h,
 * surface_types.h and the array and extent parts of driver_types.h), field for field as CUDA 13
 * names them.
 *
 * A cudaArray is host memory holding rows of texels; a texture or surface object is a pointer to
 * a moccuda_texture (below), which the fetch functions in cuda2cpu_texture.h read inline.
 */
#ifndef MOCCUDA_TEXTURE_TYPES_H
#define MOCCUDA_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__  /* CUDA's own include guard, which programs test */

#include <stddef.h>

#include "host_defines.h"

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};

/* Bits per component (x, y, z, w; 0 for an absent component) and how they are read. */
struct cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};

typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

/* Flags of cudaMallocArray / cudaMalloc3DArray (accepted; every array allows every use here). */
#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

/* Sizes and positions of 3-D copies: in elements where an array is involved, else width and x in
 * bytes. */
struct cudaExtent {
    size_t width, height, depth;
};
struct cudaPos {
    size_t x, y, z;
};
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch, xsize, ysize;
};
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};

static inline __host__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e = {w, h, d};
    return e;
}
static inline __host__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p = {x, y, z};
    return p;
}
static inline __host__ struct cudaPitchedPtr make_cudaPitchedPtr(void *ptr, size_t pitch, size_t xsize, size_t ysize)
{
    struct cudaPitchedPtr p = {ptr, pitch, xsize, ysize};
    return p;
}

enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
    } res;
    unsigned int flags;
};

/* Accepted and must be NULL: views of a resource in another format are not supported. */
struct cudaResourceViewDesc;

enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

/* ---- MocCUDA's representation ---- */

/* Texels in rows: texel (x, y, z) of `element_size` bytes is at
 * data + z * slice_pitch + y * pitch + x * element_size. */
struct moccuda_texels {
    unsigned char *data;
    size_t element_size, pitch, slice_pitch;
    size_t width, height, depth; /* height and depth are 1 for fewer dimensions */
    struct cudaChannelFormatDesc desc;
};

/* What a texture object or a bound texture reference reads and how.  `linear` marks a
 * cudaResourceTypeLinear resource (tex1Dfetch: an out-of-range index reads zero). */
struct moccuda_texture {
    struct moccuda_texels texels;
    struct cudaTextureDesc sampling;
    int linear;
};

/* A legacy texture reference (the base of texture<T, dim, mode>): its sampling state as CUDA
 * names it, then what cudaBindTexture* bound to it (MocCUDA's; CUDA 12 removed texture references,
 * so no binary layout constrains this one). */
struct textureReference {
    int normalized;
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureAddressMode addressMode[3];
    struct cudaChannelFormatDesc channelDesc;
    int sRGB;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    struct moccuda_texture binding;
};

/* What cudaMallocArray and cudaMalloc3DArray return. */
struct cudaArray {
    struct moccuda_texels texels;
    unsigned int flags;
};

#endif /* MOCCUDA_TEXTURE_TYPES_H */
