/* MocCUDA: cuda_gl_interop.h.  CUDA-OpenGL interoperability shares a GL buffer or texture with the
 * GPU; here there is no GPU to share it with.  The header declares what CUDA's declares (the
 * graphics-resource types and calls, and the deprecated buffer-object calls) so that programs
 * that include it without using it build (Rodinia's hybridsort), and every call fails with
 * cudaErrorNotSupported (also reported by cudaGetLastError), changing nothing, so that programs
 * that check it can fall back.  CUDA's header includes <GL/gl.h>; where the system has none, the
 * two GL types the declarations need are defined here. */
#ifndef MOCCUDA_CUDA_GL_INTEROP_H
#define MOCCUDA_CUDA_GL_INTEROP_H
#define __CUDA_GL_INTEROP_H__

#include "cuda_runtime_api.h"

#if defined(__has_include)
#if __has_include(<GL/gl.h>)
#include <GL/gl.h>
#define MOCCUDA_GL_TYPES_FROM_GL_H 1
#endif
#endif
#ifndef MOCCUDA_GL_TYPES_FROM_GL_H
typedef unsigned int GLuint;
typedef unsigned int GLenum;
#endif

#ifdef __cplusplus
#define MOCCUDA_GL_DEFAULT_STREAM = 0
#else
#define MOCCUDA_GL_DEFAULT_STREAM
#endif

struct cudaGraphicsResource;
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;

enum cudaGraphicsRegisterFlags {
    cudaGraphicsRegisterFlagsNone = 0,
    cudaGraphicsRegisterFlagsReadOnly = 1,
    cudaGraphicsRegisterFlagsWriteDiscard = 2,
    cudaGraphicsRegisterFlagsSurfaceLoadStore = 4,
    cudaGraphicsRegisterFlagsTextureGather = 8
};
enum cudaGraphicsMapFlags {
    cudaGraphicsMapFlagsNone = 0,
    cudaGraphicsMapFlagsReadOnly = 1,
    cudaGraphicsMapFlagsWriteDiscard = 2
};
enum cudaGLDeviceList {
    cudaGLDeviceListAll = 1,
    cudaGLDeviceListCurrentFrame = 2,
    cudaGLDeviceListNextFrame = 3
};
enum cudaGLMapFlags {
    cudaGLMapFlagsNone = 0,
    cudaGLMapFlagsReadOnly = 1,
    cudaGLMapFlagsWriteDiscard = 2
};

static inline cudaError_t moccuda_gl_interop_unsupported(void) { return moccuda_set_error(cudaErrorNotSupported); }

/* No device takes part in the GL context. */
static inline cudaError_t cudaGLGetDevices(unsigned int *count, int *devices, unsigned int max_devices,
                                           enum cudaGLDeviceList list)
{
    (void)devices, (void)max_devices, (void)list;
    if (count != 0)
        *count = 0;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsGLRegisterImage(cudaGraphicsResource_t *resource, GLuint image, GLenum target,
                                                      unsigned int flags)
{
    (void)resource, (void)image, (void)target, (void)flags;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsGLRegisterBuffer(cudaGraphicsResource_t *resource, GLuint buffer,
                                                       unsigned int flags)
{
    (void)resource, (void)buffer, (void)flags;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t resource)
{
    (void)resource;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t resource, unsigned int flags)
{
    (void)resource, (void)flags;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *resources,
                                                   cudaStream_t stream MOCCUDA_GL_DEFAULT_STREAM)
{
    (void)count, (void)resources, (void)stream;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *resources,
                                                     cudaStream_t stream MOCCUDA_GL_DEFAULT_STREAM)
{
    (void)count, (void)resources, (void)stream;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGraphicsResourceGetMappedPointer(void **pointer, size_t *size,
                                                               cudaGraphicsResource_t resource)
{
    (void)pointer, (void)size, (void)resource;
    return moccuda_gl_interop_unsupported();
}

/* Deprecated since CUDA 3.0, still in Rodinia-era code. */
static inline cudaError_t cudaGLSetGLDevice(int device)
{
    (void)device;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGLRegisterBufferObject(GLuint buffer)
{
    (void)buffer;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGLUnregisterBufferObject(GLuint buffer)
{
    (void)buffer;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGLMapBufferObject(void **pointer, GLuint buffer)
{
    (void)pointer, (void)buffer;
    return moccuda_gl_interop_unsupported();
}
static inline cudaError_t cudaGLUnmapBufferObject(GLuint buffer)
{
    (void)buffer;
    return moccuda_gl_interop_unsupported();
}

#endif
