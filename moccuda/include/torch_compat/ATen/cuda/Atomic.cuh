/* MocCUDA torch compat: ATen's gpuAtomic* functions, as real atomics on the CPU.
 *
 * Blocks of a translated kernel run on different OpenMP threads, so each update is a
 * compare-and-swap loop over the value's bits (MocCUDA's atomic_update), for every arithmetic
 * type and c10::Half / c10::BFloat16, as PyTorch's CUDA versions support.
 */
#pragma once

#include <cuda_runtime.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>

template <typename T>
inline __host__ __device__ T gpuAtomicAdd(T *address, T value)
{
    return moccuda::detail::atomic_update(address, [value](T old) { return static_cast<T>(old + value); });
}

template <typename T>
inline __host__ __device__ void gpuAtomicAddNoReturn(T *address, T value)
{
    gpuAtomicAdd(address, value);
}

template <typename T>
inline __host__ __device__ T gpuAtomicMul(T *address, T value)
{
    return moccuda::detail::atomic_update(address, [value](T old) { return static_cast<T>(old * value); });
}

template <typename T>
inline __host__ __device__ T gpuAtomicMax(T *address, T value)
{
    return moccuda::detail::atomic_update(address, [value](T old) { return old < value ? value : old; });
}

template <typename T>
inline __host__ __device__ T gpuAtomicMin(T *address, T value)
{
    return moccuda::detail::atomic_update(address, [value](T old) { return value < old ? value : old; });
}

/* PyTorch's index_add-style helper: tensor[index] += value (the "fast" path is a GPU detail). */
template <typename scalar_t, typename index_t>
inline __host__ __device__ void fastAtomicAdd(scalar_t *tensor, index_t index, const index_t /*numel*/, scalar_t value,
                                              bool /*fast_atomics*/)
{
    gpuAtomicAddNoReturn(tensor + index, value);
}
