// A barrier under `if (*p < n)` where p points to a per-thread index computed from threadIdx: the
// analysis does not follow pointers to per-thread variables, so it cannot tell whether the threads
// agree (they do not: the last block is partly used); the default lowering takes the fallback,
// which runs it as a GPU does (the threads that skip the barrier as if they had exited).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__device__ int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

__global__ void add_first_of_block(const float *a, float *out, int n)
{
    __shared__ float s[BLOCK];
    int index = global_index();
    const int *p = &index;
    const int i = index;
    if (*p < n) {
        s[threadIdx.x] = a[i];
        __syncthreads();
        out[i] = s[0] + s[threadIdx.x];
    }
}

int main()
{
    const int n = 3 * BLOCK + 37;
    std::vector<float> a(n), out(n, -1.0f);
    for (int i = 0; i < n; ++i)
        a[i] = (float)(i % 29);
    float *da, *dout;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dout, out.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    add_first_of_block<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(da, dout, n);
    cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        const float want = a[i / BLOCK * BLOCK] + a[i];
        if (out[i] != want) {
            printf("FAIL: out[%d] = %g, expected %g\n", i, out[i], want);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
