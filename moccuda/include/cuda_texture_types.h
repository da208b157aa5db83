/* MocCUDA: older CUDA sources include <cuda_texture_types.h> directly; its contents are part of cuda_runtime.h. */
#include "cuda_runtime.h"
