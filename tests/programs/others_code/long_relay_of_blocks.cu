// A long relay between blocks (Chai's persistent blocks, at length): task t, taken by block
// t % gridDim.x, waits until task t - 1 has published its running total, adds its own part and
// publishes in turn: 64 blocks of 100 tasks each, 6,400 hand-offs, each to another block.  Beside
// it, host threads spin on an atomic, as Chai's host workers do.  A block keeps its part across
// the wait in dynamic shared memory (reached through a member function) and, after the wait,
// reads its index through a member function kept as written: both must be the block's own, not
// those of another block that ran on the same OS thread meanwhile.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

struct Where {
  __device__ int lane() const { return threadIdx.x; }
  __device__ int block() const { return blockIdx.x; }
};

struct Stash {
  __device__ int *data() const {
    extern __shared__ int stash[];
    return stash;
  }
};

__global__ void relay(const int *in, long long *totals, int *ready, int *who, int *out, int tasks) {
  int *part = Stash().data();
  for (int task = blockIdx.x; task < tasks; task += gridDim.x) {
    part[threadIdx.x] = in[task * blockDim.x + Where().lane()];
    __syncthreads();
    if (threadIdx.x == 0) {
      while (atomicAdd(&ready[task], 0) == 0) {
      }
      who[task] = Where().block();
      long long total = task == 0 ? 0 : totals[task - 1];
      for (int i = 0; i < blockDim.x; ++i)
        total += part[i];
      totals[task] = total;
      __threadfence();
      atomicAdd(&ready[task + 1], 1);
    }
    __syncthreads();
    out[task * blockDim.x + threadIdx.x] = part[Where().lane()] * 2 + Where().block();
    __syncthreads();
  }
}

int main() {
  const int blocks = 64, threads = 64, tasks = blocks * 100, spinners = 4;
  std::vector<int> h_in(tasks * threads), h_who(tasks), h_out(tasks * threads);
  std::vector<long long> h_totals(tasks);
  for (int i = 0; i < tasks * threads; ++i)
    h_in[i] = (i * 37 + i / 7) % 101 - 50;
  int *in, *ready, *who, *out;
  long long *totals;
  cudaMalloc(&in, tasks * threads * sizeof(int));
  cudaMalloc(&ready, (tasks + 1) * sizeof(int));
  cudaMalloc(&who, tasks * sizeof(int));
  cudaMalloc(&out, tasks * threads * sizeof(int));
  cudaMalloc(&totals, tasks * sizeof(long long));
  cudaMemcpy(in, h_in.data(), tasks * threads * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(ready, 0, (tasks + 1) * sizeof(int));
  const int one = 1;
  cudaMemcpy(ready, &one, sizeof one, cudaMemcpyHostToDevice);

  std::atomic<bool> done(false);
  std::atomic<long long> spins(0);
  std::vector<std::thread> host;
  for (int s = 0; s < spinners; ++s)
    host.emplace_back([&] {
      long long mine = 0;
      while (!done.load())
        ++mine;
      spins += mine;
    });
  relay<<<blocks, threads, threads * sizeof(int)>>>(in, totals, ready, who, out, tasks);
  cudaDeviceSynchronize();
  done = true;
  for (std::thread &t : host)
    t.join();

  cudaMemcpy(h_totals.data(), totals, tasks * sizeof(long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_who.data(), who, tasks * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_out.data(), out, tasks * threads * sizeof(int), cudaMemcpyDeviceToHost);
  long long total = 0;
  for (int t = 0; t < tasks; ++t) {
    for (int i = 0; i < threads; ++i) {
      const int at = t * threads + i;
      total += h_in[at];
      if (h_out[at] != h_in[at] * 2 + t % blocks) {
        printf("FAIL: out[%d][%d] = %d, expected %d\n", t, i, h_out[at], h_in[at] * 2 + t % blocks);
        return 1;
      }
    }
    if (h_who[t] != t % blocks || h_totals[t] != total) {
      printf("FAIL: task %d: block %d, total %lld; expected block %d, total %lld\n", t, h_who[t], h_totals[t],
             t % blocks, total);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
