// A synchronizing __device__ function with array parameters (HeCBench hadamard's
// `float x[kNChunks][kNItems]`): C++ passes a pointer, so what the inlined function writes
// through the parameter is the caller's array, as in CUDA.
#include <cstdio>
__device__ void warp_mix(float x[3][2], float *flat) {
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 2; ++i) {
      float other = __shfl_xor_sync(0xffffffff, x[c][i], 1);
      x[c][i] = x[c][i] + other;
    }
  __syncthreads();
  flat[0] += 1.f;
}
__global__ void k(float *out) {
  float v[3][2];
  float one[1];
  one[0] = 0.f;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 2; ++i) v[c][i] = threadIdx.x + c * 10 + i;
  warp_mix(v, one);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 2; ++i) out[(threadIdx.x * 3 + c) * 2 + i] = v[c][i] + one[0];
}
int main() {
  float *d, h[32 * 6];
  cudaMalloc(&d, sizeof h);
  k<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; t++)
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 2; i++) {
        float want = (t + c * 10 + i) + ((t ^ 1) + c * 10 + i) + 1.f;
        if (h[(t * 3 + c) * 2 + i] != want) { printf("FAIL %d %d %d: %f\n", t, c, i, h[(t * 3 + c) * 2 + i]); return 1; }
      }
  printf("PASS\n");
  return 0;
}
