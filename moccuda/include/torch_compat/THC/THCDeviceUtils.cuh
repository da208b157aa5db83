/* MocCUDA torch compat: THC-era helpers that old PyTorch CUDA extensions still use. */
#pragma once

#include <c10/cuda/CUDAException.h>

/* ceil(a / b) for positive integers, on the host and in kernels. */
template <typename T>
__host__ __device__ __forceinline__ T THCCeilDiv(T a, T b)
{
    return (a + b - 1) / b;
}

/* The smallest multiple of b that is at least a. */
template <typename T>
__host__ __device__ __forceinline__ T THCRoundUp(T a, T b)
{
    return THCCeilDiv(a, b) * b;
}
