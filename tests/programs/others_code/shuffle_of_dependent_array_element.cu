// A warp shuffle of an element of an array parameter whose bounds are template parameters
// (HeCBench hadamard's `float x[kNChunks][kNItems]`): clang leaves the element's type dependent,
// though it is float, and the shuffle's staging storage must be typed.
#include <cstdio>
template <int kN, int kM>
__device__ void warp_mix(float x[kN][kM]) {
  for (int c = 0; c < kN; ++c)
    for (int i = 0; i < kM; ++i) {
      float other = __shfl_xor_sync(0xffffffff, x[c][i], 1);
      x[c][i] = x[c][i] + other;
    }
}

template <int kN, int kM>
__global__ void k(float *out) {
  float v[kN][kM];
  for (int c = 0; c < kN; ++c)
    for (int i = 0; i < kM; ++i) v[c][i] = threadIdx.x + c * 10 + i;
  warp_mix<kN, kM>(v);
  for (int c = 0; c < kN; ++c)
    for (int i = 0; i < kM; ++i) out[(threadIdx.x * kN + c) * kM + i] = v[c][i];
}
int main() {
  float *d, h[32 * 3 * 2];
  cudaMalloc(&d, sizeof h);
  k<3, 2><<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; t++)
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 2; i++) {
        float want = (t + c * 10 + i) + ((t ^ 1) + c * 10 + i);
        if (h[(t * 3 + c) * 2 + i] != want) { printf("FAIL %d %d %d: %f\n", t, c, i, h[(t * 3 + c) * 2 + i]); return 1; }
      }
  printf("PASS\n");
  return 0;
}
