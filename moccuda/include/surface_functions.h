/* MocCUDA: older CUDA sources include <surface_functions.h> directly; its contents are part of cuda_runtime.h. */
#include "cuda_runtime.h"
