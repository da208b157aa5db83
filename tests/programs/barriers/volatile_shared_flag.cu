// Conditions on `volatile __shared__` values that one thread writes before a barrier, with values
// computed from its thread index: every thread reads the same value after the barrier, so the
// conditions (an `if` and a `while` around barriers) are uniform.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void flagged(const int *flags, int *out)
{
    __shared__ int s[BLOCK];
    volatile __shared__ int go;
    volatile __shared__ int rounds;
    const int t = threadIdx.x;
    if (t == 0) {
        go = flags[blockIdx.x] + t;
        rounds = 2 * flags[blockIdx.x] + t + 1;
    }
    __syncthreads();
    int total = (int)blockIdx.x;
    if (go) {
        s[t] = t;
        __syncthreads();
        total += s[BLOCK - 1 - t];
    }
    __syncthreads();
    int r = 0;
    while (r < rounds) {
        s[t] = r * t;
        __syncthreads();
        total += s[(t + 1) % BLOCK];
        ++r;
        __syncthreads();
    }
    out[blockIdx.x * BLOCK + t] = total + 1000 * r;
}

int main()
{
    const int blocks = 4, n = blocks * BLOCK;
    std::vector<int> flags(blocks), out(n);
    for (int b = 0; b < blocks; ++b)
        flags[b] = b % 2 ? b : 0;
    int *dflags, *dout;
    cudaMalloc(&dflags, blocks * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(dflags, flags.data(), blocks * sizeof(int), cudaMemcpyHostToDevice);
    flagged<<<blocks, BLOCK>>>(dflags, dout);
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            const int rounds = 2 * flags[b] + 1;
            int want = b + (flags[b] ? BLOCK - 1 - t : 0) + 1000 * rounds;
            for (int r = 0; r < rounds; ++r)
                want += r * ((t + 1) % BLOCK);
            if (out[b * BLOCK + t] != want) {
                printf("FAIL: out[%d] = %d, expected %d\n", b * BLOCK + t, out[b * BLOCK + t], want);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
