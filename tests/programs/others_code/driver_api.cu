// The driver API as programs that mix it with the runtime use it: device queries, contexts,
// allocations and copies through CUdeviceptr, a kernel launched on driver-allocated memory, and
// error names.  Every answer is checked against the runtime's or against CUDA's documented one.
#include <cstdio>
#include <cstring>
#include <cuda.h>

static int failures = 0;
#define CHECK(cond)                                              \
  do {                                                           \
    if (!(cond)) {                                               \
      printf("FAIL line %d: %s\n", __LINE__, #cond);             \
      failures++;                                                \
    }                                                            \
  } while (0)

__global__ void add_index(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += i;
}

int main() {
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CHECK(cuInit(1) == CUDA_ERROR_INVALID_VALUE);
  int version = 0, runtime_version = 0;
  CHECK(cuDriverGetVersion(&version) == CUDA_SUCCESS);
  cudaRuntimeGetVersion(&runtime_version);
  CHECK(version == CUDA_VERSION && version >= runtime_version);

  // The device, as the runtime describes it.
  int count = 0;
  CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS && count == 1);
  CUdevice device = -1;
  CHECK(cuDeviceGet(&device, 0) == CUDA_SUCCESS && device == 0);
  CHECK(cuDeviceGet(&device, 1) == CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp props;
  cudaGetDeviceProperties(&props, 0);
  char name[256];
  CHECK(cuDeviceGetName(name, sizeof name, device) == CUDA_SUCCESS && strcmp(name, props.name) == 0);
  char short_name[8];
  CHECK(cuDeviceGetName(short_name, sizeof short_name, device) == CUDA_SUCCESS &&
        strncmp(short_name, props.name, 7) == 0 && short_name[7] == '\0');
  int major = 0, minor = -1, sms = 0, warp = 0, threads = 0;
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == CUDA_SUCCESS);
  CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == CUDA_SUCCESS);
  CHECK(major == props.major && minor == props.minor);
  CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device) == CUDA_SUCCESS &&
        sms == props.multiProcessorCount);
  CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, device) == CUDA_SUCCESS && warp == 32);
  CHECK(cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, device) == CUDA_SUCCESS &&
        threads == props.maxThreadsPerBlock);
  CHECK(cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 3) == CUDA_ERROR_INVALID_DEVICE);
  int cc_major = 0, cc_minor = -1;
  CHECK(cuDeviceComputeCapability(&cc_major, &cc_minor, device) == CUDA_SUCCESS && cc_major == major &&
        cc_minor == minor);
  size_t total = 0;
  CHECK(cuDeviceTotalMem(&total, device) == CUDA_SUCCESS && total == props.totalGlobalMem);

  // Contexts: CUDA 13's creation with parameters, and CUDA 12's without.
  CUcontext primary = nullptr, current = nullptr, made = nullptr, older = nullptr;
  CHECK(cuDevicePrimaryCtxRetain(&primary, device) == CUDA_SUCCESS && primary != nullptr);
  CUctxCreateParams params = {};
  CHECK(cuCtxCreate(&made, &params, 0, device) == CUDA_SUCCESS && made != nullptr && made != primary);
  CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == made);
  CHECK(cuCtxCreate(&older, CU_CTX_SCHED_BLOCKING_SYNC, device) == CUDA_SUCCESS && older != made);
  CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == older);
  CUcontext popped = nullptr;
  CHECK(cuCtxPopCurrent(&popped) == CUDA_SUCCESS && popped == older);
  CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == made);
  CHECK(cuCtxPushCurrent(older) == CUDA_SUCCESS && cuCtxSetCurrent(made) == CUDA_SUCCESS);
  CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == made);
  CHECK(cuCtxCreate(&made, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD, device) == CUDA_ERROR_INVALID_VALUE);
  CUdevice of_context = -1;
  CHECK(cuCtxGetDevice(&of_context) == CUDA_SUCCESS && of_context == device);

  // Memory through CUdeviceptr, and a runtime kernel launched on it.
  const int n = 1000;
  size_t free_before = 0, free_after = 0;
  CHECK(cuMemGetInfo(&free_before, &total) == CUDA_SUCCESS && total == props.totalGlobalMem);
  CUdeviceptr a = 0, b = 0;
  CHECK(cuMemAlloc(&a, n * sizeof(int)) == CUDA_SUCCESS && a != 0);
  CHECK(cuMemAlloc(&b, n * sizeof(int)) == CUDA_SUCCESS && b != 0);
  CHECK(cuMemGetInfo(&free_after, &total) == CUDA_SUCCESS && free_after + 2 * n * sizeof(int) <= free_before);
  int host[n], back[n];
  for (int i = 0; i < n; i++) host[i] = 3 * i;
  CHECK(cuMemcpyHtoD(a, host, sizeof host) == CUDA_SUCCESS);
  add_index<<<(n + 127) / 128, 128>>>((int *)a, n);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoD(b, a, sizeof host) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(back, b, sizeof back) == CUDA_SUCCESS);
  for (int i = 0; i < n; i++)
    if (back[i] != 4 * i) {
      printf("FAIL: element %d is %d, expected %d\n", i, back[i], 4 * i);
      failures++;
      break;
    }
  CHECK(cuMemsetD32(a, 0xdeadbeefu, n) == CUDA_SUCCESS);
  CHECK(cuMemsetD8(b, 0x7f, 5) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(back, a, sizeof back) == CUDA_SUCCESS && (unsigned)back[0] == 0xdeadbeefu &&
        (unsigned)back[n - 1] == 0xdeadbeefu);
  unsigned char bytes[8];
  CHECK(cuMemcpyDtoH(bytes, b, sizeof bytes) == CUDA_SUCCESS && bytes[4] == 0x7f && bytes[5] == 0);  // b[1] was 4
  CHECK(cuMemsetD32(a + 2, 1, 1) == CUDA_ERROR_INVALID_VALUE);  // not 4-byte aligned
  CHECK(cuMemFree(a) == CUDA_SUCCESS && cuMemFree(b) == CUDA_SUCCESS);

  // A failing driver call is not the runtime's last error.
  cudaGetLastError();
  CUdeviceptr none = 0;
  CHECK(cuMemAlloc(&none, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemFree(0x1234) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cudaGetLastError() == cudaSuccess);

  // Names and descriptions, and CUDA's answer for a code that is none.
  const char *text = nullptr;
  CHECK(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &text) == CUDA_SUCCESS && strcmp(text, "CUDA_ERROR_OUT_OF_MEMORY") == 0);
  CHECK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text) == CUDA_SUCCESS && strcmp(text, "invalid argument") == 0);
  CHECK(cuGetErrorString(CUDA_SUCCESS, &text) == CUDA_SUCCESS && strcmp(text, "no error") == 0);
  CHECK(cuGetErrorName((CUresult)12345, &text) == CUDA_ERROR_INVALID_VALUE && text == nullptr);

  CHECK(cuCtxDestroy(older) == CUDA_SUCCESS && cuCtxDestroy(made) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(made) == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  if (failures) return 1;
  printf("PASS\n");
  return 0;
}
