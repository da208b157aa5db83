// Function templates that synchronize (and are inlined into the kernel), called with template
// arguments deduced from pointer arguments, and with some written and the rest deduced.
#include <cstdio>

template <typename T>
__device__ void block_exclusive_sum(const T *in, T *out, int n) {
  __shared__ T partial[64];
  if (threadIdx.x < n) partial[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    T running = 0;
    for (int i = 0; i < n; i++) {
      T v = partial[i];
      partial[i] = running;
      running += v;
    }
  }
  __syncthreads();
  if (threadIdx.x < n) out[threadIdx.x] = partial[threadIdx.x];
}

template <int FACTOR, typename T>
__device__ T scaled_neighbour(T *values, T mine) {
  values[threadIdx.x] = mine;
  __syncthreads();
  return FACTOR * values[(threadIdx.x + 1) % blockDim.x];
}

__global__ void histogram_offsets(const int *keys, int *offsets, float *ring, int n) {
  __shared__ int counts[16];
  __shared__ float values[64];
  if (threadIdx.x < 16) counts[threadIdx.x] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&counts[keys[i] % 16], 1);
  __syncthreads();
  block_exclusive_sum(counts, offsets, 16);
  ring[threadIdx.x] = scaled_neighbour<3>(values, (float)threadIdx.x);
}

int main() {
  const int n = 1000;
  int h_keys[n], h_offsets[16], expected_counts[16] = {0};
  for (int i = 0; i < n; i++) {
    h_keys[i] = (i * 7 + i / 5) % 23;
    expected_counts[h_keys[i] % 16]++;
  }
  int *keys, *offsets;
  float *ring, h_ring[64];
  cudaMalloc(&keys, sizeof h_keys);
  cudaMalloc(&offsets, sizeof h_offsets);
  cudaMalloc(&ring, sizeof h_ring);
  cudaMemcpy(keys, h_keys, sizeof h_keys, cudaMemcpyHostToDevice);
  histogram_offsets<<<1, 64>>>(keys, offsets, ring, n);
  cudaMemcpy(h_offsets, offsets, sizeof h_offsets, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_ring, ring, sizeof h_ring, cudaMemcpyDeviceToHost);
  int running = 0;
  for (int b = 0; b < 16; b++) {
    if (h_offsets[b] != running) {
      printf("FAIL: offset of bin %d is %d, expected %d\n", b, h_offsets[b], running);
      return 1;
    }
    running += expected_counts[b];
  }
  for (int t = 0; t < 64; t++)
    if (h_ring[t] != 3.0f * ((t + 1) % 64)) {
      printf("FAIL: ring[%d] is %f\n", t, h_ring[t]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
