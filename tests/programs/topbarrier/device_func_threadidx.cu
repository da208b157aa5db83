// __device__ helper functions that read threadIdx/blockIdx/blockDim/gridDim themselves (not
// passed as arguments), including one helper calling another, and a __host__ __device__ function.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__device__ int global_id()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ int total_threads()
{
    return gridDim.x * blockDim.x;
}

__host__ __device__ int mix(int a, int b)
{
    return (a * 31 + b * 17) % 1000;
}

__device__ int describe()
{
    // Combines the global id with the position inside the block.
    return mix(global_id(), threadIdx.x) + (threadIdx.x == blockDim.x - 1 ? 10000 : 0);
}

__global__ void fill(int *ids, int *codes, int *total, int n)
{
    int i = global_id();
    if (i < n) {
        ids[i] = i;
        codes[i] = describe();
    }
    if (i == 0)
        *total = total_threads();
}

int main()
{
    const int n = 100003, block = 192;
    const int grid = (n + block - 1) / block;
    std::vector<int> ids(n), codes(n);
    int total = 0;
    int *dids, *dcodes, *dtotal;
    cudaMalloc(&dids, n * sizeof(int));
    cudaMalloc(&dcodes, n * sizeof(int));
    cudaMalloc(&dtotal, sizeof(int));
    fill<<<grid, block>>>(dids, dcodes, dtotal, n);
    cudaDeviceSynchronize();
    cudaMemcpy(ids.data(), dids, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(codes.data(), dcodes, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dids);
    cudaFree(dcodes);
    cudaFree(dtotal);
    if (total != grid * block) {
        printf("FAIL: total threads %d, expected %d\n", total, grid * block);
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        int t = i % block;
        int e = mix(i, t) + (t == block - 1 ? 10000 : 0);
        if (ids[i] != i || codes[i] != e) {
            printf("FAIL: index %d: got (%d, %d), expected (%d, %d)\n", i, ids[i], codes[i], i, e);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
