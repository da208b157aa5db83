// Synchronizing functions called as FlashInfer calls threadblock_sync_state and compute_qk: the
// first template arguments written and the rest deduced (one from pointer arithmetic on a
// __shared__ buffer), and trailing parameters left to their default arguments, which read
// threadIdx.
#include <cstdio>

#define W 8
#define H 4

template <int width, typename T>
__device__ void stash(T *smem, T value, const unsigned tx = threadIdx.x, const unsigned ty = threadIdx.y) {
  smem[ty * width + tx] = value;
  __syncthreads();
}

template <int width, typename T, typename S>
__device__ S row_sum(const T *smem, S scale, unsigned row = threadIdx.y) {
  S sum = 0;
  for (int k = 0; k < width; ++k) sum += smem[row * width + k] * scale;
  __syncthreads();
  return sum;
}

__device__ int shifted(int *smem, int v, int shift = 3) {
  smem[threadIdx.y * W + threadIdx.x] = v << shift;
  __syncthreads();
  int next = smem[(threadIdx.y * W + threadIdx.x + 1) % (W * H)];
  __syncthreads();
  return next;
}

template <typename T>
__global__ void kernel(T *out, int *more) {
  __shared__ T buffer[2 * W * H];
  __shared__ int words[W * H];
  T value = (T)(threadIdx.x + 10 * threadIdx.y);
  stash<W>(buffer + W * H, value);
  out[threadIdx.y * W + threadIdx.x] = row_sum<W>(buffer + W * H, (T)2, (threadIdx.y + 1) % H);
  more[threadIdx.y * W + threadIdx.x] = shifted(words, (int)threadIdx.x) + shifted(words, 1, 0);
}

int main() {
  float *out;
  int *more;
  cudaMallocManaged(&out, W * H * sizeof(float));
  cudaMallocManaged(&more, W * H * sizeof(int));
  kernel<float><<<1, dim3(W, H)>>>(out, more);
  cudaDeviceSynchronize();
  int failures = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      int row = (y + 1) % H, t = y * W + x, next = (t + 1) % (W * H);
      float want = 0;
      for (int k = 0; k < W; ++k) want += (float)(k + 10 * row) * 2;
      int want_more = ((next % W) << 3) + 1;
      if ((out[t] != want || more[t] != want_more) && failures++ < 10)
        printf("thread (%d, %d): %g %d, expected %g %d\n", x, y, out[t], more[t], want, want_more);
    }
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
