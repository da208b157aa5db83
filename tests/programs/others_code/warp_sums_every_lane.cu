// Warp sums by __shfl_down_sync as a 16x16 stencil block writes them (HeCBench's jacobi): a
// reduction every thread of the block reaches (its warps span two rows, so offset 8 reads the
// next row's lanes), then one under `if (threadIdx.y == 0)` over the partial sums.  Also a block
// of 48 threads (a partial last warp) and a shuffle after some threads returned, whose lanes
// that left (inactive: undefined in CUDA) give the reader 0, as on a GPU.
#include <cstdio>

__global__ void tile_sums(const float *in, float *warp_sums, float *block_sums) {
  __shared__ float partial[16];
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  float v = in[blockIdx.x * 256 + t];
  for (int offset = 8; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  warp_sums[blockIdx.x * 256 + t] = v;
  if (threadIdx.x == 0)
    partial[threadIdx.y] = v;
  __syncthreads();
  if (threadIdx.y == 0) {
    float s = partial[threadIdx.x];
    for (int offset = 8; offset > 0; offset /= 2)
      s += __shfl_down_sync(0xffffffff, s, offset);
    if (threadIdx.x == 0)
      block_sums[blockIdx.x] = s;
  }
}

__global__ void partial_warp(const int *in, int *out) {
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffff, v, offset);
  out[threadIdx.x] = v;
}

__global__ void after_return(const int *in, int *out, int n) {
  if ((int)threadIdx.x >= n)
    return;
  int v = in[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 4);
  out[threadIdx.x] = v;
}

int main() {
  const int blocks = 3;
  static float h_in[blocks * 256], h_warp[blocks * 256], h_block[blocks];
  for (int i = 0; i < blocks * 256; i++)
    h_in[i] = (float)((i * 37) % 11);
  float *in, *warp_sums, *block_sums;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&warp_sums, sizeof h_warp);
  cudaMalloc(&block_sums, sizeof h_block);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  tile_sums<<<blocks, dim3(16, 16)>>>(in, warp_sums, block_sums);
  cudaMemcpy(h_warp, warp_sums, sizeof h_warp, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_block, block_sums, sizeof h_block, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; b++) {
    // Lane l of a 32-lane warp after offsets 8, 4, 2, 1: a lane past the warp gives its own value.
    float lanes[8][32], first[16];
    for (int w = 0; w < 8; w++)
      for (int l = 0; l < 32; l++)
        lanes[w][l] = h_in[b * 256 + w * 32 + l];
    for (int offset = 8; offset > 0; offset /= 2)
      for (int w = 0; w < 8; w++) {
        float next[32];
        for (int l = 0; l < 32; l++)
          next[l] = lanes[w][l] + (l + offset < 32 ? lanes[w][l + offset] : lanes[w][l]);
        for (int l = 0; l < 32; l++)
          lanes[w][l] = next[l];
      }
    for (int t = 0; t < 256; t++)
      if (h_warp[b * 256 + t] != lanes[t / 32][t % 32]) {
        printf("FAIL: block %d thread %d: %g, expected %g\n", b, t, h_warp[b * 256 + t], lanes[t / 32][t % 32]);
        return 1;
      }
    for (int y = 0; y < 16; y++)
      first[y] = lanes[y / 2][(y % 2) * 16];
    // The second reduction runs in the first warp's lanes 0..15 only; lanes 16..31 did not reach
    // it (inactive), so reading them gives 0.
    float s[16];
    for (int l = 0; l < 16; l++)
      s[l] = first[l];
    for (int offset = 8; offset > 0; offset /= 2) {
      float next[16];
      for (int l = 0; l < 16; l++)
        next[l] = s[l] + (l + offset < 16 ? s[l + offset] : 0.0f);
      for (int l = 0; l < 16; l++)
        s[l] = next[l];
    }
    if (h_block[b] != s[0]) {
      printf("FAIL: block %d sum %g, expected %g\n", b, h_block[b], s[0]);
      return 1;
    }
  }
  static int h_i[48], h_o[48];
  int *din, *dout;
  cudaMalloc(&din, sizeof h_i);
  cudaMalloc(&dout, sizeof h_o);
  for (int i = 0; i < 48; i++)
    h_i[i] = i * 3 + 1;
  cudaMemcpy(din, h_i, sizeof h_i, cudaMemcpyHostToDevice);
  partial_warp<<<1, 48>>>(din, dout);
  cudaMemcpy(h_o, dout, sizeof h_o, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 48; i++) {
    // xor partners beyond the 48 threads do not exist (inactive): the reader gets 0 there.
    int v[32];
    const int base = i / 32 * 32;
    for (int l = 0; l < 32; l++)
      v[l] = base + l < 48 ? h_i[base + l] : 0;
    for (int offset = 16; offset > 0; offset /= 2) {
      int next[32];
      for (int l = 0; l < 32; l++)
        next[l] = v[l] + (base + (l ^ offset) < 48 ? v[l ^ offset] : 0);
      for (int l = 0; l < 32; l++)
        v[l] = next[l];
    }
    if (h_o[i] != v[i % 32]) {
      printf("FAIL: partial warp thread %d: %d, expected %d\n", i, h_o[i], v[i % 32]);
      return 1;
    }
  }
  after_return<<<1, 32>>>(din, dout, 20);
  cudaMemcpy(h_o, dout, 20 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 20; i++) {
    const int want = h_i[i] + (i + 4 < 20 ? h_i[i + 4] : 0);
    if (h_o[i] != want) {
      printf("FAIL: after return, thread %d: %d, expected %d\n", i, h_o[i], want);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
