// CUDA 12.8's scoped atomics with explicit memory orders (__nv_atomic_*), contended by every
// thread of a grid: integer and floating-point fetch_add, fetch_max through a compare-exchange
// loop on the float's bits (the usual atomic float max), exchange, store/load and fences.
#include <cstdio>

__device__ void atomic_float_max(float *address, float value) {
  unsigned int *bits = (unsigned int *)address;
  unsigned int seen = __nv_atomic_load_n(bits, __NV_ATOMIC_RELAXED);
  while (value > __uint_as_float(seen)) {
    if (__nv_atomic_compare_exchange_n(bits, &seen, __float_as_uint(value), false, __NV_ATOMIC_RELAXED,
                                       __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE))
      break;
  }
}

__global__ void contend(int *count, float *sum, float *largest, unsigned long long *bits, int *last, int *flag,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_atomic_fetch_add(count, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_add(sum, 0.5f, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
  atomic_float_max(largest, (float)((i * 37) % n));
  __nv_atomic_fetch_or(bits, 1ull << (i % 64), __NV_ATOMIC_ACQ_REL);
  __nv_atomic_fetch_max(last, i, __NV_ATOMIC_SEQ_CST);
  __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_SYSTEM);
  if (i == 0) __nv_atomic_store_n(flag, 7, __NV_ATOMIC_RELEASE);
}

__global__ void read_back(int *flag, int *out) {
  int old = __nv_atomic_exchange_n(flag, 9, __NV_ATOMIC_ACQ_REL);
  out[0] = old;
  out[1] = __nv_atomic_load_n(flag, __NV_ATOMIC_ACQUIRE);
}

int main() {
  const int n = 3000;
  int *count, *last, *flag, *out;
  float *sum, *largest;
  unsigned long long *bits;
  cudaMalloc(&count, sizeof(int));
  cudaMalloc(&last, sizeof(int));
  cudaMalloc(&flag, sizeof(int));
  cudaMalloc(&out, 2 * sizeof(int));
  cudaMalloc(&sum, sizeof(float));
  cudaMalloc(&largest, sizeof(float));
  cudaMalloc(&bits, sizeof(unsigned long long));
  cudaMemset(count, 0, sizeof(int));
  cudaMemset(last, 0, sizeof(int));
  cudaMemset(flag, 0, sizeof(int));
  cudaMemset(sum, 0, sizeof(float));
  cudaMemset(largest, 0, sizeof(float));
  cudaMemset(bits, 0, sizeof(unsigned long long));
  contend<<<(n + 127) / 128, 128>>>(count, sum, largest, bits, last, flag, n);
  read_back<<<1, 1>>>(flag, out);
  int h_count, h_last, h_out[2];
  float h_sum, h_largest;
  unsigned long long h_bits;
  cudaMemcpy(&h_count, count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_last, last, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_sum, sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_largest, largest, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_bits, bits, sizeof h_bits, cudaMemcpyDeviceToHost);
  float expected_largest = 0;
  for (int i = 0; i < n; i++)
    if ((float)((i * 37) % n) > expected_largest) expected_largest = (float)((i * 37) % n);
  if (h_count != n || h_sum != 0.5f * n || h_largest != expected_largest || h_bits != ~0ull || h_last != n - 1 ||
      h_out[0] != 7 || h_out[1] != 9) {
    printf("FAIL: count %d, sum %f, largest %f, bits %llx, last %d, flag %d then %d\n", h_count, h_sum, h_largest,
           h_bits, h_last, h_out[0], h_out[1]);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
