/* MocCUDA: the driver API is not provided.  Programs that include <cuda.h> for CUDA_VERSION or
 * alongside the runtime API get the runtime, and the driver's result codes and handle types that
 * such programs test and declare (Rodinia's kmeans: `cudaBindTexture(...) != CUDA_SUCCESS`).
 * The codes have the driver API's values. */
#ifndef MOCCUDA_CUDA_H
#define MOCCUDA_CUDA_H
#define CUDA_VERSION 13000
#include "cuda_runtime.h"

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_UNKNOWN = 999
} CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
#endif
