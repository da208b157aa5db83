// Declarations local to a kernel that have no run-time effect: a static_assert on a template
// parameter and namespace aliases (cooperative groups' usual `namespace cg = ...`, and one of a
// nested namespace), in a kernel with a barrier (so its body is rebuilt from the IR).
#include <cooperative_groups.h>
#include <cstdio>

namespace outer {
namespace inner {
__host__ __device__ inline int twice(int v) { return 2 * v; }
}  // namespace inner
}  // namespace outer

template <int BLOCK>
__global__ void reverse_twice(const int *in, int *out) {
  static_assert(BLOCK % 32 == 0, "whole warps");
  static_assert(BLOCK <= 1024);
  namespace cg = cooperative_groups;
  namespace oi = outer::inner;
  cg::thread_block block = cg::this_thread_block();
  __shared__ int tile[BLOCK];
  tile[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  block.sync();
  out[blockIdx.x * BLOCK + threadIdx.x] = oi::twice(tile[BLOCK - 1 - threadIdx.x]);
}

int main() {
  const int block = 64, blocks = 3, n = block * blocks;
  int h_in[n], h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = i * i - 5;
  int *in, *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  reverse_twice<block><<<blocks, block>>>(in, out);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  for (int i = 0; i < n; i++) {
    int expected = 2 * h_in[i / block * block + block - 1 - i % block];
    if (h_out[i] != expected) {
      printf("FAIL: out[%d] is %d, expected %d\n", i, h_out[i], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
