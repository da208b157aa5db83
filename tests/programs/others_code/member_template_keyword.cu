// Dependent member templates called without the `template` keyword, in a header and in the
// source: a static member template of a class template (converter<D, S>::run<N>(...)), and a
// member template of an object of dependent type (p.first_as<U>()).
#include <cstdio>
#include "member_template_keyword.cuh"

template <typename U, typename T, size_t N>
__device__ U first_of(const pack<T, N> &p) {
  return p.first_as<U>();
}

template <typename Src>
__global__ void widen(const Src *in, float *out, int *firsts) {
  pack<Src, 4> src;
  pack<float, 4> dst;
  for (int j = 0; j < 4; j++) src.items[j] = in[4 * threadIdx.x + j];
  convert_pack(dst, src);
  for (int j = 0; j < 4; j++) out[4 * threadIdx.x + j] = dst.items[j];
  firsts[threadIdx.x] = first_of<int>(dst);
}

int main() {
  const int threads = 8, n = 4 * threads;
  int h_in[n], h_firsts[threads];
  float h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = 3 * i - 7;
  int *in, *firsts;
  float *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMalloc(&firsts, sizeof h_firsts);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  widen<<<1, threads>>>(in, out, firsts);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_firsts, firsts, sizeof h_firsts, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++)
    if (h_out[i] != 2.0f * h_in[i]) {
      printf("FAIL: out[%d] is %f, expected %f\n", i, h_out[i], 2.0f * h_in[i]);
      return 1;
    }
  for (int t = 0; t < threads; t++)
    if (h_firsts[t] != 2 * h_in[4 * t]) {
      printf("FAIL: firsts[%d] is %d, expected %d\n", t, h_firsts[t], 2 * h_in[4 * t]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
