// Thread loops that may and may not run as SIMD lanes, in one kernel: a plain scaled copy (SIMD),
// a shared-memory histogram through atomicAdd (not SIMD: threads update the same bins), a
// per-block running count kept in a __shared__ scalar (not SIMD), and a warp-synchronous
// volatile read-back (not SIMD).  Results are checked against the host.
#include <cstdio>
#include <cuda_runtime.h>

#define BINS 16

__global__ void mixed(const int *in, int *scaled, int *hist, int *counts, int n)
{
    __shared__ int bins[BINS];
    __shared__ int seen;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < BINS) bins[threadIdx.x] = 0;
    if (threadIdx.x == 0) seen = 0;
    __syncthreads();
    if (i < n) {
        scaled[i] = 3 * in[i] - 1;
        atomicAdd(&bins[in[i] % BINS], 1);
        atomicAdd(&seen, 1);
    }
    __syncthreads();
    if (threadIdx.x < BINS) atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
    if (threadIdx.x == 0) counts[blockIdx.x] = seen;
}

__global__ void running_sum(const int *in, int *out, int n)
{
    // Every thread adds to one per-block scalar: the loop must stay in thread order.
    __shared__ int total;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&total, in[i]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

int main()
{
    const int n = 5000, block = 128, grid = (n + block - 1) / block;
    int *in, *scaled, *hist, *counts, *sums;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&scaled, n * sizeof(int));
    cudaMallocManaged(&hist, BINS * sizeof(int));
    cudaMallocManaged(&counts, grid * sizeof(int));
    cudaMallocManaged(&sums, grid * sizeof(int));
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000;
    for (int b = 0; b < BINS; ++b) hist[b] = 0;
    mixed<<<grid, block>>>(in, scaled, hist, counts, n);
    running_sum<<<grid, block>>>(in, sums, n);
    cudaDeviceSynchronize();
    int expect_hist[BINS] = {0};
    int failures = 0;
    for (int i = 0; i < n; ++i) {
        ++expect_hist[in[i] % BINS];
        if (scaled[i] != 3 * in[i] - 1) { printf("scaled[%d] = %d\n", i, scaled[i]); ++failures; break; }
    }
    for (int b = 0; b < BINS; ++b)
        if (hist[b] != expect_hist[b]) { printf("hist[%d] = %d, expected %d\n", b, hist[b], expect_hist[b]); ++failures; }
    for (int b = 0; b < grid; ++b) {
        int in_block = (b + 1) * block <= n ? block : n - b * block;
        int sum = 0;
        for (int i = b * block; i < b * block + in_block; ++i) sum += in[i];
        if (counts[b] != in_block) { printf("counts[%d] = %d, expected %d\n", b, counts[b], in_block); ++failures; }
        if (sums[b] != sum) { printf("sums[%d] = %d, expected %d\n", b, sums[b], sum); ++failures; }
    }
    if (failures == 0) printf("PASS\n");
    return failures != 0;
}
