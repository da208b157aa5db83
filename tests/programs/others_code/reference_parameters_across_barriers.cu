// A __device__ function that synchronizes and returns results through reference parameters,
// written before and read after its barriers (as cuda-samples' eigenvalues does): inlined, the
// references are the caller's variables, and the kernel keeps the split lowering.
#include <cstdio>

__device__ void exchange(float *s, unsigned t, float &lo, float &hi, unsigned &count) {
  lo = s[t] - 1.0f;
  s[t] = lo;
  __syncthreads();
  hi = s[(t + 1) % blockDim.x] + lo;
  __syncthreads();
  s[t] = hi;
  count += 2;
  __syncthreads();
}

__global__ void pairs(const float *in, float *out, unsigned *counts) {
  __shared__ float s[64];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  float lo = 0.0f, hi = 0.0f;
  unsigned count = t;
  __syncthreads();
  exchange(s, t, lo, hi, count);
  out[2 * t] = lo;
  out[2 * t + 1] = hi + s[(t + 2) % blockDim.x];
  counts[t] = count;
}

int main() {
  const int n = 64;
  float *in, *out;
  unsigned *counts;
  cudaMallocManaged(&in, sizeof(float) * n);
  cudaMallocManaged(&out, sizeof(float) * 2 * n);
  cudaMallocManaged(&counts, sizeof(unsigned) * n);
  for (int i = 0; i < n; i++) in[i] = 0.5f * i;
  pairs<<<1, n>>>(in, out, counts);
  cudaDeviceSynchronize();
  for (int t = 0; t < n; t++) {
    float lo = in[t] - 1.0f, hi = in[(t + 1) % n] - 1.0f + lo;
    float hi2 = in[(t + 3) % n] - 1.0f + in[(t + 2) % n] - 1.0f;
    if (out[2 * t] != lo || out[2 * t + 1] != hi + hi2 || counts[t] != (unsigned)t + 2) {
      printf("FAIL: thread %d: %f %f %u\n", t, out[2 * t], out[2 * t + 1], counts[t]);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
