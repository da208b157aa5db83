/* MocCUDA: older CUDA sources include <device_atomic_functions.h> directly; its contents are part of cuda_runtime.h. */
#include "cuda_runtime.h"
