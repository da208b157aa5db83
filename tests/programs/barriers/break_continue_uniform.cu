// A `for` loop containing barriers with a uniform `continue` (on the loop counter) and a uniform
// `break` (on a shared flag read after a barrier); blocks stop after different trip counts, and a
// second launch with a low iteration cap leaves the loop normally.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void grow(const int *in, int *out, int *iters, int n, int limit, int max_iters)
{
    __shared__ int s[BLOCK];
    __shared__ int stop;
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (t == 0)
        stop = 0;
    s[t] = i < n ? in[i] : 1;
    __syncthreads();
    int it;
    for (it = 0; it < max_iters; ++it) {
        if (it % 4 == 3)
            continue;  // every fourth iteration is skipped by the whole block
        int nb = s[(t + 1) % BLOCK];
        __syncthreads();
        s[t] += nb;
        if (s[t] > limit)
            stop = 1;
        __syncthreads();
        if (stop)
            break;
    }
    if (i < n)
        out[i] = s[t];
    if (t == 0)
        iters[blockIdx.x] = it;
}

int main()
{
    const int n = 30011;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<int> in(n), out(n), iters(blocks);
    for (int i = 0; i < n; ++i)
        in[i] = 1 + (i * 7 + i / 640) % 23 * (i / BLOCK % 7 + 1);
    int *din, *dout, *diters;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMalloc(&diters, blocks * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    const int limit = 1 << 20;
    const int caps[2] = {100, 9};
    for (int c = 0; c < 2; ++c) {
        grow<<<blocks, BLOCK>>>(din, dout, diters, n, limit, caps[c]);
        cudaDeviceSynchronize();
        cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
        cudaMemcpy(iters.data(), diters, blocks * sizeof(int), cudaMemcpyDeviceToHost);
        for (int b = 0; b < blocks; ++b) {
            std::vector<int> s(BLOCK), next(BLOCK);
            for (int t = 0; t < BLOCK; ++t)
                s[t] = b * BLOCK + t < n ? in[b * BLOCK + t] : 1;
            int it;
            for (it = 0; it < caps[c]; ++it) {
                if (it % 4 == 3)
                    continue;
                bool stop = false;
                for (int t = 0; t < BLOCK; ++t) {
                    next[t] = s[t] + s[(t + 1) % BLOCK];
                    stop = stop || next[t] > limit;
                }
                s.swap(next);
                if (stop)
                    break;
            }
            if (iters[b] != it) {
                printf("FAIL: cap %d block %d stopped at %d, expected %d\n", caps[c], b, iters[b], it);
                return 1;
            }
            for (int t = 0; t < BLOCK && b * BLOCK + t < n; ++t)
                if (out[b * BLOCK + t] != s[t]) {
                    printf("FAIL: cap %d out[%d] = %d, expected %d\n", caps[c], b * BLOCK + t, out[b * BLOCK + t], s[t]);
                    return 1;
                }
        }
    }
    cudaFree(din);
    cudaFree(dout);
    cudaFree(diters);
    printf("PASS\n");
    return 0;
}
