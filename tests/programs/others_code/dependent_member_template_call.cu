// A member template called on an object of dependent type, `a.template size<3>()`: the
// translation must keep the `template` keyword (g++ rejects `a.size<3>()` there).
#include <cstdio>

template <typename T>
struct A {
  template <int D>
  __device__ int size() const { return D + (int)sizeof(T); }
};

template <typename T>
__global__ void k(A<T> a, int *out) { out[threadIdx.x] = a.template size<3>(); }

int main() {
  int *o;
  cudaMallocManaged(&o, 4 * sizeof(int));
  k<int><<<1, 4>>>(A<int>(), o);
  cudaDeviceSynchronize();
  for (int t = 0; t < 4; t++)
    if (o[t] != 7) {
      printf("FAIL: out[%d] = %d\n", t, o[t]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
