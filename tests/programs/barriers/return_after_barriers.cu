// `if (i >= n) return;` placed AFTER every barrier: out-of-range threads still take part in the
// shared-memory work (a loop of barrier-separated rounds and a shared atomicMax) and only then leave.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void window_max(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    __shared__ int block_max;
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (t == 0)
        block_max = -1;
    s[t] = i < n ? in[i] : -1;
    __syncthreads();
    atomicMax(&block_max, s[t]);
    for (int r = 0; r < 3; ++r) {
        int left = s[(t + BLOCK - 1) % BLOCK];
        __syncthreads();
        s[t] = left > s[t] ? left : s[t];
        __syncthreads();
    }
    if (i >= n)
        return;
    out[i] = block_max * 10000 + s[t];
}

int main()
{
    const int n = 50000 + 3;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 4099) % 9973;
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    window_max<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        int start = i / BLOCK * BLOCK, t = i - start;
        auto at = [&](int slot) { int j = start + (slot + BLOCK) % BLOCK; return j < n ? in[j] : -1; };
        int bmax = -1, w = -1;
        for (int k = 0; k < BLOCK; ++k)
            bmax = at(k) > bmax ? at(k) : bmax;
        for (int k = 0; k <= 3; ++k)
            w = at(t - k) > w ? at(t - k) : w;
        if (out[i] != bmax * 10000 + w) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], bmax * 10000 + w);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
