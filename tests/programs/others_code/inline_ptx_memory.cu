// Memory through inline PTX: cp.async of 16 bytes from global into __shared__ memory at an
// address from __cvta_generic_to_shared (a 32-bit shared address, offset in PTX), with the
// source size's zero fill and the predicated form, its commit and wait, __syncthreads(), then
// reads of other threads' copies; ld.shared/st.shared through cvta.to.shared; ld.acquire and
// st.release, ld/st.volatile vectors, atom and red.
#include <cstdint>
#include <cstdio>

#define BLOCK 64
#define BLOCKS 4
#define STRIDE 10

__device__ __forceinline__ void copy16(void *smem, const void *gmem, bool full) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  int src_bytes = full ? 16 : 4;  // the rest zero-filled
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem), "n"(16),
               "r"(src_bytes));
}

__device__ __forceinline__ void copy16_if(void *smem, const void *gmem, bool predicate) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n @p cp.async.cg.shared.global [%1], [%2], %3;\n}\n"
               ::"r"((int)predicate), "r"(s), "l"(gmem), "n"(16));
}

template <int n>
__device__ __forceinline__ void wait_group() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }

__global__ void stage(const int4 *in, int *out, unsigned *counters, int *flags) {
  __shared__ int4 tile[BLOCK];
  __shared__ int4 guarded[BLOCK];
  __shared__ unsigned words[BLOCK];
  int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  guarded[t] = make_int4(-1, -1, -1, -1);
  copy16(&tile[t], &in[i], t % 4 != 3);
  copy16_if(&guarded[t], &in[i], t % 2 == 0);
  asm volatile("cp.async.commit_group;\n" ::);
  wait_group<0>();
  __syncthreads();
  int4 mine = tile[(t + 1) % BLOCK], other = guarded[(t + 5) % BLOCK];  // other threads' copies
  out[i * STRIDE] = mine.x + mine.y + mine.z + mine.w;
  out[i * STRIDE + 1] = other.x + other.y + other.z + other.w;

  uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(&words[0]));
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(at + 4 * t), "r"(3u * t + 1) : "memory");
  __syncthreads();
  unsigned neighbour;
  asm volatile("ld.shared.u32 %0, [%1+8];" : "=r"(neighbour) : "r"(at + 4 * (t % (BLOCK - 2))));
  out[i * STRIDE + 2] = (int)neighbour;
  unsigned long long generic;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvta.shared.u64 %0, a; }" : "=l"(generic) : "l"(&words[t]));
  out[i * STRIDE + 3] = (unsigned *)generic == &words[t];

  unsigned old;
  asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counters) : "memory");
  asm volatile("red.global.max.s32 [%0], %1;" ::"l"(counters + 1), "r"(i) : "memory");
  unsigned cas;
  asm volatile("atom.cas.b32 %0, [%1], %2, %3;" : "=r"(cas) : "l"(counters + 2 + blockIdx.x), "r"(0u), "r"(i + 1));
  out[i * STRIDE + 4] = old < BLOCK * BLOCKS;
  out[i * STRIDE + 5] = cas == 0 ? 1 : 0;  // one thread per block finds the 0

  if (t == 0) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flags + blockIdx.x), "r"(blockIdx.x + 10) : "memory");
  }
  int seen;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(flags + blockIdx.x) : "memory");
  } while (seen == 0);
  out[i * STRIDE + 6] = seen;
  int4 v;
  asm volatile("ld.volatile.global.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(in + i));
  asm volatile("st.volatile.global.v2.s32 [%0], {%1, %2};" ::"l"(out + i * STRIDE + 7), "r"(v.x + v.w), "r"(0)
               : "memory");
}

int main() {
  const int n = BLOCK * BLOCKS;
  int4 *in;
  int *out, *flags;
  unsigned *counters;
  cudaMallocManaged(&in, n * sizeof(int4));
  cudaMallocManaged(&out, n * STRIDE * sizeof(int));
  cudaMallocManaged(&counters, (2 + BLOCKS) * sizeof(unsigned));
  cudaMallocManaged(&flags, BLOCKS * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = make_int4(i, 2 * i, 3 * i, 4 * i + 1);
  for (int k = 0; k < 2 + BLOCKS; ++k) counters[k] = 0;
  for (int b = 0; b < BLOCKS; ++b) flags[b] = 0;
  stage<<<BLOCKS, BLOCK>>>(in, out, counters, flags);
  cudaDeviceSynchronize();
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    int t = i % BLOCK, base = i - t;
    int j = base + (t + 1) % BLOCK, k = base + (t + 5) % BLOCK;
    int full = j % 4 != 3 ? 10 * j + 1 : j;            // 4 of 16 bytes: only .x, the rest zeros
    int guarded = k % 2 == 0 ? 10 * k + 1 : -4;        // not copied: the -1s stay
    int want[8] = {full, guarded, 3 * ((t % (BLOCK - 2)) + 2) + 1, 1, 1, -1, base / BLOCK + 10, 5 * i + 1};
    for (int r = 0; r < 8; ++r) {
      if (r == 5) continue;  // checked per block below
      if (out[i * STRIDE + r] != want[r] && failures++ < 10)
        printf("thread %d result %d: %d, expected %d\n", i, r, out[i * STRIDE + r], want[r]);
    }
  }
  for (int b = 0; b < BLOCKS; ++b) {
    int winners = 0;
    for (int t = 0; t < BLOCK; ++t) winners += out[(b * BLOCK + t) * STRIDE + 5];
    if ((winners != 1 || counters[2 + b] == 0) && failures++ < 10) printf("block %d: %d CAS winners\n", b, winners);
  }
  if ((counters[0] != (unsigned)n || counters[1] != (unsigned)n - 1) && failures++ < 10)
    printf("counters %u %u\n", counters[0], counters[1]);
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
