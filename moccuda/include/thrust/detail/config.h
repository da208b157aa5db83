/* MocCUDA: Thrust's configuration, as cuda2cpu gives Thrust to nvcc's users: NVIDIA's Thrust (the
 * nvidia-cuda-cccl-cu12 package, searched after MocCUDA's headers) on its OpenMP device system
 * (THRUST_DEVICE_SYSTEM_OMP: device_vector in host memory, the algorithms OpenMP loops).  Every
 * Thrust header includes this one first; it includes NVIDIA's, then what Thrust's CUDA system
 * brings with it under nvcc and programs use without including it. */
#ifndef MOCCUDA_THRUST_DETAIL_CONFIG_H
#define MOCCUDA_THRUST_DETAIL_CONFIG_H

#if defined(__CUDA2CPU_PARSE__) && !defined(_OPENMP)
/* Thrust asks here, once, whether its OpenMP system compiles (_OPENMP), and static_asserts the answer
 * in every OpenMP algorithm.  cuda2cpu's parse leaves _OPENMP undefined (the user's #ifdef _OPENMP
 * choices are those of nvcc's host compiler) and turns on no OpenMP pragma; the translation
 * includes Thrust where g++ -fopenmp defines it. */
#define _OPENMP 201511
#include_next <thrust/detail/config.h>
#undef _OPENMP
#else
#include_next <thrust/detail/config.h>
#endif

/* thrust::system_error, error_code and the error categories (the CUDA system's errors). */
#include <thrust/system_error.h>

#endif
