/* MocCUDA: the driver API is not provided.  Programs that include <cuda.h> for CUDA_VERSION or
 * alongside the runtime API get the runtime. */
#ifndef MOCCUDA_CUDA_H
#define MOCCUDA_CUDA_H
#define CUDA_VERSION 13000
#include "cuda_runtime.h"
#endif
