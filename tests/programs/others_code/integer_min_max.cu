// CUDA's integer minimum and maximum named by type (umin, umax, llmin, llmax, ullmin, ullmax),
// as merge sorts use them to clamp ranges, in host and device code.
#include <cstdio>

__global__ void clamp_ranges(const unsigned *starts, unsigned *out, long long *signed_out, int n, unsigned limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned s = starts[i];
  out[2 * i] = umin(s + 7u, limit);
  out[2 * i + 1] = umax(s, 100u);
  long long v = (long long)s - 500;
  signed_out[2 * i] = llmin(v, -3ll) + llmax(v, 0ll);
  signed_out[2 * i + 1] = (long long)(ullmin(s, 300ull) + ullmax(s, 900ull));
}

int main() {
  const int n = 256;
  const unsigned limit = 1000;
  unsigned h_starts[n], h_out[2 * n];
  long long h_signed[2 * n];
  for (int i = 0; i < n; i++) h_starts[i] = (unsigned)(i * 37 % 1200);
  unsigned *starts, *out;
  long long *signed_out;
  cudaMalloc(&starts, sizeof h_starts);
  cudaMalloc(&out, sizeof h_out);
  cudaMalloc(&signed_out, sizeof h_signed);
  cudaMemcpy(starts, h_starts, sizeof h_starts, cudaMemcpyHostToDevice);
  clamp_ranges<<<n / 64, 64>>>(starts, out, signed_out, n, limit);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_signed, signed_out, sizeof h_signed, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    unsigned s = h_starts[i];
    long long v = (long long)s - 500;
    unsigned lo = s + 7 < limit ? s + 7 : limit, hi = s > 100 ? s : 100;
    long long mixed = (v < -3 ? v : -3) + (v > 0 ? v : 0);
    long long wide = (long long)((s < 300 ? s : 300) + (s > 900 ? s : 900));
    if (h_out[2 * i] != lo || h_out[2 * i + 1] != hi || h_signed[2 * i] != mixed || h_signed[2 * i + 1] != wide ||
        umin(s, 5u) != (s < 5 ? s : 5)) {
      printf("FAIL: element %d\n", i);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
