// A host loop of kernel launches in an included file (launch_loop_in_header.cuh): the loop is
// hoisted into one OpenMP parallel region, edited in the header's text, not at its first byte.
#include <cstdio>
#include <cmath>

#include "launch_loop_in_header.cuh"

int main() {
  const int n = 1000, steps = 25;
  float h[n], ref[n], tmp[n];
  for (int i = 0; i < n; i++) h[i] = ref[i] = (i % 17) * 0.5f;
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  float *result = relax_steps(a, b, n, steps);
  cudaMemcpy(h, result, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < steps; t++) {  // the same steps on the host, in the same order of operations
    for (int i = 0; i < n; i++) {
      float left = i > 0 ? ref[i - 1] : ref[i];
      float right = i < n - 1 ? ref[i + 1] : ref[i];
      tmp[i] = 0.25f * left + 0.5f * ref[i] + 0.25f * right;
    }
    for (int i = 0; i < n; i++) ref[i] = tmp[i];
  }
  for (int i = 0; i < n; i++)
    if (h[i] != ref[i]) {
      printf("FAIL: x[%d] is %g, expected %g\n", i, h[i], ref[i]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
