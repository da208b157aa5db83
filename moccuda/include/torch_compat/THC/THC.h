/* MocCUDA torch compat: the THC names old PyTorch CUDA extensions include <THC/THC.h> for. */
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <THC/THCDeviceUtils.cuh>

#define THCudaCheck(EXPR) C10_CUDA_CHECK(EXPR)
#define THCudaCheckWarn(EXPR) C10_CUDA_CHECK_WARN(EXPR)

/* The THC state handle, gone from PyTorch: extensions only pass it along. */
struct THCState;
