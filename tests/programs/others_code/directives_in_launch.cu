// Preprocessor conditionals inside a launch's <<< >>> and inside its argument list, one taken
// and one not (the dynamic shared memory size and an extra argument exist only when the
// partition is dynamic).
#include <cstdio>

#define DYNAMIC_PARTITION

#ifdef DYNAMIC_PARTITION
__global__ void scale(int *out, int factor, int offset) {
  extern __shared__ int staged[];
  staged[threadIdx.x] = factor * (int)(blockIdx.x * blockDim.x + threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = staged[blockDim.x - 1 - threadIdx.x] + offset;
}
#endif

__global__ void fill(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

int main() {
  const int threads = 32, blocks = 4, n = threads * blocks;
  int *d, h[n];
  cudaMalloc(&d, sizeof h);
  scale<<<blocks, threads
#ifdef DYNAMIC_PARTITION
           , threads * sizeof(int)
#endif
           >>>(d, 3
#ifdef DYNAMIC_PARTITION
               , 7
#endif
  );
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    int expected = 3 * (i / threads * threads + threads - 1 - i % threads) + 7;
    if (h[i] != expected) {
      printf("FAIL: out[%d] is %d, expected %d\n", i, h[i], expected);
      return 1;
    }
  }
  fill<<<blocks, threads
#ifdef STATIC_PARTITION
         , 0
#endif
         >>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int i = 0; i < n; i++)
    if (h[i] != 1) {
      printf("FAIL: fill left %d at %d\n", h[i], i);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
