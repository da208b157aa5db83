// Kernels launched with <<< >>> through function pointers: a pointer variable chosen at run
// time (as benchmarks that time several variants of a kernel do), a typedef'd and a `using`
// pointer type, and a pointer in a struct member.
#include <cstdio>

__global__ void add_one(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1;
}

__global__ void double_through_shared(int *a, int n) {
  __shared__ int staged[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? a[i] : 0;
  __syncthreads();
  if (i < n) a[i] = 2 * staged[threadIdx.x];
}

typedef void (*kernel_t)(int *, int);
using kernel_u = void (*)(int *, int);
struct variant {
  const char *name;
  void (*kernel)(int *, int);
};

int main() {
  const int n = 100;
  int *d, h[n];
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  void (*kernel)(int *__restrict__, int);
  for (int choice = 0; choice < 2; choice++) {  // a += 1, then a *= 2
    kernel = choice == 0 ? &add_one : &double_through_shared;
    kernel<<<(n + 31) / 32, 32>>>(d, n);
  }
  kernel_t named = double_through_shared;
  named<<<(n + 31) / 32, 32>>>(d, n);  // 4
  kernel_u aliased = add_one;
  aliased<<<(n + 31) / 32, 32>>>(d, n);  // 5
  variant variants[] = {{"double", double_through_shared}, {"add", add_one}};
  for (const variant &v : variants) v.kernel<<<(n + 31) / 32, 32>>>(d, n);  // 11
  if (kernel == &double_through_shared) kernel<<<(n + 31) / 32, 32>>>(d, n);  // 22
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int i = 0; i < n; i++)
    if (h[i] != 22) {
      printf("FAIL: a[%d] is %d, expected 22\n", i, h[i]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
