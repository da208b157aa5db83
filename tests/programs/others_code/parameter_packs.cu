// A variadic kernel template forwarding its parameter pack to a functor (apex's
// multi_tensor_apply: `callable(chunk, tl, args...)`), with a pattern expanded around each
// element (`scale(args)...`) and sizeof...(Args), across a barrier.
#include <cstdio>

struct WeightedSum {
  template <typename... Ts>
  __device__ float operator()(const float *x, int i, Ts... weights) const {
    float w[] = {static_cast<float>(weights)...};
    float sum = 0;
    for (unsigned k = 0; k < sizeof...(Ts); k++) sum += w[k] * x[i + k];
    return sum;
  }
};

__device__ float twice(float v) { return 2 * v; }

template <typename F, typename... Args>
__global__ void apply(F f, const float *x, float *out, Args... args) {
  __shared__ float partial[64];
  int t = threadIdx.x;
  partial[t] = f(x, t, args...) + f(x, t, twice(args)...) * (float)sizeof...(Args);
  __syncthreads();
  out[t] = partial[(t + 1) % blockDim.x];
}

int main() {
  const int threads = 64, n = threads + 3;
  float h_x[n], h_out[threads];
  for (int i = 0; i < n; i++) h_x[i] = 0.5f * i - 4.0f;
  float *x, *out;
  cudaMalloc(&x, sizeof h_x);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
  apply<<<1, threads>>>(WeightedSum(), x, out, 1, 2.0f, 3.0);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int t = 0; t < threads; t++) {
    int s = (t + 1) % threads;
    float once = 1 * h_x[s] + 2 * h_x[s + 1] + 3 * h_x[s + 2];
    float expected = once + 2 * once * 3;
    if (h_out[t] != expected) {
      printf("FAIL: out[%d] is %f, expected %f\n", t, h_out[t], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
