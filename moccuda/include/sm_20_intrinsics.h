/* MocCUDA: older CUDA sources include <sm_20_intrinsics.h> directly; its contents are part of cuda_runtime.h. */
#include "cuda_runtime.h"
