// Shared-memory histogram: bins zeroed by a strided loop, input staged chunk by chunk through a
// shared buffer (two barriers inside a block-uniform loop), atomicAdd on shared bins (each thread
// counts bytes another thread staged), then the block's bins merged into global memory.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BINS 256
#define CHUNK 512

__global__ void histogram(const unsigned char *data, int n, unsigned *global_bins)
{
    __shared__ unsigned bins[BINS];
    __shared__ unsigned char stage[CHUNK];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();
    for (int base = blockIdx.x * CHUNK; base < n; base += gridDim.x * CHUNK) {
        for (int k = threadIdx.x; k < CHUNK; k += blockDim.x)
            stage[k] = base + k < n ? data[base + k] : 0;
        __syncthreads();
        // Consume in the reverse order, so each thread counts bytes staged by other threads.
        for (int k = CHUNK - 1 - (int)threadIdx.x; k >= 0; k -= blockDim.x)
            if (base + k < n)
                atomicAdd(&bins[stage[k]], 1u);
        __syncthreads();
    }
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b])
            atomicAdd(&global_bins[b], bins[b]);
}

int main()
{
    const int n = 1000000 + 333;
    std::vector<unsigned char> data(n);
    unsigned s = 7u;
    for (int i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        data[i] = (unsigned char)((s >> 24) ^ (s >> 13 & 0x0F));
    }
    unsigned char *ddata;
    unsigned *dbins;
    std::vector<unsigned> bins(BINS, 0);
    cudaMalloc(&ddata, n);
    cudaMalloc(&dbins, BINS * sizeof(unsigned));
    cudaMemcpy(ddata, data.data(), n, cudaMemcpyHostToDevice);
    cudaMemcpy(dbins, bins.data(), BINS * sizeof(unsigned), cudaMemcpyHostToDevice);
    histogram<<<40, 192>>>(ddata, n, dbins);
    cudaDeviceSynchronize();
    cudaMemcpy(bins.data(), dbins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(ddata);
    cudaFree(dbins);
    std::vector<unsigned> e(BINS, 0);
    for (int i = 0; i < n; ++i)
        e[data[i]]++;
    for (int b = 0; b < BINS; ++b)
        if (bins[b] != e[b]) {
            printf("FAIL: bin %d = %u, expected %u\n", b, bins[b], e[b]);
            return 1;
        }
    printf("PASS\n");
    return 0;
}
