// sizeof of a kernel template's type parameter written inside a macro's argument
// (`MAX(16 / (G * sizeof(T)), 1)`, how vectorized kernels size their vectors): the argument is
// written in the file as it is, so it is translated as written.
#include <cstdio>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

template <typename T, int GROUP>
__global__ void vector_sizes(int *out) {
  constexpr int VEC = MAX(16 / (GROUP * sizeof(T)), 1);
  __shared__ int staged[64];
  staged[threadIdx.x] = VEC * 100 + (int)MAX(sizeof(T), 2);
  __syncthreads();
  out[threadIdx.x] = staged[63 - threadIdx.x];
}

template <typename T, int GROUP>
static bool check(int *d, int expected) {
  int h[64];
  vector_sizes<T, GROUP><<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 64; t++)
    if (h[t] != expected) {
      printf("FAIL: sizeof %zu, group %d: %d, expected %d\n", sizeof(T), GROUP, h[t], expected);
      return false;
    }
  return true;
}

int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  if (!check<double, 1>(d, 2 * 100 + 8) || !check<char, 4>(d, 4 * 100 + 2) || !check<float, 8>(d, 1 * 100 + 4))
    return 1;
  printf("PASS\n");
  return 0;
}
