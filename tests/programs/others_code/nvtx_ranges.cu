// NVTX ranges, marks and names around kernels, through NVTX 3's C API (push/pop, start/end with
// event attributes), its CUDA runtime and driver extensions, its C++ API (nvtx3::scoped_range)
// and NVTX 2's header: with no tool attached they do nothing, and the program's work is unchanged.
#include <cstdio>
#include <nvToolsExt.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <nvtx3/nvtx3.hpp>

__global__ void square(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * i;
}

int main() {
  const int n = 256;
  int pushed = nvtxRangePushA("whole program");
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.colorType = NVTX_COLOR_ARGB;
  attributes.color = 0xff00ff00;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "allocate";
  nvtxRangeId_t allocation = nvtxRangeStartEx(&attributes);
  int *d = nullptr;
  cudaStream_t stream;
  cudaMalloc(&d, n * sizeof(int));
  cudaStreamCreate(&stream);
  nvtxRangeEnd(allocation);
  nvtxNameCudaStreamA(stream, "work");
  nvtxNameOsThreadA(0, "main");
  CUdevice device = 0;
  nvtxNameCuDeviceA(device, "the device");
  {
    nvtx3::scoped_range range{"kernel"};
    nvtxMarkA("launch");
    square<<<(n + 127) / 128, 128, 0, stream>>>(d, n);
    cudaStreamSynchronize(stream);
  }
  int popped = nvtxRangePop();
  int h[n];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++)
    if (h[i] != i * i) {
      printf("FAIL: a[%d] = %d\n", i, h[i]);
      return 1;
    }
  // Without a tool, a push or pop reports no depth (NVTX's answer: a negative number).
  printf("push %d pop %d\nPASS\n", pushed, popped);
  return 0;
}
