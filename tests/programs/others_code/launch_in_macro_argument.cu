// Launches written inside an error-checking macro's argument: cudaLaunchKernel and
// cudaLaunchCooperativeKernel with the kernel cast to void *, and a <<< >>> launch.
#include <cstdio>

#define CHECK(call)                                                  \
  do {                                                               \
    cudaError_t status = (call);                                     \
    if (status != cudaSuccess) {                                     \
      printf("FAIL: %s at line %d\n", cudaGetErrorString(status), __LINE__); \
      return 1;                                                      \
    }                                                                \
  } while (0)

__global__ void fill(int *a, int value) { a[blockIdx.x * blockDim.x + threadIdx.x] = value; }

static bool all_equal(const int *d, int n, int value) {
  int h[256];
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++)
    if (h[i] != value) return false;
  return true;
}

int main() {
  const int n = 256;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  int value = 5;
  void *args[] = {&d, &value};
  CHECK(cudaLaunchKernel((void *)fill, dim3(n / 64), dim3(64), args, 0, 0));
  if (!all_equal(d, n, 5)) { printf("FAIL: cudaLaunchKernel\n"); return 1; }
  value = 6;
  CHECK(cudaLaunchCooperativeKernel((void *)fill, dim3(2), dim3(n / 2), args, 0, 0));
  if (!all_equal(d, n, 6)) { printf("FAIL: cudaLaunchCooperativeKernel\n"); return 1; }
  CHECK((fill<<<n / 32, 32>>>(d, 7), cudaGetLastError()));
  if (!all_equal(d, n, 7)) { printf("FAIL: <<< >>> launch\n"); return 1; }
  CHECK(cudaFree(d));
  printf("PASS\n");
  return 0;
}
