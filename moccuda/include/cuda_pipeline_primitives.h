/* MocCUDA: CUDA's pipeline primitives (__pipeline_memcpy_async, __pipeline_commit,
 * __pipeline_wait_prior), a thread's own asynchronous copies.  A CPU has no copy engine to overlap
 * with: the copy is made at once, and committing and waiting do nothing, which gives every later
 * read what the GPU gives it after the wait (see <cuda/pipeline>). */
#ifndef MOCCUDA_CUDA_PIPELINE_PRIMITIVES_H
#define MOCCUDA_CUDA_PIPELINE_PRIMITIVES_H

#include <stddef.h>
#include <string.h>

#include "host_defines.h"

/* Copies size_and_align - zfill bytes and sets the zfill bytes after them to zero. */
static __host__ __device__ inline void __pipeline_memcpy_async(void *dst_shared, const void *src_global,
                                                               size_t size_and_align, size_t zfill = 0)
{
    memcpy(dst_shared, src_global, size_and_align - zfill);
    memset((char *)dst_shared + (size_and_align - zfill), 0, zfill);
}
static __host__ __device__ inline void __pipeline_commit(void) {}
static __host__ __device__ inline void __pipeline_wait_prior(size_t) {}

#endif /* MOCCUDA_CUDA_PIPELINE_PRIMITIVES_H */
