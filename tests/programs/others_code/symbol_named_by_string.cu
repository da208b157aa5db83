// CUDA 4's way of naming a symbol: cudaMemcpyToSymbol("name", ...), as Rodinia's kmeans copies its
// cluster centres into constant memory.  Built as a Makefile does (-c, then linked by g++ without
// -rdynamic) the names are not among the executable's dynamic symbols; a static variable never is.
#include <cstdio>

#define N 64
__constant__ float centres[N];
static __device__ int offset;

__global__ void shifted(float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = centres[i] + offset;
}

int main() {
  float h[N], *d;
  for (int i = 0; i < N; i++) h[i] = 0.5f * i;
  int three = 3;
  if (cudaMemcpyToSymbol("centres", h, sizeof h, 0, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpyToSymbol("offset", &three, sizeof three) != cudaSuccess) {
    printf("FAIL: the copy to a symbol named by a string failed\n");
    return 1;
  }
  int back = 0;
  cudaMemcpyFromSymbol(&back, "offset", sizeof back);
  cudaMalloc(&d, sizeof h);
  shifted<<<2, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (back != 3) {
    printf("FAIL: read back %d from 'offset', expected 3\n", back);
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (h[i] != 0.5f * i + 3) {
      printf("FAIL: out[%d] is %g, expected %g\n", i, h[i], 0.5f * i + 3);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
