// Overloaded __device__ functions that use warp shuffles (the bitonic-exchange helpers of a
// segmented sort): each call is inlined with the overload C++ chooses for it.  In a kernel
// template the call depends on the template's parameters, and the overloads differ in how many
// arguments they take; in a plain kernel clang resolves the call, here between overloads that
// differ only in their parameter types, one of them reached through a helper that is not
// overloaded.
#include <cstdio>

// Keeps the smaller key in the lower lane of each pair of lanes `mask` apart.
template <class K>
__device__ void exchange(K &k0, int mask, int lower) {
  K other = __shfl_xor_sync(0xffffffff, k0, mask);
  k0 = lower ? (other < k0 ? other : k0) : (other < k0 ? k0 : other);
}

// The same on two keys a thread holds: the first pair, then the second.
template <class K>
__device__ void exchange(K &k0, K &k1, int mask, int lower) {
  K other0 = __shfl_xor_sync(0xffffffff, k0, mask);
  K other1 = __shfl_xor_sync(0xffffffff, k1, mask);
  k0 = lower ? (other0 < k0 ? other0 : k0) : (other0 < k0 ? k0 : other0);
  k1 = lower ? (other1 < k1 ? other1 : k1) : (other1 < k1 ? k1 : other1);
}

template <class K>
__global__ void sort_pairs(K *keys, K *pairs) {
  int lower = (threadIdx.x & 1) == 0;
  K k = keys[threadIdx.x];
  exchange(k, 1, lower);
  keys[threadIdx.x] = k;
  K a = pairs[2 * threadIdx.x], b = pairs[2 * threadIdx.x + 1];
  exchange(a, b, 1, lower);
  pairs[2 * threadIdx.x] = a;
  pairs[2 * threadIdx.x + 1] = b;
}

// Overloads that differ only in a parameter's type: the int one adds its neighbour's value, the
// float one subtracts it.
__device__ int neighbour(int v) { return v + __shfl_down_sync(0xffffffff, v, 1); }
__device__ float neighbour(float v) { return v - __shfl_down_sync(0xffffffff, v, 1); }
__device__ float through_helper(float v) { return 2.0f * neighbour(v); }

__global__ void mixed(int *ints, float *floats) {
  ints[threadIdx.x] = neighbour(ints[threadIdx.x]);
  floats[threadIdx.x] = through_helper(floats[threadIdx.x]);
}

int main() {
  const int n = 32;
  int h_keys[n], h_pairs[2 * n], h_ints[n];
  float h_floats[n];
  for (int i = 0; i < n; i++) {
    h_keys[i] = (i * 37 + 11) % 64;
    h_ints[i] = i;
    h_floats[i] = 0.5f * i;
  }
  for (int i = 0; i < 2 * n; i++) h_pairs[i] = (i * 53 + 7) % 101;
  int expected_keys[n], expected_pairs[2 * n];
  for (int t = 0; t < n; t++) {
    int partner = t ^ 1, lower = (t & 1) == 0;
    int a = h_keys[t], b = h_keys[partner];
    expected_keys[t] = lower ? (a < b ? a : b) : (a < b ? b : a);
    for (int j = 0; j < 2; j++) {
      int c = h_pairs[2 * t + j], d = h_pairs[2 * partner + j];
      expected_pairs[2 * t + j] = lower ? (c < d ? c : d) : (c < d ? d : c);
    }
  }
  int *keys, *pairs, *ints;
  float *floats;
  cudaMalloc(&keys, sizeof h_keys);
  cudaMalloc(&pairs, sizeof h_pairs);
  cudaMalloc(&ints, sizeof h_ints);
  cudaMalloc(&floats, sizeof h_floats);
  cudaMemcpy(keys, h_keys, sizeof h_keys, cudaMemcpyHostToDevice);
  cudaMemcpy(pairs, h_pairs, sizeof h_pairs, cudaMemcpyHostToDevice);
  cudaMemcpy(ints, h_ints, sizeof h_ints, cudaMemcpyHostToDevice);
  cudaMemcpy(floats, h_floats, sizeof h_floats, cudaMemcpyHostToDevice);
  sort_pairs<<<1, n>>>(keys, pairs);
  mixed<<<1, n>>>(ints, floats);
  int out_keys[n], out_pairs[2 * n], out_ints[n];
  float out_floats[n];
  cudaMemcpy(out_keys, keys, sizeof out_keys, cudaMemcpyDeviceToHost);
  cudaMemcpy(out_pairs, pairs, sizeof out_pairs, cudaMemcpyDeviceToHost);
  cudaMemcpy(out_ints, ints, sizeof out_ints, cudaMemcpyDeviceToHost);
  cudaMemcpy(out_floats, floats, sizeof out_floats, cudaMemcpyDeviceToHost);
  for (int t = 0; t < n; t++) {
    if (out_keys[t] != expected_keys[t]) {
      printf("FAIL: keys[%d] is %d, expected %d\n", t, out_keys[t], expected_keys[t]);
      return 1;
    }
    for (int j = 0; j < 2; j++)
      if (out_pairs[2 * t + j] != expected_pairs[2 * t + j]) {
        printf("FAIL: pairs[%d] is %d, expected %d\n", 2 * t + j, out_pairs[2 * t + j], expected_pairs[2 * t + j]);
        return 1;
      }
    // __shfl_down_sync past the last lane gives the lane's own value.
    int below = t + 1 < n ? t + 1 : t;
    if (out_ints[t] != t + below) {
      printf("FAIL: ints[%d] is %d, expected %d\n", t, out_ints[t], t + below);
      return 1;
    }
    float expected = 2.0f * (0.5f * t - 0.5f * below);
    if (out_floats[t] != expected) {
      printf("FAIL: floats[%d] is %f, expected %f\n", t, out_floats[t], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
