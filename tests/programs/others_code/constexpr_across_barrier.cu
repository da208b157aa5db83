// A constexpr local of a kernel template, read after __syncthreads() by a static_assert and an
// array extent: it must stay a constant expression in every thread loop (recomputed, never
// kept per thread).
#include <cstdio>

struct Wide { static constexpr int kItems = 4; };

template <typename Traits>
__global__ void rotate(const float *in, float *out) {
  __shared__ float tile[128];
  constexpr int kItems = Traits::kItems;
  tile[threadIdx.x] = in[threadIdx.x] * kItems;
  __syncthreads();
  static_assert(kItems % 2 == 0, "an even number of items");
  float items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = tile[(threadIdx.x + i) % blockDim.x];
  out[threadIdx.x] = items[kItems - 1] + items[0];
}

int main() {
  float h_in[128], h_out[128];
  for (int i = 0; i < 128; ++i) h_in[i] = (float)i;
  float *d_in, *d_out;
  cudaMalloc(&d_in, sizeof h_in);
  cudaMalloc(&d_out, sizeof h_out);
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  rotate<Wide><<<1, 128>>>(d_in, d_out);
  cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 128; ++t)
    if (h_out[t] != 4.0f * ((t + 3) % 128) + 4.0f * t) ++bad;
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
