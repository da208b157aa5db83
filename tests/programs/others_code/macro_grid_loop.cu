// A grid-stride loop and an endless loop spelled by macros (the for statement comes from the
// macro's body; the loop variable and the bound from its arguments).
#include <cstdio>

#define GRID_STRIDE_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define FOREVER for (;;)

__global__ void double_and_count(int *a, int n) {
  GRID_STRIDE_LOOP(i, n) { a[i] = 2 * i; }
  int rounds = 0;
  FOREVER {
    if (++rounds > 3) break;
  }
  if (threadIdx.x == 0 && blockIdx.x == 0) a[n] = rounds;
}

int main() {
  const int n = 1000;
  int *d;
  cudaMalloc(&d, (n + 1) * sizeof(int));
  double_and_count<<<3, 64>>>(d, n);
  int h[n + 1];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int i = 0; i < n; i++)
    if (h[i] != 2 * i) {
      printf("FAIL: a[%d] is %d, expected %d\n", i, h[i], 2 * i);
      return 1;
    }
  if (h[n] != 4) {
    printf("FAIL: %d rounds, expected 4\n", h[n]);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
