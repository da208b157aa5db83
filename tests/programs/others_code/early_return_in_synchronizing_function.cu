// `return` before the end of __device__ functions that synchronize (and are inlined into the
// kernel): a uniform early exit before the first barrier, one inside a loop of barriers, one
// after a reduction whose result decides, and returns in both arms of a final if/else.
#include <cstdio>

__device__ float block_max(float *s, float v, int n) {
  if (n <= 0) return -1.0f;
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + stride]);
    __syncthreads();
  }
  float m = s[0];
  __syncthreads();
  if (m > 100.0f) return 100.0f;
  return m;
}

__device__ void count_rounds(int *s, int limit, int *rounds) {
  s[threadIdx.x] = 0;
  __syncthreads();
  for (int round = 1;; round++) {
    if (threadIdx.x == 0) s[0] += round;
    __syncthreads();
    if (s[0] >= limit) {
      if (threadIdx.x == 0) rounds[blockIdx.x] = round;
      return;
    }
    __syncthreads();
  }
}

__device__ int leader_value(int *s, int v) {
  s[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    return s[blockDim.x - 1];
  else
    return -1;
}

__global__ void kernel(const float *in, float *maxima, int *rounds, int *leaders) {
  __shared__ float fs[64];
  __shared__ int is[64];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float m = block_max(fs, v, blockIdx.x);
  if (threadIdx.x == 0) maxima[blockIdx.x] = m;
  count_rounds(is, 10 * (blockIdx.x + 1), rounds);
  __syncthreads();
  int l = leader_value(is, threadIdx.x * 2);
  leaders[blockIdx.x * blockDim.x + threadIdx.x] = l;
}

int main() {
  const int threads = 64, blocks = 4, n = threads * blocks;
  float h_in[n], h_max[blocks];
  int h_rounds[blocks], h_leaders[n];
  for (int i = 0; i < n; i++) h_in[i] = (float)((i * 37) % 101) + (i / threads == 2 ? 50.0f : 0.0f);
  float *in, *maxima;
  int *rounds, *leaders;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&maxima, sizeof h_max);
  cudaMalloc(&rounds, sizeof h_rounds);
  cudaMalloc(&leaders, sizeof h_leaders);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  kernel<<<blocks, threads>>>(in, maxima, rounds, leaders);
  cudaMemcpy(h_max, maxima, sizeof h_max, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_rounds, rounds, sizeof h_rounds, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_leaders, leaders, sizeof h_leaders, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; b++) {
    float m = 0;
    for (int t = 0; t < threads; t++) m = fmaxf(m, h_in[b * threads + t]);
    float expected = b == 0 ? -1.0f : (m > 100.0f ? 100.0f : m);
    int limit = 10 * (b + 1), sum = 0, round = 0;
    while (sum < limit) sum += ++round;
    if (h_max[b] != expected || h_rounds[b] != round) {
      printf("FAIL: block %d: max %f (expected %f), rounds %d (expected %d)\n", b, h_max[b], expected, h_rounds[b],
             round);
      return 1;
    }
    for (int t = 0; t < threads; t++) {
      int want = t == 0 ? 2 * (threads - 1) : -1;
      if (h_leaders[b * threads + t] != want) {
        printf("FAIL: leader value of thread %d of block %d is %d\n", t, b, h_leaders[b * threads + t]);
        return 1;
      }
    }
  }
  printf("PASS\n");
  return 0;
}
