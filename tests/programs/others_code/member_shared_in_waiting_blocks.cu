// A __shared__ variable declared in a member function, kept as written, is one variable per OS
// thread, which stands for one per block while a thread runs its blocks one after another.
// Blocks that wait for each other run interleaved on an OS thread as fibers: here block b waits
// for block b + 1, so at one OpenMP thread every block is live at once, and block b + 1 would
// overwrite block b's count before block b reads it back.  Refused at run time, not wrong.
#include <cstdio>

struct Tally {
  __device__ int *slot() const {
    __shared__ int count;
    return &count;
  }
};

__global__ void backwards(int *flags, int *out) {
  int *count = Tally().slot();
  if (threadIdx.x == 0)
    *count = blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    while (atomicAdd(&flags[blockIdx.x + 1], 0) == 0) {
    }
    out[blockIdx.x] = *count;
    atomicAdd(&flags[blockIdx.x], 1);
  }
}

int main() {
  const int blocks = 8;
  int *flags, *out, h_out[blocks];
  cudaMalloc(&flags, (blocks + 1) * sizeof(int));
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMemset(flags, 0, (blocks + 1) * sizeof(int));
  const int one = 1;
  cudaMemcpy(flags + blocks, &one, sizeof one, cudaMemcpyHostToDevice);
  backwards<<<blocks, 32>>>(flags, out);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b)
    if (h_out[b] != b) {
      printf("FAIL: block %d counted %d\n", b, h_out[b]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
