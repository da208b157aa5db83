// A kernel parameter named as its kernel (HeCBench keogh's lb_keogh(..., float *lb_keogh, ...)):
// inside the translated kernel the parameter must not hide the kernel, which calls itself when
// a launch is captured into a graph.
#include <cstdio>
__global__ void scale(const float *in, float *scale, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) scale[i] = 2.f * tile[(threadIdx.x + 1) % blockDim.x];
}
int main() {
  const int n = 256;
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; ++i) in[i] = i;
  scale<<<n / 64, 64>>>(in, out, n);
  cudaDeviceSynchronize();
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != 2.f * (i / 64 * 64 + (i % 64 + 1) % 64);
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
