// A .cu sharing its sources with an OpenMP build: what it declares under #ifdef _OPENMP is for
// that build only.  nvcc's host compiler defines _OPENMP only when asked (-Xcompiler -fopenmp);
// cuda2cpu compiles every translation with -fopenmp, yet the source must see what nvcc's build
// sees, in the kernels (read by the translator) and in the host code (read by g++) alike.
// (Built with -Xcompiler -fopenmp, this program does not compile, under nvcc either.)
#include <cstdio>

#ifdef _OPENMP
// The OpenMP build's own vector type; under nvcc, CUDA's float2 is used.
typedef struct { float x, y; } float2;
#define BUILT_WITH "openmp"
#define SCALE 3
#else
#define BUILT_WITH "cuda"
#define SCALE 2
#endif

__global__ void scaled(float2 *out) {
  int t = threadIdx.x;
  out[t] = make_float2(SCALE * t, -t);
}

int main() {
  float2 *d, h[64];
  cudaMalloc(&d, sizeof h);
  scaled<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int t = 0; t < 64; t++)
    if (h[t].x != SCALE * t || h[t].y != -t) {
      printf("FAIL: out[%d] = (%g, %g), expected (%d, %d)\n", t, h[t].x, h[t].y, SCALE * t, -t);
      return 1;
    }
  printf("%s\nPASS\n", BUILT_WITH);
  return 0;
}
