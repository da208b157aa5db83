/* MocCUDA: older CUDA sources include <sm_32_atomic_functions.h> directly; its contents are part of cuda_runtime.h. */
#include "cuda_runtime.h"
