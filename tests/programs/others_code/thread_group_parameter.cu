// A __device__ function taking any group as a cooperative_groups::thread_group (the
// simpleCooperativeGroups sample): a tree reduction over the group through shared memory,
// called with the whole block and with tiles of 16 of it; thread_rank, size and sync of the
// group it was given.
#include <cooperative_groups.h>
#include <cstdio>

using namespace cooperative_groups;

__device__ int group_sum(thread_group g, int *x, int val) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x[lane] = val;
    g.sync();
    if (lane < i) val += x[lane + i];
    g.sync();
  }
  return g.thread_rank() == 0 ? val : -1;
}

__global__ void sums(int *block_sums, int *tile_sums) {
  extern __shared__ int workspace[];
  thread_block block = this_thread_block();
  int total = group_sum(block, workspace, block.thread_rank());
  if (block.thread_rank() == 0) block_sums[blockIdx.x] = total;
  block.sync();
  thread_block_tile<16> tile = tiled_partition<16>(block);
  int offset = block.thread_rank() - tile.thread_rank();
  int part = group_sum(tile, workspace + offset, tile.thread_rank() + blockIdx.x);
  if (tile.thread_rank() == 0) tile_sums[blockIdx.x * (block.size() / 16) + offset / 16] = part;
}

int main() {
  const int threads = 64, blocks = 3, tiles = threads / 16;
  int h_block[blocks], h_tile[blocks * tiles];
  int *d_block, *d_tile;
  cudaMalloc(&d_block, sizeof h_block);
  cudaMalloc(&d_tile, sizeof h_tile);
  sums<<<blocks, threads, threads * sizeof(int)>>>(d_block, d_tile);
  cudaMemcpy(h_block, d_block, sizeof h_block, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_tile, d_tile, sizeof h_tile, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; b++) {
    if (h_block[b] != threads * (threads - 1) / 2) {
      printf("FAIL: block %d summed %d\n", b, h_block[b]);
      return 1;
    }
    for (int t = 0; t < tiles; t++) {
      if (h_tile[b * tiles + t] != 15 * 16 / 2 + 16 * b) {
        printf("FAIL: tile %d of block %d summed %d\n", t, b, h_tile[b * tiles + t]);
        return 1;
      }
    }
  }
  printf("PASS\n");
  return 0;
}
