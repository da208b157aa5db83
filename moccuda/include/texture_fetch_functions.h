/* MocCUDA: older CUDA sources include <texture_fetch_functions.h> directly; its contents are part of cuda_runtime.h. */
#include "cuda_runtime.h"
