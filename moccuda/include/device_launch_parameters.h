/* MocCUDA: the builtin variables are parameters and locals of the translated kernels. */
#include "cuda_runtime.h"
