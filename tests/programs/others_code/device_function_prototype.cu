// A __device__ function that reads threadIdx, declared before the kernel that calls it and
// defined after: the declaration must take the thread's index as the definition does, and a
// default argument written only in the declaration still applies.
#include <cstdio>

__device__ int lane_value(int scale, int offset = 7);
__device__ void store_lane(int *out, int scale);

__global__ void lanes(int *out) {
  store_lane(out, 3);
}

__device__ void store_lane(int *out, int scale) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = lane_value(scale);
}

__device__ int lane_value(int scale, int offset) { return (int)threadIdx.x * scale + offset; }

int main() {
  const int threads = 32, blocks = 2;
  int *out;
  cudaMallocManaged(&out, sizeof(int) * threads * blocks);
  lanes<<<blocks, threads>>>(out);
  cudaDeviceSynchronize();
  for (int i = 0; i < threads * blocks; i++)
    if (out[i] != i % threads * 3 + 7) {
      printf("FAIL: out[%d] is %d\n", i, out[i]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
