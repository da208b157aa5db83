// Nested loops with the barrier in the inner loop: bitonic sort of each 256-element block in
// shared memory (`for k` / `for j` / compare-exchange / __syncthreads()); the last block is padded.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void bitonic(int *data, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? data[i] : INT_MAX;
    __syncthreads();
    for (int k = 2; k <= BLOCK; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int partner = t ^ j;
            if (partner > t) {
                bool ascending = (t & k) == 0;
                int a = s[t], b = s[partner];
                if ((a > b) == ascending) {
                    s[t] = b;
                    s[partner] = a;
                }
            }
            __syncthreads();
        }
    }
    if (i < n)
        data[i] = s[t];
}

int main()
{
    const int n = 100000 + 123;
    std::vector<int> data(n), out(n);
    unsigned s = 2024u;
    for (int i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        data[i] = (int)(s >> 4) % 100000 - 50000;
    }
    int *d;
    cudaMalloc(&d, n * sizeof(int));
    cudaMemcpy(d, data.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    bitonic<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d);
    for (int start = 0; start < n; start += BLOCK) {
        int end = std::min(start + BLOCK, n);
        std::sort(data.begin() + start, data.begin() + end);
    }
    for (int i = 0; i < n; ++i)
        if (out[i] != data[i]) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], data[i]);
            return 1;
        }
    printf("PASS\n");
    return 0;
}
