// Macros inside expressions the translation rewrites: a function-like macro for an index, an
// object-like macro naming a math function and a function-like macro around an intrinsic, used
// in a kernel with a barrier (so the kernel body is rebuilt from the IR, not kept as text).
#include <cmath>
#include <cstdio>

#define IDX(i, j) (i) * width + (j)
#define ROOT sqrtf
#define MUL24(a, b) __mul24(a, b)
#define TILE 32

__global__ void rows_shifted(float *out, int width) {
  __shared__ float row[TILE];
  int x = MUL24(blockIdx.x, blockDim.x) + threadIdx.x;
  row[threadIdx.x] = ROOT((float)x);
  __syncthreads();
  out[IDX(blockIdx.y, x)] = row[(threadIdx.x + 1) % TILE] + blockIdx.y;
}

int main() {
  const int width = 4 * TILE, height = 3;
  float *d;
  cudaMalloc(&d, width * height * sizeof(float));
  rows_shifted<<<dim3(width / TILE, height), TILE>>>(d, width);
  float h[width * height];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int source = x / TILE * TILE + (x % TILE + 1) % TILE;
      float expected = std::sqrt((float)source) + y;
      if (std::fabs(h[y * width + x] - expected) > 1e-5f * expected) {
        printf("FAIL: (%d, %d) is %f, expected %f\n", x, y, h[y * width + x], expected);
        return 1;
      }
    }
  printf("PASS\n");
  return 0;
}
