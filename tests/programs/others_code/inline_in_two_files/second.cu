#include "powers.cuh"

__global__ void second_kernel(int *out) { out[threadIdx.x] = lane_power(2); }

int run_second(int *out) {
  second_kernel<<<1, 8>>>(out);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
