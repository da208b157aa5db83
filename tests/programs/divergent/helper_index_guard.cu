// A barrier under `if (i < n)` where the index comes from a __device__ helper that reads
// threadIdx: the last block is only partly used, so its threads disagree on reaching the
// barrier.  That is undefined behaviour in CUDA (a located error by default); GPUs run it as the
// threads that skip the barrier had exited, which is what --lowering=fallback computes.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__device__ int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

__global__ void add_first_of_block(const float *a, float *out, int n)
{
    __shared__ float s[BLOCK];
    int i = global_index();
    if (i < n) {
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
