// A header that picks its device code by architecture at namespace scope, as FlashInfer's
// cp_async.cuh does: its macro is defined in the host pass (`!defined(__CUDA_ARCH__)`) and for
// new devices, and only device functions test it.  nvcc's device pass for a 7.0 device leaves it
// undefined and compiles the plain copy; the host pass's view would keep the async-copy path,
// whose intrinsics a CPU does not have.
#pragma once

#if !defined(__CUDA_ARCH__) || (__CUDA_ARCH__ >= 800)
#define ASYNC_COPY_ENABLED
#endif

__device__ __forceinline__ void copy_to_shared(int *smem, const int *gmem)
{
#ifdef ASYNC_COPY_ENABLED
    unsigned smem_address = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_address), "l"(gmem));
#else
    *smem = *gmem;
#endif
}

// Two definitions of one device function, chosen by architecture.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ int twice(int x) { return __reduce_add_sync(0xffffffffu, x) * 0 + 2 * x; }
#else
__device__ int twice(int x) { return x + x; }
#endif
