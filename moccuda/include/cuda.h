/* MocCUDA: driver-API programs are not supported; the runtime API is in cuda_runtime.h. */
#include "cuda_runtime.h"
