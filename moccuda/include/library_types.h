/* MocCUDA: CUDA's library data types (library_types.h), with CUDA's numeric values. */
#ifndef MOCCUDA_LIBRARY_TYPES_H
#define MOCCUDA_LIBRARY_TYPES_H
#define __LIBRARY_TYPES_H__  /* CUDA's own include guard, which programs test */

typedef enum cudaDataType_t {
    CUDA_R_16F = 2, CUDA_C_16F = 6, CUDA_R_16BF = 14, CUDA_C_16BF = 15,
    CUDA_R_32F = 0, CUDA_C_32F = 4, CUDA_R_64F = 1, CUDA_C_64F = 5,
    CUDA_R_8I = 3, CUDA_C_8I = 7, CUDA_R_8U = 8, CUDA_C_8U = 9,
    CUDA_R_32I = 10, CUDA_C_32I = 11, CUDA_R_32U = 12, CUDA_C_32U = 13
} cudaDataType;

#endif
