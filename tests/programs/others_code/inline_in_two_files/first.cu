#include <cstdio>
#include "powers.cuh"

__global__ void first_kernel(int *out) { out[threadIdx.x] = lane_power(0); }
int run_second(int *out);

int main() {
  int *out;
  cudaMallocManaged(&out, sizeof(int) * 16);
  first_kernel<<<1, 8>>>(out);
  cudaDeviceSynchronize();
  if (run_second(out + 8) != 0) return 1;
  for (int i = 0; i < 16; i++)
    if (out[i] != 1 << (i % 4 + (i >= 8 ? 2 : 0))) {
      printf("FAIL: out[%d] is %d\n", i, out[i]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
