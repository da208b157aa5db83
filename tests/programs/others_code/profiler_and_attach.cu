// cuda_profiler_api.h's profiling range around a launch, and managed memory attached to a
// stream (cudaStreamAttachMemAsync) before a kernel in that stream uses it.
#include <cuda_profiler_api.h>

#include <cstdio>

__global__ void increment(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += i;
}

int main() {
  const int n = 1000;
  int *data;
  cudaStream_t stream;
  if (cudaMallocManaged(&data, n * sizeof(int)) != cudaSuccess || cudaStreamCreate(&stream) != cudaSuccess) {
    printf("FAIL: setup\n");
    return 1;
  }
  for (int i = 0; i < n; i++) data[i] = 1;
  if (cudaStreamAttachMemAsync(stream, data, 0, cudaMemAttachSingle) != cudaSuccess ||
      cudaStreamAttachMemAsync(stream, data) != cudaSuccess || cudaProfilerStart() != cudaSuccess) {
    printf("FAIL: attach or profiler start\n");
    return 1;
  }
  increment<<<(n + 127) / 128, 128, 0, stream>>>(data, n);
  if (cudaStreamSynchronize(stream) != cudaSuccess || cudaProfilerStop() != cudaSuccess ||
      cudaStreamAttachMemAsync(stream, data, 0, 0x40) != cudaErrorInvalidValue) {
    printf("FAIL: synchronize, profiler stop or the invalid flag\n");
    return 1;
  }
  for (int i = 0; i < n; i++)
    if (data[i] != 1 + i) {
      printf("FAIL: data[%d] is %d\n", i, data[i]);
      return 1;
    }
  cudaStreamDestroy(stream);
  cudaFree(data);
  printf("PASS\n");
  return 0;
}
