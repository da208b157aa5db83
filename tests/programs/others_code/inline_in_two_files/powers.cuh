// An inline __device__ function with a shift by a variable count (translated for the GPU's
// shifts), defined in a header that two .cu files of one program include.
#pragma once
__device__ inline int power_of_two(int exponent) { return 1 << exponent; }
__device__ inline int lane_power(int base) { return power_of_two(base + (int)threadIdx.x % 4); }
