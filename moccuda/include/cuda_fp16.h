/* MocCUDA: cuda_fp16.h, CUDA's __half and __half2 (both 16-bit types live in
 * cuda2cpu_half.h, since CUDA's headers also include each other). */
#ifndef MOCCUDA_CUDA_FP16_H
#define MOCCUDA_CUDA_FP16_H
#include "cuda2cpu_half.h"
#endif
