// A barrier under a condition on an atomic's result: each thread takes a ticket from its block's
// counter, and only the first `limit` tickets stage a value in shared memory and synchronize.  The
// threads disagree on reaching the barrier: undefined behaviour in CUDA (a located error by
// default); GPUs run it as if the other threads had exited, as --lowering=fallback computes.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void first_tickets(int *counters, int *out, int limit)
{
    __shared__ int s[BLOCK];
    const int ticket = atomicAdd(&counters[blockIdx.x], 1);
    if (ticket < limit) {
        s[ticket] = 10 * ticket + (int)blockIdx.x;
        __syncthreads();
        out[blockIdx.x * BLOCK + ticket] = s[0] + s[(ticket + 1) % limit];
    }
}

int main()
{
    const int blocks = 4, n = blocks * BLOCK, limit = 40;
    std::vector<int> out(n, -1);
    int *dcounters, *dout;
    cudaMalloc(&dcounters, blocks * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemset(dcounters, 0, blocks * sizeof(int));
    cudaMemcpy(dout, out.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    first_tickets<<<blocks, BLOCK>>>(dcounters, dout, limit);
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            const int want = t < limit ? b + 10 * ((t + 1) % limit) + b : -1;
            if (out[b * BLOCK + t] != want) {
                printf("FAIL: out[%d] = %d, expected %d\n", b * BLOCK + t, out[b * BLOCK + t], want);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
