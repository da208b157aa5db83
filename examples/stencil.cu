// 1-D stencil of radius 3: each block loads its tile plus a halo into shared memory, then one
// top-level __syncthreads(); n is not a multiple of the block size.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define RADIUS 3
#define BLOCK 128

// out[i] = in[i-3] + ... + in[i+3], with zeros outside [0, n).  The block stages its BLOCK inputs
// plus RADIUS on each side (the halo) in shared memory, so each input is read from global memory
// about once instead of 2*RADIUS+1 times.
__global__ void stencil_1d(const int *in, int *out, int n)
{
    __shared__ int tile[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    tile[l] = g < n ? in[g] : 0;
    if (threadIdx.x < RADIUS) {  // the first RADIUS threads also load the left and right halo
        int left = g - RADIUS;
        int right = g + BLOCK;
        tile[l - RADIUS] = left >= 0 && left < n ? in[left] : 0;
        tile[l + BLOCK] = right < n ? in[right] : 0;
    }
    __syncthreads();  // the whole tile is loaded before anyone reads a neighbour
    if (g < n) {
        int sum = 0;
        for (int k = -RADIUS; k <= RADIUS; ++k)
            sum += tile[l + k];
        out[g] = sum;
    }
}

int main()
{
    const int n = 100000 + 17;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 31) % 97;
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    stencil_1d<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        int expected = 0;
        for (int k = -RADIUS; k <= RADIUS; ++k)
            if (i + k >= 0 && i + k < n)
                expected += in[i + k];
        if (out[i] != expected) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], expected);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
