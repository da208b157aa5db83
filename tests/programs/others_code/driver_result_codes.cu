// <cuda.h> included beside the runtime API for the driver's result codes and handle types:
// runtime calls checked against CUDA_SUCCESS (as Rodinia's kmeans checks cudaBindTexture), a
// CUresult variable, and a CUdeviceptr holding a device address.
#include <cstdio>
#include <cuda.h>

__global__ void square(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * i;
}

int main() {
  const int n = 300;
  int *d = nullptr;
  if (cudaMalloc((void **)&d, n * sizeof(int)) != CUDA_SUCCESS) {
    printf("FAIL: cudaMalloc did not return CUDA_SUCCESS\n");
    return 1;
  }
  CUresult status = CUDA_SUCCESS;
  CUdeviceptr address = (CUdeviceptr)d;
  square<<<(n + 127) / 128, 128>>>((int *)address, n);
  int h[n];
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != CUDA_SUCCESS) status = CUDA_ERROR_UNKNOWN;
  cudaFree(d);
  if (status != CUDA_SUCCESS || CUDA_SUCCESS != 0 || CUDA_ERROR_OUT_OF_MEMORY != 2) {
    printf("FAIL: result codes (status %d)\n", (int)status);
    return 1;
  }
  for (int i = 0; i < n; i++)
    if (h[i] != i * i) {
      printf("FAIL: a[%d] is %d, expected %d\n", i, h[i], i * i);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
