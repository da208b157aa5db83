// Kernels calling __device__ function templates whose arguments are a parameter pack and a
// template template parameter (the template arguments clang resolved are read for every call).
#include <cstdio>

template <typename T>
__device__ T add(T a) { return a; }
template <typename T, typename... Rest>
__device__ T add(T a, Rest... rest) { return a + add(rest...); }

template <typename T>
struct Box {
  T value;
};
template <template <typename> class Holder, typename T>
__device__ T unbox(Holder<T> held) { return held.value; }

__global__ void sums(int *out) {
  Box<int> box{2};
  __shared__ int staged[32];
  staged[threadIdx.x] = add(1, 2, (int)threadIdx.x) + unbox(box);
  __syncthreads();
  out[threadIdx.x] = staged[31 - threadIdx.x];
}

int main() {
  int *d, h[32];
  cudaMalloc(&d, sizeof h);
  sums<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; t++)
    if (h[t] != 5 + 31 - t) {
      printf("FAIL: out[%d] is %d\n", t, h[t]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
