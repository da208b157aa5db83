/* MocCUDA: threadIdx, blockIdx, blockDim, gridDim and warpSize are declared by cuda_runtime.h (in
 * parse mode; in translated code they are locals of each kernel). */
#include "cuda_runtime.h"
