// cooperative_groups::coalesced_threads(): the lanes of a warp that reach the call together (a
// warp-aggregated atomic: the group's first thread reserves room for the whole group, then
// shares the base with shfl, and each thread adds its rank), its size, thread_rank and sync.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__device__ int aggregated_increment(int *counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int base = 0;
  if (active.thread_rank() == 0) base = atomicAdd(counter, active.size());
  active.sync();
  return active.shfl(base, 0) + active.thread_rank();
}

__global__ void compact(const int *in, int n, int *out, int *count, int *group_sizes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] % 3 != 0) {
    auto g = cg::coalesced_threads();
    group_sizes[i] = g.num_threads();
    out[aggregated_increment(count)] = in[i];
  }
}

int main() {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  int h_in[n], h_out[n], h_sizes[n], h_count = 0;
  for (int i = 0; i < n; i++) h_in[i] = (i * 7) % 23;
  int *in, *out, *count, *sizes;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMalloc(&sizes, sizeof h_sizes);
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  cudaMemset(out, 0xff, sizeof h_out);
  cudaMemset(count, 0, sizeof(int));
  compact<<<blocks, threads>>>(in, n, out, count, sizes);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_sizes, sizes, sizeof h_sizes, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_count, count, sizeof(int), cudaMemcpyDeviceToHost);
  int expected = 0, seen[23] = {0}, wanted[23] = {0};
  for (int i = 0; i < n; i++) {
    if (h_in[i] % 3 == 0) continue;
    expected++;
    wanted[h_in[i]]++;
    int warp = i / 32, in_warp = 0;
    for (int j = warp * 32; j < warp * 32 + 32 && j < n; j++) in_warp += h_in[j] % 3 != 0;
    if (h_sizes[i] != in_warp) {
      printf("FAIL: thread %d saw a group of %d, expected %d\n", i, h_sizes[i], in_warp);
      return 1;
    }
  }
  if (h_count != expected) {
    printf("FAIL: count is %d, expected %d\n", h_count, expected);
    return 1;
  }
  for (int k = 0; k < h_count; k++) {
    if (h_out[k] < 0 || h_out[k] >= 23) {
      printf("FAIL: out[%d] is %d\n", k, h_out[k]);
      return 1;
    }
    seen[h_out[k]]++;
  }
  for (int v = 0; v < 23; v++) {
    if (seen[v] != wanted[v]) {
      printf("FAIL: value %d written %d times, expected %d\n", v, seen[v], wanted[v]);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
