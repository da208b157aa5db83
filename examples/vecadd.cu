// Vector addition: the smallest complete CUDA program, self-checking against a host loop.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// One thread per element; the guard covers the last, partly used block.
__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    const int n = 1 << 20;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.5f * i;
        b[i] = 1.0f - 0.25f * i;
    }
    // Device buffers, inputs copied in.
    float *da, *db, *dc;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMalloc(&dc, n * sizeof(float));
    cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    // Launch enough 256-thread blocks to cover n, then copy the result back.
    const int block = 256;
    vecadd<<<(n + block - 1) / block, block>>>(da, db, dc, n);
    cudaDeviceSynchronize();
    cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    if (cudaGetLastError() != cudaSuccess) {
        printf("FAIL: CUDA error\n");
        return 1;
    }
    // Check against the same addition on the host (exact: a single rounding either way).
    for (int i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) {
            printf("FAIL: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
