// A barrier under `if (index[0] < index[1])`, where a local array holds the thread's global index
// (computed from threadIdx): the last block is only partly used, so its threads disagree on
// reaching the barrier: undefined behaviour in CUDA (a located error by default); GPUs run it as if
// the threads that skip the barrier had exited, as --lowering=fallback computes.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void add_first_of_block(const float *a, float *out, int n)
{
    __shared__ float s[BLOCK];
    int index[2];
    index[0] = blockIdx.x * blockDim.x + threadIdx.x;
    index[1] = n;
    const int i = index[0];
    if (index[0] < index[1]) {
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
