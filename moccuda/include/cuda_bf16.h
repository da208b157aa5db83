/* MocCUDA: cuda_bf16.h, CUDA's __nv_bfloat16 and __nv_bfloat162 (both 16-bit types live in
 * cuda2cpu_half.h, since CUDA's headers also include each other). */
#ifndef MOCCUDA_CUDA_BF16_H
#define MOCCUDA_CUDA_BF16_H
#include "cuda2cpu_half.h"
#endif
