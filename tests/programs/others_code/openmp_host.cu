// A .cu whose host code uses OpenMP itself (omp.h, a parallel loop and the runtime API) to
// compute the reference of a kernel, as benchmarks comparing against a CPU version do.
#include <omp.h>

#include <cstdio>

__global__ void squares(long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (long long)i * i;
}

int main() {
  const int n = 5000;
  long long *d, h[n];
  cudaMalloc(&d, sizeof h);
  squares<<<(n + 127) / 128, 128>>>(d, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  long long expected = 0, got = 0;
  int threads_seen = 0;
#pragma omp parallel for reduction(+ : expected)
  for (int i = 0; i < n; i++) expected += (long long)i * i;
#pragma omp parallel reduction(+ : threads_seen)
  threads_seen += 1;
  for (int i = 0; i < n; i++) got += h[i];
  if (got != expected || threads_seen != omp_get_max_threads() || omp_get_wtime() <= 0.0) {
    printf("FAIL: sum %lld, expected %lld; %d threads of %d\n", got, expected, threads_seen, omp_get_max_threads());
    return 1;
  }
  printf("PASS\n");
  return 0;
}
