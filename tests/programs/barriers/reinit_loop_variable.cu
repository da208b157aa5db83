// A variable first holds the thread index, then is re-initialized by a loop header with a
// block-uniform value (`for (i = blockDim.x / 2; i > 0; i >>= 1)`): the loop around the barrier
// is uniform, whatever the variable held before.  Also a variable that takes a thread-dependent
// value only after the loop, and one assigned on both branches of a uniform condition.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void block_sums(const int *a, int *out, int rounds)
{
    __shared__ int s[BLOCK];
    int i = threadIdx.x;
    s[i] = a[blockIdx.x * BLOCK + i];
    __syncthreads();
    for (i = blockDim.x / 2; i > 0; i >>= 1) {
        if (threadIdx.x < i)
            s[threadIdx.x] += s[threadIdx.x + i];
        __syncthreads();
    }
    const int sum = s[0];
    __syncthreads();
    int step = threadIdx.x % 3;
    if (rounds > 2)
        step = 2;
    else
        step = 1;
    for (int r = 0; r < rounds; r += step) {
        s[threadIdx.x] = sum + r;
        __syncthreads();
        i = threadIdx.x;
    }
    out[blockIdx.x * BLOCK + threadIdx.x] = s[(i + 1) % BLOCK];
}

int main()
{
    const int blocks = 3, n = blocks * BLOCK;
    std::vector<int> a(n), out(n);
    for (int k = 0; k < n; ++k)
        a[k] = (k * 7) % 23;
    int *da, *dout;
    cudaMalloc(&da, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    for (int rounds = 1; rounds <= 5; rounds += 4) {
        block_sums<<<blocks, BLOCK>>>(da, dout, rounds);
        cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
        const int step = rounds > 2 ? 2 : 1;
        const int last = (rounds - 1) / step * step;
        for (int b = 0; b < blocks; ++b) {
            int sum = 0;
            for (int t = 0; t < BLOCK; ++t)
                sum += a[b * BLOCK + t];
            for (int t = 0; t < BLOCK; ++t) {
                if (out[b * BLOCK + t] != sum + last) {
                    printf("FAIL: rounds %d, out[%d] = %d, expected %d\n", rounds, b * BLOCK + t,
                           out[b * BLOCK + t], sum + last);
                    return 1;
                }
            }
        }
    }
    printf("PASS\n");
    return 0;
}
