// Barriers inside block-uniform conditionals: `if (blockIdx.x == 0) { ... loop with barrier ... }`,
// an if/else on blockIdx.x parity with a different barrier in each branch, and an `if` on a
// kernel argument; the per-block work around them has no barriers.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void roles(const int *in, int *out, int *summary, int n, int header, int mode)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (i < n)
        out[i] = in[i] * 2;
    if (blockIdx.x == 0) {
        // Block 0 also finds the maximum of the first `header` elements.
        s[t] = t < header ? in[t] : -1;
        __syncthreads();
        for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
            if (t < stride)
                s[t] = s[t] > s[t + stride] ? s[t] : s[t + stride];
            __syncthreads();
        }
        if (t == 0)
            summary[0] = s[0];
        __syncthreads();
    }
    if (blockIdx.x % 2 == 1) {
        s[t] = i < n ? in[i] : 0;
        __syncthreads();
        if (i < n)
            out[i] += s[BLOCK - 1 - t];
    } else {
        s[t] = i < n ? in[i] : 0;
        __syncthreads();
        if (i < n)
            out[i] -= s[(t + 1) % BLOCK];
    }
    if (mode == 1) {
        __syncthreads();  // all reads of s above are done before it is overwritten
        s[t] = t * 3;
        __syncthreads();
        if (i < n)
            out[i] += s[(t + 5) % BLOCK];
    }
}

int main()
{
    const int n = 40000, header = 100;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 29) % 1000;
    int *din, *dout, *dsum;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMalloc(&dsum, sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    for (int mode = 0; mode < 2; ++mode) {
        roles<<<blocks, BLOCK>>>(din, dout, dsum, n, header, mode);
        cudaDeviceSynchronize();
        int summary;
        cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
        cudaMemcpy(&summary, dsum, sizeof(int), cudaMemcpyDeviceToHost);
        int emax = -1;
        for (int k = 0; k < header; ++k)
            emax = in[k] > emax ? in[k] : emax;
        if (summary != emax) {
            printf("FAIL: mode %d summary %d, expected %d\n", mode, summary, emax);
            return 1;
        }
        for (int i = 0; i < n; ++i) {
            int b = i / BLOCK, t = i % BLOCK;
            auto at = [&](int slot) { int j = b * BLOCK + slot; return j < n ? in[j] : 0; };
            int e = in[i] * 2 + (b % 2 == 1 ? at(BLOCK - 1 - t) : -at((t + 1) % BLOCK));
            if (mode == 1)
                e += (t + 5) % BLOCK * 3;
            if (out[i] != e) {
                printf("FAIL: mode %d out[%d] = %d, expected %d\n", mode, i, out[i], e);
                return 1;
            }
        }
    }
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dsum);
    printf("PASS\n");
    return 0;
}
