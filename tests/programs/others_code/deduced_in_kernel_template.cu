// A warp-reduction function template called with deduced template arguments inside templates:
// from a block-reduction template that the kernel template calls (the Welford mean and variance
// of a block, T &mean, T &m2n), and from the kernel template itself through a pointer (const T *)
// and a value.  Before the instantiation clang resolves none of these calls: the arguments are
// deduced from the caller's own parameter types.
#include <cmath>
#include <cstdio>

template <typename T>
__device__ void warp_merge(T &mean, T &m2n, int &count) {
  for (int offset = 16; offset > 0; offset /= 2) {
    int count_other = __shfl_down_sync(0xffffffff, count, offset);
    T mean_other = __shfl_down_sync(0xffffffff, mean, offset);
    T m2n_other = __shfl_down_sync(0xffffffff, m2n, offset);
    int total = count + count_other;
    if (count_other > 0) {
      T delta = mean_other - mean;
      mean = (mean * count + mean_other * count_other) / total;
      m2n += m2n_other + delta * delta * count * count_other / total;
      count = total;
    }
  }
}

template <typename T>
__device__ void block_merge(T *partial, int *counts, T &mean, T &m2n, int &count) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  warp_merge(mean, m2n, count);
  if (lane == 0) {
    partial[2 * warp] = mean;
    partial[2 * warp + 1] = m2n;
    counts[warp] = count;
  }
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x / 32;
    mean = lane < warps ? partial[2 * lane] : T(0);
    m2n = lane < warps ? partial[2 * lane + 1] : T(0);
    count = lane < warps ? counts[lane] : 0;
    warp_merge(mean, m2n, count);
  }
}

template <typename T>
__device__ T warp_sum(const T *values, T scale) {
  T v = values[threadIdx.x] * scale;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

template <typename T, typename Out>
__global__ void moments(const T *x, Out *mean_out, Out *var_out, T *sums, int n) {
  __shared__ T partial[64];
  __shared__ int counts[32];
  T mean = 0, m2n = 0;
  int count = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    count++;
    T d = x[i] - mean;
    mean += d / count;
    m2n += d * (x[i] - mean);
  }
  block_merge(partial, counts, mean, m2n, count);
  if (threadIdx.x == 0) {
    mean_out[0] = static_cast<Out>(mean);
    var_out[0] = static_cast<Out>(m2n / count);
  }
  T two = 2;
  sums[threadIdx.x] = warp_sum(x, two);
}

int main() {
  const int n = 1000, threads = 64;
  double h_x[n], h_sums[threads];
  double expected_mean = 0, expected_var = 0;
  for (int i = 0; i < n; i++) {
    h_x[i] = (i * 37 % 101) * 0.25;
    expected_mean += h_x[i];
  }
  expected_mean /= n;
  for (int i = 0; i < n; i++) expected_var += (h_x[i] - expected_mean) * (h_x[i] - expected_mean);
  expected_var /= n;
  double *x, *sums;
  float *mean, *var, h_mean, h_var;
  cudaMalloc(&x, sizeof h_x);
  cudaMalloc(&sums, sizeof h_sums);
  cudaMalloc(&mean, sizeof(float));
  cudaMalloc(&var, sizeof(float));
  cudaMemcpy(x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
  moments<<<1, threads>>>(x, mean, var, sums, n);
  cudaMemcpy(&h_mean, mean, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_var, var, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_sums, sums, sizeof h_sums, cudaMemcpyDeviceToHost);
  if (fabs(h_mean - expected_mean) > 1e-4 * expected_mean) {
    printf("FAIL: mean is %f, expected %f\n", h_mean, expected_mean);
    return 1;
  }
  if (fabs(h_var - expected_var) > 1e-4 * expected_var) {
    printf("FAIL: variance is %f, expected %f\n", h_var, expected_var);
    return 1;
  }
  for (int t = 0; t < threads; t++) {
    double expected = 0;
    for (int l = t / 32 * 32; l < t / 32 * 32 + 32; l++) expected += 2 * h_x[l];
    if (h_sums[t] != expected) {
      printf("FAIL: sums[%d] is %f, expected %f\n", t, h_sums[t], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
