// cudaLaunchKernel((void *)kernel, ...) where kernel is a variable holding a kernel template's
// instantiation (FlashInfer's auto kernel = K<...>;), in a function template, through a macro, in
// the argument of a dispatch macro that expands it once per case; and with arguments whose types
// depend on the template's parameters (the call is resolved only when the template is instantiated).
#include <cstdio>
#define CALL(x) { cudaError_t e = (x); if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return e; } }
template <typename T> struct Params { T *out; int n; };
template <int scale, typename P>
__global__ void fill(const P params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < params.n) params.out[i] = scale * i;
}
#define DISPATCH_SCALE(big, SCALE, ...) \
  if (big) {                             \
    constexpr int SCALE = 5;             \
    __VA_ARGS__                          \
  } else {                               \
    constexpr int SCALE = 3;             \
    __VA_ARGS__                          \
  }
template <typename T>
cudaError_t launch(T *out, int n, bool big, cudaStream_t stream) {
  Params<T> params{out, n};
  DISPATCH_SCALE(big, scale, {
    auto kernel = fill<scale, Params<T>>;
    void *args[] = {(void *)&params};
    CALL(cudaLaunchKernel((void *)kernel, dim3((n + 63) / 64), dim3(64), args, 0, stream));
  })
  return cudaSuccess;
}
template <int scale, typename T>
__global__ void fill_plain(T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale * i + 1;
}
template <typename T>
cudaError_t launch_plain(T *out, int n, cudaStream_t stream) {
  auto kernel = fill_plain<7, T>;
  void *args[] = {&out, &n};
  CALL(cudaLaunchKernel((void *)kernel, dim3((n + 63) / 64), dim3(64), args, 0, stream));
  return cudaSuccess;
}
int main() {
  int *out; cudaMallocManaged(&out, 100 * sizeof(int));
  if (launch(out, 100, false, 0) != cudaSuccess) return 1;
  cudaDeviceSynchronize();
  for (int i = 0; i < 100; ++i) if (out[i] != 3 * i) { printf("FAIL %d\n", i); return 1; }
  if (launch(out, 100, true, 0) != cudaSuccess) return 1;
  cudaDeviceSynchronize();
  for (int i = 0; i < 100; ++i) if (out[i] != 5 * i) { printf("FAIL %d\n", i); return 1; }
  if (launch_plain(out, 100, 0) != cudaSuccess) return 1;
  cudaDeviceSynchronize();
  for (int i = 0; i < 100; ++i) if (out[i] != 7 * i + 1) { printf("FAIL %d\n", i); return 1; }
  printf("PASS\n");
}
