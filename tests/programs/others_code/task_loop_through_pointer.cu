// A block's task loop driven through a pointer to a per-thread struct (the "partitioner" of
// Chai's stream compaction): for (t = first(&p); more(&p); t = next(&p)) with barriers inside.
// What first/next store in p is the same in every thread of a block (blockIdx, gridDim, the
// parameters), so the loop's condition is uniform and the kernel takes the normal lowering; the
// blocks also wait for each other's flags (each task waits for the one before it), so all of
// blocks that wait must be running: 600 blocks of 128 threads.  With fewer tasks than blocks
// (the argument), each block waits only for the one before it, and a few threads run them all in
// order, each reusing its storage: so even the fiber fallback runs it (one thread per block, the
// blocks' fiber stacks would exhaust the process's memory mappings).
#include <cstdio>
#include <cstdlib>

struct Partitioner {
  int n_tasks;
  int cut;
  int current;
};

__device__ Partitioner make_partitioner(int n_tasks, float alpha) {
  Partitioner p;
  p.n_tasks = n_tasks;
  p.cut = n_tasks * alpha;
  return p;
}

__device__ int first_task(Partitioner *p) {
  p->current = p->cut + blockIdx.x;
  return p->current;
}

__device__ bool more_tasks(const Partitioner *p) { return p->current < p->n_tasks; }

__device__ int next_task(Partitioner *p) {
  p->current = p->current + gridDim.x;
  return p->current;
}

__device__ void block_sum(int *total, int value, int *scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *total = scratch[0];
}

// Counts the nonzero inputs of each task and chains a running total from task to task.
__global__ void chained_counts(const int *in, int *running, int *flags, int n_tasks, float alpha) {
  extern __shared__ int scratch[];
  __shared__ int count;
  Partitioner p = make_partitioner(n_tasks, alpha);
  for (int task = first_task(&p); more_tasks(&p); task = next_task(&p)) {
    if (threadIdx.x == 0)
      count = 0;
    __syncthreads();
    const int v = in[task * blockDim.x + threadIdx.x];
    block_sum(&count, v != 0, scratch);
    if (threadIdx.x == 0) {
      int before;
      while ((before = atomicAdd(&flags[task], 0)) == 0) {
      }
      running[task] = before - 1 + count;
      atomicAdd(&flags[task + 1], before + count);
    }
    __syncthreads();
  }
}

int main(int argc, char **argv) {
  const int blocks = 600, threads = 128, most_tasks = 1500;
  const int tasks = argc > 1 ? atoi(argv[1]) : most_tasks;
  const float alpha = 0.0f;
  int *in, *running, *flags;
  cudaMalloc(&in, tasks * threads * sizeof(int));
  cudaMalloc(&running, tasks * sizeof(int));
  cudaMalloc(&flags, (tasks + 1) * sizeof(int));
  static int h_in[most_tasks * threads], h_running[most_tasks];
  for (int i = 0; i < tasks * threads; i++)
    h_in[i] = (i * 7 + i / 5) % 3 == 0 ? 0 : i % 11;
  cudaMemcpy(in, h_in, tasks * threads * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(flags, 0, (tasks + 1) * sizeof(int));
  const int one = 1;
  cudaMemcpy(flags, &one, sizeof one, cudaMemcpyHostToDevice);
  chained_counts<<<blocks, threads, threads * sizeof(int)>>>(in, running, flags, tasks, alpha);
  cudaMemcpy(h_running, running, tasks * sizeof(int), cudaMemcpyDeviceToHost);
  int total = 0;
  for (int t = 0; t < tasks; t++) {
    for (int i = 0; i < threads; i++)
      total += h_in[t * threads + i] != 0;
    if (h_running[t] != total) {
      printf("FAIL: running[%d] = %d, expected %d\n", t, h_running[t], total);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
