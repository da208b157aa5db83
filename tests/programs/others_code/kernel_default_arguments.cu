// Default arguments of a kernel (`int *partial = NULL`) and of a __device__ function that reads
// threadIdx, launched and called without them, also from a host loop of launches (which
// launch-regions runs in one parallel region).
#include <cstdio>

__device__ int lane_plus(int v, int step = 10) { return v + step * (int)threadIdx.x; }

__global__ void scan_like(int *data, int scale, int *partial = NULL) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = lane_plus(data[i] * scale);
  if (partial != NULL && threadIdx.x == 0) partial[blockIdx.x] = data[i];
}

int main() {
  const int blocks = 2, threads = 32, n = blocks * threads;
  int *data, *partial;
  cudaMallocManaged(&data, sizeof(int) * n);
  cudaMallocManaged(&partial, sizeof(int) * blocks);
  for (int i = 0; i < n; i++) data[i] = i;
  for (int round = 0; round < 2; round++) {
    scan_like<<<blocks, threads>>>(data, 2, partial);
    scan_like<<<blocks, threads>>>(data, 1);
  }
  cudaDeviceSynchronize();
  for (int i = 0; i < n; i++) {
    int v = i;
    for (int round = 0; round < 2; round++) v = (v * 2 + 10 * (i % threads)) + 10 * (i % threads);
    if (data[i] != v) {
      printf("FAIL: data[%d] is %d, expected %d\n", i, data[i], v);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
