// A static member function template of a class template that calls a warp reduction (vLLM's
// Qk_dot<T, GROUP>::dot(q, k), whose qk_dot_ sums with __shfl_xor_sync): the member is inlined
// into the kernel, and the function template it calls is instantiated from the call's arguments
// (arrays by reference: the element type and the extent are deduced).
#include <cstdio>

template <int GROUP, typename Vec, int N>
__device__ float group_dot(const Vec (&q)[N], const Vec (&k)[N]) {
  float sum = 0.f;
  for (int i = 0; i < N; ++i) sum += q[i] * k[i];
  for (int mask = GROUP / 2; mask >= 1; mask /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, mask);
  return sum;
}

template <typename T, int GROUP>
struct Dot {
  template <typename Vec, int N>
  static __device__ float of(const Vec (&q)[N], const Vec (&k)[N]) {
    return group_dot<GROUP>(q, k);
  }
};

template <typename T, int GROUP>
__global__ void dots(const T *a, const T *b, float *out) {
  T q[2], k[2];
  for (int i = 0; i < 2; i++) {
    q[i] = a[threadIdx.x * 2 + i];
    k[i] = b[threadIdx.x * 2 + i];
  }
  out[threadIdx.x] = 0.5f * Dot<T, GROUP>::of(q, k);
}

int main() {
  float a[64], b[64], out[32];
  for (int i = 0; i < 64; i++) a[i] = i % 5, b[i] = 1 + i % 3;
  float *d_a, *d_b, *d_out;
  cudaMalloc(&d_a, sizeof a);
  cudaMalloc(&d_b, sizeof b);
  cudaMalloc(&d_out, sizeof out);
  cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice);
  dots<float, 4><<<1, 32>>>(d_a, d_b, d_out);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  int ok = 1;
  for (int t = 0; t < 32; t++) {
    float group = 0.f;  // the 4 lanes of t's group, 2 products each
    for (int lane = t / 4 * 4; lane < t / 4 * 4 + 4; lane++)
      for (int i = 0; i < 2; i++) group += a[lane * 2 + i] * b[lane * 2 + i];
    if (out[t] != 0.5f * group) {
      printf("lane %d: %g, expected %g\n", t, out[t], 0.5f * group);
      ok = 0;
    }
  }
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
