// Cooperative groups declared `auto` in kernel templates, where clang cannot deduce the type
// before instantiation: this_thread_block(), tiled_partition<N>(...), coalesced_threads().
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <typename T, int TILE>
__global__ void tile_sums(const T *in, T *tile_out, T *block_out) {
  auto block = cg::this_thread_block();
  const auto tile = cg::tiled_partition<TILE>(block);
  __shared__ T partial[64];
  T v = in[blockIdx.x * blockDim.x + threadIdx.x];
  T sum = cg::reduce(tile, v, cg::plus<T>());
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = sum;
  cg::sync(block);
  if (block.thread_rank() == 0) {
    T total = 0;
    for (int i = 0; i < (int)tile.meta_group_size(); i++) total += partial[i];
    block_out[blockIdx.x] = total;
  }
  auto active = cg::coalesced_threads();
  if (tile.thread_rank() == 0) tile_out[(blockIdx.x * blockDim.x + threadIdx.x) / TILE] = sum + active.size() * 0;
}

int main() {
  const int blocks = 3, threads = 128, tile = 16, n = blocks * threads;
  int *in, *tiles, *sums;
  cudaMallocManaged(&in, sizeof(int) * n);
  cudaMallocManaged(&tiles, sizeof(int) * n / tile);
  cudaMallocManaged(&sums, sizeof(int) * blocks);
  for (int i = 0; i < n; i++) in[i] = (i * 7) % 13 - 4;
  tile_sums<int, tile><<<blocks, threads>>>(in, tiles, sums);
  cudaDeviceSynchronize();
  for (int b = 0; b < blocks; b++) {
    int expected = 0;
    for (int i = 0; i < threads; i++) expected += in[b * threads + i];
    if (sums[b] != expected) {
      printf("FAIL: block %d sums to %d, expected %d\n", b, sums[b], expected);
      return 1;
    }
  }
  for (int t = 0; t < n / tile; t++) {
    int expected = 0;
    for (int i = 0; i < tile; i++) expected += in[t * tile + i];
    if (tiles[t] != expected) {
      printf("FAIL: tile %d sums to %d, expected %d\n", t, tiles[t], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
