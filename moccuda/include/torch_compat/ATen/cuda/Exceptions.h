/* MocCUDA torch compat: ATen's CUDA error checks (AT_CUDA_CHECK and friends). */
#pragma once

#include <c10/cuda/CUDAException.h>

#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
#define AT_CUDA_CHECK_WARN(EXPR) C10_CUDA_CHECK_WARN(EXPR)
