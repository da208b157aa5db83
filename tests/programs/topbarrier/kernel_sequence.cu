// Several kernels launched one after another on the same buffers (init, scale, offset), then a
// 1-D smoothing kernel launched in a host loop with ping-pong buffers and a varying block size.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void init(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = (float)(i % 100);
}

__global__ void scale(float *a, float f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] *= f;
}

__global__ void offset(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += b[i % 7];
}

__global__ void smooth(const float *src, float *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float left = i > 0 ? src[i - 1] : src[i];
        float right = i < n - 1 ? src[i + 1] : src[i];
        dst[i] = 0.25f * left + 0.5f * src[i] + 0.25f * right;
    }
}

int main()
{
    const int n = 100003, iters = 40;
    const float hb[7] = {1, -2, 3, -4, 5, -6, 7};
    float *da, *db, *dc;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, 7 * sizeof(float));
    cudaMalloc(&dc, n * sizeof(float));
    cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice);
    init<<<(n + 255) / 256, 256>>>(da, n);
    scale<<<(n + 127) / 128, 128>>>(da, 0.5f, n);
    offset<<<(n + 511) / 512, 512>>>(da, db, n);
    const int blocks[3] = {64, 128, 256};
    for (int it = 0; it < iters; ++it) {
        int bs = blocks[it % 3];
        const float *src = it % 2 == 0 ? da : dc;
        float *dst = it % 2 == 0 ? dc : da;
        smooth<<<(n + bs - 1) / bs, bs>>>(src, dst, n);
    }
    cudaDeviceSynchronize();
    std::vector<float> got(n);
    cudaMemcpy(got.data(), iters % 2 == 0 ? da : dc, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);

    std::vector<double> a(n), c(n);
    for (int i = 0; i < n; ++i)
        a[i] = (i % 100) * 0.5 + hb[i % 7];
    for (int it = 0; it < iters; ++it) {
        for (int i = 0; i < n; ++i) {
            double left = i > 0 ? a[i - 1] : a[i];
            double right = i < n - 1 ? a[i + 1] : a[i];
            c[i] = 0.25 * left + 0.5 * a[i] + 0.25 * right;
        }
        a.swap(c);
    }
    for (int i = 0; i < n; ++i)
        if (std::fabs(got[i] - a[i]) > 1e-4 * (1 + std::fabs(a[i]))) {
            printf("FAIL: a[%d] = %g, expected %g\n", i, got[i], a[i]);
            return 1;
        }
    printf("PASS\n");
    return 0;
}
