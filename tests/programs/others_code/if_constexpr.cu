// `if constexpr` in a kernel template (HeCBench hadamard): the branch not taken is discarded,
// and it need not compile for the template's arguments, here a call whose array parameter has
// another size, with and without a barrier in the branch taken.
#include <cstdio>

__device__ void twelve(float (*x)[12]) { x[0][0] += 12.f; }
__device__ void two(float (*x)[2]) { x[0][0] += 2.f; }

template <int kChunks>
__global__ void chunks(float *out) {
  __shared__ float total[1];
  float v[1][kChunks];
  for (int c = 0; c < kChunks; ++c) v[0][c] = threadIdx.x;
  if constexpr (kChunks == 12) {
    twelve(v);
  } else if constexpr (kChunks == 2) {
    two(v);
  }
  if (threadIdx.x == 0) total[0] = 0.f;
  __syncthreads();
  if constexpr (kChunks == 2) {
    atomicAdd(&total[0], v[0][0]);
    __syncthreads();
    v[0][1] = total[0];
  }
  for (int c = 0; c < kChunks; ++c) out[threadIdx.x * kChunks + c] = v[0][c];
}

// A barrier under `if constexpr` on a traits class's constant, through a local constant (as
// hadamard's kernel traits): the condition is a constant expression, the same in every thread.
template <int kN>
struct traits { static constexpr int kWarps = kN; };

template <typename Traits>
__global__ void warps_of(float *out) {
  constexpr int kWarps = Traits::kWarps;
  __shared__ float first[1];
  float v = threadIdx.x;
  if constexpr (kWarps > 1) {
    if (threadIdx.x == 0) first[0] = 100.f;
    __syncthreads();
    v += first[0];
  }
  out[threadIdx.x] = v;
}

int main() {
  float *d, h[64 * 12];
  cudaMalloc(&d, sizeof h);
  for (int warps = 1; warps <= 2; warps++) {
    if (warps == 1)
      warps_of<traits<1>><<<1, 64>>>(d);
    else
      warps_of<traits<2>><<<1, 64>>>(d);
    cudaMemcpy(h, d, 64 * sizeof(float), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++)
      if (h[t] != t + (warps > 1 ? 100.f : 0.f)) {
        printf("FAIL: warps_of<traits<%d>> out[%d] = %g\n", warps, t, h[t]);
        return 1;
      }
  }
  chunks<12><<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 64; t++)
    for (int c = 0; c < 12; c++)
      if (h[t * 12 + c] != t + (c == 0 ? 12.f : 0.f)) {
        printf("FAIL: chunks<12> out[%d][%d] = %g\n", t, c, h[t * 12 + c]);
        return 1;
      }
  chunks<2><<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  const float sum = 64 * 63 / 2 + 64 * 2.f;
  for (int t = 0; t < 64; t++)
    if (h[t * 2] != t + 2.f || h[t * 2 + 1] != sum) {
      printf("FAIL: chunks<2> out[%d] = (%g, %g)\n", t, h[t * 2], h[t * 2 + 1]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
