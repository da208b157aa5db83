// A large per-thread array that lives across __syncthreads(): 32 KiB per thread, 256 threads,
// 8 MiB per block, more than a thread's stack holds.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define STATE 32768

__global__ void mix(const unsigned *seeds, unsigned *out)
{
    __shared__ unsigned block_seed;
    unsigned char state[STATE];
    unsigned seed = seeds[blockIdx.x * blockDim.x + threadIdx.x];
    for (int i = 0; i < STATE; ++i)
        state[i] = (unsigned char)(seed * 31u + i * 7u);
    if (threadIdx.x == 0)
        block_seed = seed;
    __syncthreads();
    unsigned sum = block_seed;
    for (int i = 0; i < STATE; i += 3)
        sum += state[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main()
{
    const int block = 256, blocks = 6, n = block * blocks;
    std::vector<unsigned> seeds(n), out(n);
    for (int i = 0; i < n; ++i)
        seeds[i] = i * 2654435761u;
    unsigned *ds, *dout;
    cudaMalloc(&ds, n * sizeof(unsigned));
    cudaMalloc(&dout, n * sizeof(unsigned));
    cudaMemcpy(ds, seeds.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
    mix<<<blocks, block>>>(ds, dout);
    cudaMemcpy(out.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        unsigned sum = seeds[i / block * block];
        for (int k = 0; k < STATE; k += 3)
            sum += (unsigned char)(seeds[i] * 31u + k * 7u);
        if (out[i] != sum) {
            printf("FAIL: out[%d] = %u, expected %u\n", i, out[i], sum);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
