// A variable of a type that depends on the kernel's template parameters, initialized with
// parentheses and several arguments (`Stack<T, N> s(base, t);`): in a template clang keeps the
// arguments as a parenthesized list, and the construction must stay a construction.
#include <cstdio>

template <typename T, int N>
struct Stack {
  T *base;
  int thread, used;
  __device__ Stack(T *b, int t) : base(b), thread(t), used(0) {}
  __device__ void push(T v) { base[used++ * 64 + thread] = v; }
};

template <typename T, int N>
__global__ void fill(T *out, int *counts) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Stack<T, N> s(out, t);
  for (int k = 0; k <= t % N; k++) s.push(T(t * 10 + k));
  counts[t] = s.used;
}

int main() {
  const int threads = 64, depth = 4;
  float *out;
  int *counts;
  cudaMallocManaged(&out, sizeof(float) * threads * depth);
  cudaMallocManaged(&counts, sizeof(int) * threads);
  fill<float, depth><<<2, threads / 2>>>(out, counts);
  cudaDeviceSynchronize();
  for (int t = 0; t < threads; t++) {
    if (counts[t] != t % depth + 1) {
      printf("FAIL: thread %d pushed %d\n", t, counts[t]);
      return 1;
    }
    for (int k = 0; k < counts[t]; k++)
      if (out[k * 64 + t] != t * 10 + k) {
        printf("FAIL: out[%d][%d] is %f\n", k, t, out[k * 64 + t]);
        return 1;
      }
  }
  printf("PASS\n");
  return 0;
}
