// Warp-level inline PTX: a butterfly reduction through shfl.sync.bfly in a __device__ helper
// (FlashInfer's math::shfl_xor_sync), then a block reduction over __shared__ memory between
// __syncthreads(); shfl.sync.down/.up/.idx with segment widths, vote.sync.ballot, activemask,
// redux.sync, match.any.sync and bar.sync, each checked against the host's computation.
#include <cstdio>

#define BLOCK 128
#define BLOCKS 3

__device__ __forceinline__ float shfl_xor_sync(float x, int lane_mask) {
  float y;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(y) : "f"(x), "r"(lane_mask));
  return y;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += shfl_xor_sync(v, offset);
  return v;
}

__device__ __host__ float value(int i) { return (float)((i * 37) % 101) - 50.0f; }

__global__ void reduce(const float *in, float *sums, unsigned *lanes) {
  __shared__ float partial[BLOCK / 32];
  int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  float v = warp_sum(in[i]);
  if (t % 32 == 0) partial[t / 32] = v;
  asm volatile("bar.sync 0;" ::: "memory");
  if (t == 0) {
    float s = 0;
    for (int w = 0; w < BLOCK / 32; ++w) s += partial[w];
    sums[blockIdx.x] = s;
  }
  unsigned *o = lanes + i * 8;
  unsigned down, up, idx, ballot, active, total, same;
  asm volatile("shfl.sync.down.b32 %0, %1, 3, 0x101f, 0xffffffff;" : "=r"(down) : "r"(i));  // width 16
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x1800, 0xffffffff;" : "=r"(up) : "r"(i), "r"(2));  // width 8
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;" : "=r"(idx) : "r"(i * 10), "r"(t % 7), "r"(0xffffffffu));
  asm volatile("{ .reg .pred p; setp.gt.f32 p, %1, 0f00000000; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(ballot) : "f"(in[i]));
  if (t % 2 == 0) asm volatile("activemask.b32 %0;" : "=r"(active));
  else active = 0;
  asm volatile("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(total) : "r"((unsigned)t % 5));
  asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(same) : "r"((unsigned)t % 3));
  o[0] = down; o[1] = up; o[2] = idx; o[3] = ballot; o[4] = active; o[5] = total; o[6] = same; o[7] = 0;
}

int main() {
  const int n = BLOCK * BLOCKS;
  float *in, *sums;
  unsigned *lanes;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&sums, BLOCKS * sizeof(float));
  cudaMallocManaged(&lanes, n * 8 * sizeof(unsigned));
  for (int i = 0; i < n; ++i) in[i] = value(i);
  reduce<<<BLOCKS, BLOCK>>>(in, sums, lanes);
  cudaDeviceSynchronize();
  int failures = 0;
  for (int b = 0; b < BLOCKS; ++b) {
    float s = 0;
    for (int t = 0; t < BLOCK; ++t) s += value(b * BLOCK + t);
    if (sums[b] != s && failures++ < 10) printf("block %d: sum %g, expected %g\n", b, sums[b], s);
  }
  for (int i = 0; i < n; ++i) {
    int t = i % BLOCK, lane = t % 32, warp = i - lane;
    unsigned ballot = 0, total = 0, same = 0;
    for (int k = 0; k < 32; ++k) {
      ballot |= (value(warp + k) > 0 ? 1u : 0u) << k;
      total += (unsigned)(t - lane + k) % 5;
      same |= ((unsigned)(t - lane + k) % 3 == (unsigned)t % 3 ? 1u : 0u) << k;
    }
    unsigned want[8] = {
        (unsigned)(lane % 16 + 3 < 16 ? i + 3 : i),          // down 3 in segments of 16
        (unsigned)(lane % 8 >= 2 ? i - 2 : i),               // up 2 in segments of 8
        (unsigned)((warp + t % 7) * 10),                     // idx: lane t % 7 of the warp
        ballot,
        t % 2 == 0 ? 0x55555555u : 0u,                       // the even lanes reached it
        total, same, 0};
    for (int k = 0; k < 8; ++k)
      if (lanes[i * 8 + k] != want[k] && failures++ < 10)
        printf("thread %d result %d: %#x, expected %#x\n", i, k, lanes[i * 8 + k], want[k]);
  }
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
