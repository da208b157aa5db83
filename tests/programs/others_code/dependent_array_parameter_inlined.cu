// A synchronizing __device__ function template whose array parameter's extents are template
// arguments given by constexpr locals of a kernel template (`constexpr int kRows =
// T::kRows;`, HeCBench hadamard's shape): C++ passes a pointer, also when the extents are
// dependent, so the inlined function writes the caller's array.
#include <cstdio>

struct Shape { static constexpr int kRows = 3; static constexpr int kCols = 2; };

template <int kRows, int kCols>
__device__ void warp_mix(float x[kRows][kCols]) {
  for (int c = 0; c < kRows; ++c)
    for (int i = 0; i < kCols; ++i) {
      float other = __shfl_xor_sync(0xffffffff, x[c][i], 1);
      x[c][i] += other;
    }
  __syncthreads();
  x[0][0] += 100.f;
}

template <typename T>
__global__ void mix(float *out) {
  constexpr int kRows = T::kRows;
  constexpr int kCols = T::kCols;
  float v[kRows][kCols];
  for (int c = 0; c < kRows; ++c)
    for (int i = 0; i < kCols; ++i) v[c][i] = threadIdx.x + c * 10 + i;
  warp_mix<kRows, kCols>(v);
  for (int c = 0; c < kRows; ++c)
    for (int i = 0; i < kCols; ++i) out[(threadIdx.x * kRows + c) * kCols + i] = v[c][i];
}

int main() {
  float *d, h[32 * 6];
  cudaMalloc(&d, sizeof h);
  mix<Shape><<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; t++)
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 2; i++) {
        float want = (t + c * 10 + i) + ((t ^ 1) + c * 10 + i) + (c == 0 && i == 0 ? 100.f : 0.f);
        if (h[(t * 3 + c) * 2 + i] != want) { printf("FAIL %d %d %d: %f\n", t, c, i, h[(t * 3 + c) * 2 + i]); return 1; }
      }
  printf("PASS\n");
  return 0;
}
