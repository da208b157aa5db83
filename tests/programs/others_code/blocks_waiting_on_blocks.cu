// Blocks that wait for each other through global memory (the "persistent blocks" of Chai's pad
// and stream compaction): block b takes tasks b, b + gridDim.x, ...; a task spins on a flag until
// the task before it, another block's, has finished and set it.  On a GPU a small grid is
// resident at once and the chain advances; blocks run one after the other would wait forever.
#include <cstdio>

__global__ void chained(int *flags, int *ticket, int *order, int *out, int tasks) {
  __shared__ int position;
  for (int task = blockIdx.x; task < tasks; task += gridDim.x) {
    if (threadIdx.x == 0) {
      while (atomicAdd(&flags[task], 0) == 0) {
      }
      position = atomicAdd(ticket, 1);
    }
    __syncthreads();
    out[task * blockDim.x + threadIdx.x] = position * 1000 + threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
      order[task] = position;
      atomicAdd(&flags[task + 1], 1);
    }
  }
}

// The same chain waiting on a volatile flag, published after a fence, as older CUDA code does.
__global__ void chained_volatile(volatile int *flags, int *order, int tasks) {
  for (int task = blockIdx.x; task < tasks; task += gridDim.x) {
    if (threadIdx.x == 0) {
      while (flags[task] == 0) {
      }
      order[task] = flags[task];
      __threadfence();
      flags[task + 1] = flags[task] + 1;
    }
    __syncthreads();
  }
}

int main() {
  const int blocks = 8, threads = 64, tasks = 200;
  int *flags, *ticket, *order, *out;
  cudaMalloc(&flags, (tasks + 1) * sizeof(int));
  cudaMalloc(&ticket, sizeof(int));
  cudaMalloc(&order, tasks * sizeof(int));
  cudaMalloc(&out, tasks * threads * sizeof(int));
  cudaMemset(flags, 0, (tasks + 1) * sizeof(int));
  cudaMemset(ticket, 0, sizeof(int));
  const int one = 1;
  cudaMemcpy(flags, &one, sizeof one, cudaMemcpyHostToDevice);
  chained<<<blocks, threads>>>(flags, ticket, order, out, tasks);
  static int h_order[tasks], h_out[tasks * threads];
  cudaMemcpy(h_order, order, sizeof h_order, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int t = 0; t < tasks; t++) {
    if (h_order[t] != t) {
      printf("FAIL: task %d ran as number %d\n", t, h_order[t]);
      return 1;
    }
    for (int i = 0; i < threads; i++)
      if (h_out[t * threads + i] != t * 1000 + i) {
        printf("FAIL: out[%d][%d] = %d\n", t, i, h_out[t * threads + i]);
        return 1;
      }
  }
  cudaMemset(flags, 0, (tasks + 1) * sizeof(int));
  cudaMemcpy(flags, &one, sizeof one, cudaMemcpyHostToDevice);
  chained_volatile<<<blocks, threads>>>(flags, order, tasks);
  cudaMemcpy(h_order, order, sizeof h_order, cudaMemcpyDeviceToHost);
  for (int t = 0; t < tasks; t++)
    if (h_order[t] != t + 1) {
      printf("FAIL: volatile chain: task %d saw flag %d\n", t, h_order[t]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
