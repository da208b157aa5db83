// Reverse each block-sized segment of an array through static __shared__ memory; one top-level
// barrier, and a last segment shorter than the block (n is not a multiple of the block size).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void reverse_segments(const int *in, int *out, int n)
{
    __shared__ int buf[BLOCK];
    int start = blockIdx.x * BLOCK;
    int len = n - start < BLOCK ? n - start : BLOCK;
    int t = threadIdx.x;
    if (t < len)
        buf[t] = in[start + t];
    __syncthreads();
    if (t < len)
        out[start + t] = buf[len - 1 - t];
}

int main()
{
    const int n = 200000 + 77;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = i * 3 + 1;
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    reverse_segments<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int start = 0; start < n; start += BLOCK) {
        int len = n - start < BLOCK ? n - start : BLOCK;
        for (int t = 0; t < len; ++t) {
            if (out[start + t] != in[start + len - 1 - t]) {
                printf("FAIL: out[%d] = %d, expected %d\n", start + t, out[start + t], in[start + len - 1 - t]);
                return 1;
            }
        }
    }
    printf("PASS\n");
    return 0;
}
