// Lambdas stored in local variables of device code and called there: capturing by reference
// (and seeing later changes), by value (a copy taken at the declaration), by default ([&], [=]),
// generic (auto parameters), with returns inside a switch, reading threadIdx, called in a loop,
// declared before a warp shuffle and a barrier and called after them, and one that itself holds
// a barrier or a tile's shuffle (inlined like a synchronizing __device__ function).
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

struct Pair {
  int lo, hi;
};

__device__ int scaled(int v) { return 2 * v; }

__global__ void lambdas(const int *in, int *out) {
  __shared__ int tile[64];
  const auto block = cg::this_thread_block();
  const auto warp = cg::tiled_partition<32>(block);
  const unsigned t = threadIdx.x;
  Pair p;
  p.lo = in[t];
  p.hi = in[t] + 100;
  int bias = 5;
  auto pick = [&p](unsigned i) -> const int {
    switch (i) {
      case 0:
        return p.lo;
      case 1:
        return p.hi;
    }
    return -1;
  };
  auto add_bias = [bias](int v) { return v + bias; };  // bias is 5 here, whatever it becomes
  auto plus_lane = [&](auto v) { return v + (int)threadIdx.x + bias; };
  auto by_copy = [=](int v) { return v * bias + scaled(t); };
  auto publish = [&](int v) {
    tile[t] = v;
    __syncthreads();
    return tile[(t + 1) % blockDim.x];
  };
  bias = 7;
  auto swap_pairs = [&](int v) { return warp.shfl_xor(v, 1); };
  p.lo += swap_pairs(p.lo);
  block.sync();
  int total = 0;
  for (unsigned i = 0; i < 3; i++) total += pick(i);
  int neighbour = publish(total);
  out[t * 6 + 0] = total;
  out[t * 6 + 1] = add_bias(1);
  out[t * 6 + 2] = plus_lane(10);
  out[t * 6 + 3] = (int)plus_lane(0.5);
  out[t * 6 + 4] = by_copy(1);
  out[t * 6 + 5] = neighbour;
}

int main() {
  const int n = 64;
  int *in, *out;
  cudaMallocManaged(&in, sizeof(int) * n);
  cudaMallocManaged(&out, sizeof(int) * n * 6);
  for (int i = 0; i < n; i++) in[i] = i * 3 - 20;
  lambdas<<<1, n>>>(in, out);
  cudaDeviceSynchronize();
  for (int t = 0; t < n; t++) {
    int lo = in[t] + in[t ^ 1], total = lo + in[t] + 100 - 1;
    int u = (t + 1) % n, neighbour = in[u] + in[u ^ 1] + in[u] + 100 - 1;
    int expected[6] = {total, 6, 10 + t + 7, t + 7, 5 + 2 * t, neighbour};
    for (int k = 0; k < 6; k++)
      if (out[t * 6 + k] != expected[k]) {
        printf("FAIL: thread %d, value %d is %d, expected %d\n", t, k, out[t * 6 + k], expected[k]);
        return 1;
      }
  }
  printf("PASS\n");
  return 0;
}
