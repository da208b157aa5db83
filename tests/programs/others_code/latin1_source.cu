// A source file in Latin-1 (© in a licence comment), including a header with a kernel that is
// also Latin-1.  Bytes that are not UTF-8 pass through the translation unchanged, also in a
// string literal.
#include <cstdio>
#include <cstring>

#include "latin1_kernels.cuh"

int main() {
  const char *accented = "été";  // three bytes in Latin-1
  if (std::strlen(accented) != 3 || (unsigned char)accented[0] != 0xe9) {
    printf("FAIL: the Latin-1 string literal was re-encoded (%zu bytes)\n", std::strlen(accented));
    return 1;
  }
  const int n = 100;
  int *d;
  cudaMalloc(&d, n * sizeof(int));
  fill_index<<<(n + 31) / 32, 32>>>(d, n);
  int h[n];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int i = 0; i < n; i++)
    if (h[i] != 3 * i) {
      printf("FAIL: a[%d] is %d, expected %d\n", i, h[i], 3 * i);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
