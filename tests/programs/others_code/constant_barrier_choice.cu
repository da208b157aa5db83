// `(Z > WARP) ? __syncthreads() : __syncwarp();` whose condition is a constant (bitpermute's
// tiles of 256 bytes): only the chosen arm runs, so a grid-stride loop whose condition differs
// between threads holds warp synchronizations only, no block barrier.  The tile is reached
// through a pointer to rows of the dynamic shared memory, kept across those synchronizations.
#include <cstdio>

#define WARP 32

__global__ void reverse_rows(const long *in, long *out, unsigned long long n) {
  const unsigned Z = 256 / sizeof(long);
  extern __shared__ long exchange[];
  long (*tile)[Z] = reinterpret_cast<decltype(tile)>(exchange);
  unsigned row = threadIdx.x / Z, col = threadIdx.x % Z;
  unsigned long long t = threadIdx.x + blockDim.x * (unsigned long long)blockIdx.x;
  do {
    tile[row][col] = in[t];
    (Z > WARP) ? __syncthreads() : __syncwarp();
    out[t] = tile[row][Z - 1 - col];
    (Z > WARP) ? __syncthreads() : __syncwarp();
  } while ((t += blockDim.x * gridDim.x) < n);
}

int main() {
  const int threads = 64, blocks = 2;
  const unsigned long long n = threads * blocks * 3;
  long h_in[n], h_out[n];
  for (unsigned long long i = 0; i < n; i++) h_in[i] = 7 * (long)i - 100;
  long *in, *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  reverse_rows<<<blocks, threads, threads * sizeof(long)>>>(in, out, n);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (unsigned long long i = 0; i < n; i++) {
    unsigned long long mirror = i / 32 * 32 + 31 - i % 32;
    if (h_out[i] != h_in[mirror]) {
      printf("FAIL: out[%llu] is %ld, expected %ld\n", i, h_out[i], h_in[mirror]);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
