// __constant__ memory filled with cudaMemcpyToSymbol: polynomial coefficients (an array) and a
// scalar scale factor (a second symbol), read by every thread with Horner's rule.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define DEGREE 6

__constant__ float coef[DEGREE + 1];
__constant__ float scale;

__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float acc = coef[DEGREE];
        for (int k = DEGREE - 1; k >= 0; --k)
            acc = acc * v + coef[k];
        y[i] = scale * acc;
    }
}

int main()
{
    const int n = 250000;
    const float hcoef[DEGREE + 1] = {1.0f, -0.5f, 0.25f, 0.125f, -0.0625f, 0.03125f, 0.015625f};
    const float hscale = 3.0f;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i)
        x[i] = -2.0f + 4.0f * (float)i / n;
    cudaMemcpyToSymbol(coef, hcoef, sizeof(hcoef));
    cudaMemcpyToSymbol(scale, &hscale, sizeof(float));
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    poly<<<(n + 127) / 128, 128>>>(dx, dy, n);
    cudaDeviceSynchronize();
    cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    for (int i = 0; i < n; ++i) {
        double acc = hcoef[DEGREE];
        for (int k = DEGREE - 1; k >= 0; --k)
            acc = acc * x[i] + hcoef[k];
        double e = hscale * acc;
        if (std::fabs(y[i] - e) > 1e-5 * (1.0 + std::fabs(e))) {
            printf("FAIL: y[%d] = %g, expected %g\n", i, y[i], e);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
