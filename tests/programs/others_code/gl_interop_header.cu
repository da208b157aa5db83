// cuda_gl_interop.h included by a program that sorts on the device and draws nothing (as
// Rodinia's hybridsort does): it builds, its kernels run, and an interop call it might make
// reports cudaErrorNotSupported without effect.
#include <cstdio>
#include <cuda_gl_interop.h>

__global__ void negate(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = -a[i];
}

int main() {
  const int n = 200;
  int h[n], *d;
  for (int i = 0; i < n; i++) h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  negate<<<(n + 63) / 64, 64>>>(d, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int i = 0; i < n; i++)
    if (h[i] != -i) {
      printf("FAIL: a[%d] is %d\n", i, h[i]);
      return 1;
    }
  cudaGraphicsResource_t resource = nullptr;
  GLuint buffer = 1;
  if (cudaGraphicsGLRegisterBuffer(&resource, buffer, cudaGraphicsRegisterFlagsNone) != cudaErrorNotSupported ||
      resource != nullptr || cudaGetLastError() != cudaErrorNotSupported || cudaGetLastError() != cudaSuccess) {
    printf("FAIL: the interop call did not report cudaErrorNotSupported\n");
    return 1;
  }
  unsigned int devices = 7;
  int list[1];
  if (cudaGLGetDevices(&devices, list, 1, cudaGLDeviceListAll) != cudaErrorNotSupported || devices != 0) {
    printf("FAIL: cudaGLGetDevices reported %u devices\n", devices);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
