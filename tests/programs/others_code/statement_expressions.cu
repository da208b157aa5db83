// GNU statement expressions in device code, as PPCG-generated kernels use them: type-generic
// min/max macros `({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); _x < _y ? _x : _y; })` in
// loop bounds, subscripts and nested in each other, with operands of different types.
#include <cstdio>

#define tg_min(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); _x < _y ? _x : _y; })
#define tg_max(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); _x > _y ? _x : _y; })

__global__ void clamp_sums(const float *in, float *out, int n) {
  __shared__ float tile[64];
  int t = threadIdx.x, b = blockIdx.x;
  tile[t] = in[tg_min(b * 64 + t, n - 1)];
  __syncthreads();
  float sum = 0;
  for (int c = tg_max(t - 2, 0); c <= tg_min(t + 2, 63); c++) sum += tile[c];
  out[b * 64 + t] = tg_min(tg_max(sum, -10.0f), 10.5) + tg_min(t, 3u);
}

int main() {
  const int threads = 64, blocks = 3, n = 150;
  float h_in[n], h_out[threads * blocks];
  for (int i = 0; i < n; i++) h_in[i] = 0.75f * (i % 11) - 3.0f;
  float *in, *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  clamp_sums<<<blocks, threads>>>(in, out, n);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; b++) {
    for (int t = 0; t < threads; t++) {
      float sum = 0;
      for (int c = t - 2 < 0 ? 0 : t - 2; c <= (t + 2 < 63 ? t + 2 : 63); c++) {
        int i = b * 64 + c;
        sum += h_in[i < n - 1 ? i : n - 1];
      }
      double clamped = sum > -10.0f ? sum : -10.0f;
      float expected = (float)((clamped < 10.5 ? clamped : 10.5) + (t < 3 ? t : 3));
      if (h_out[b * threads + t] != expected) {
        printf("FAIL: out[%d] is %f, expected %f\n", b * threads + t, h_out[b * threads + t], expected);
        return 1;
      }
    }
  }
  printf("PASS\n");
  return 0;
}
