// Top-level barrier, a value kept across it, and an early return before it.
#include <cstdio>
#define BLOCK 128

__global__ void reverse_blocks(int *data, int n)
{
    __shared__ int tile[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    tile[threadIdx.x] = data[i];
    __syncthreads();
    data[i] = tile[blockDim.x - 1 - threadIdx.x];
}

int main()
{
    const int n = 4 * BLOCK;
    int *d;
    cudaMallocManaged(&d, n * sizeof(int));
    for (int i = 0; i < n; ++i) d[i] = i;
    reverse_blocks<<<n / BLOCK, BLOCK>>>(d, n);
    cudaDeviceSynchronize();
    printf("%s\n", d[0] == BLOCK - 1 && d[BLOCK] == 2 * BLOCK - 1 ? "PASS" : "FAIL");
    return 0;
}
