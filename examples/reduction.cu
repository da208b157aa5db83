// Block reduction in shared memory, every __syncthreads() at the top level of the kernel:
// an unrolled tree for blocks of 256 threads, then the host adds the per-block sums.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 256

// Each block sums BLOCK inputs (zeros past the end) and writes one partial sum.  Every step of
// the tree halves the number of active threads; the barriers sit between the steps, outside the
// ifs, so all threads of the block reach each one.
__global__ void block_sum(const int *in, long long *partial, int n)
{
    __shared__ long long s[BLOCK];
    unsigned tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    if (tid < 128) s[tid] += s[tid + 128];
    __syncthreads();
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
    if (tid < 32) s[tid] += s[tid + 32];
    __syncthreads();
    if (tid < 16) s[tid] += s[tid + 16];
    __syncthreads();
    if (tid < 8) s[tid] += s[tid + 8];
    __syncthreads();
    if (tid < 4) s[tid] += s[tid + 4];
    __syncthreads();
    if (tid < 2) s[tid] += s[tid + 2];
    __syncthreads();
    if (tid == 0) partial[blockIdx.x] = s[0] + s[1];
}

int main()
{
    const int n = 1000003;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<int> in(n);
    long long expected = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = ((i % 1000) * 7919) % 1000 - 500;
        expected += in[i];
    }
    int *din;
    long long *dpartial;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dpartial, blocks * sizeof(long long));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    block_sum<<<blocks, BLOCK>>>(din, dpartial, n);
    cudaDeviceSynchronize();
    std::vector<long long> partial(blocks);
    cudaMemcpy(partial.data(), dpartial, blocks * sizeof(long long), cudaMemcpyDeviceToHost);
    // Second stage on the host: add the per-block partial sums.
    long long total = 0;
    for (long long p : partial)
        total += p;
    cudaFree(din);
    cudaFree(dpartial);
    if (total != expected) {
        printf("FAIL: sum %lld, expected %lld\n", total, expected);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
