// C99 compound literals, which nvcc accepts in CUDA C++: `(float2){x, y}` returned from a
// __device__ helper and built inside a kernel with a barrier, in a template on the vector type.
#include <cstdio>

template <typename T2>
__device__ T2 complex_mul(T2 a, T2 b) {
  return (T2){a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}

struct pair_sum {
  int first, second;
};

template <typename T, typename T2>
__global__ void rotate_pairs(const T2 *in, T2 *out, pair_sum *sums) {
  __shared__ T2 tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = complex_mul(in[i], (T2){(T)0, (T)1});
  __syncthreads();
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
  sums[i] = (pair_sum){(int)threadIdx.x, (int)blockIdx.x};
}

int main() {
  const int n = 128;
  float2 h_in[n], h_out[n];
  pair_sum h_sums[n];
  for (int i = 0; i < n; i++) h_in[i] = make_float2(1.5f * i, 2.0f - i);
  float2 *in, *out;
  pair_sum *sums;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMalloc(&sums, sizeof h_sums);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  rotate_pairs<float, float2><<<2, 64>>>(in, out, sums);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_sums, sums, sizeof h_sums, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    int source = i / 64 * 64 + (i % 64 + 1) % 64;
    float2 a = h_in[source];  // a * i = (-a.y, a.x)
    if (h_out[i].x != -a.y || h_out[i].y != a.x || h_sums[i].first != i % 64 || h_sums[i].second != i / 64) {
      printf("FAIL: element %d\n", i);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
