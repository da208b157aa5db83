// A barrier chosen by a conditional expression statement: `c ? __syncthreads() : __syncwarp();`
// with a block-uniform condition (a bit-reversal exchange through shared memory in which the
// exchanging threads are in the same warp for small tiles and in different warps for large ones).
#include <cstdio>

template <int TILE>
__global__ void reverse_tiles(const int *in, int *out) {
  __shared__ int tile[TILE];
  int base = blockIdx.x * TILE;
  for (int t = threadIdx.x; t < TILE; t += blockDim.x) tile[t] = in[base + t];
  (TILE > 32) ? __syncthreads() : __syncwarp();
  for (int t = threadIdx.x; t < TILE; t += blockDim.x) out[base + t] = tile[TILE - 1 - t];
  blockDim.x > 1 ? __syncthreads() : (void)0;
}

template <int TILE>
bool check(int threads) {
  const int tiles = 5, n = tiles * TILE;
  int h_in[n], h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = 7 * i + 1;
  int *in, *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  reverse_tiles<TILE><<<tiles, threads>>>(in, out);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  for (int i = 0; i < n; i++) {
    int expected = h_in[i / TILE * TILE + TILE - 1 - i % TILE];
    if (h_out[i] != expected) {
      printf("FAIL: tile %d, out[%d] is %d, expected %d\n", TILE, i, h_out[i], expected);
      return false;
    }
  }
  return true;
}

int main() {
  if (!check<16>(16) || !check<128>(64) || !check<256>(256)) return 1;
  printf("PASS\n");
  return 0;
}
