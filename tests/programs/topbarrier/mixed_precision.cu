// Mixed float/double/int arithmetic and explicit and implicit conversions in a kernel: double
// accumulation of float inputs, float->int truncation, int->double promotion, double->float.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void mixed(const float *x, const int *k, double *dsum, float *fout, int *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double acc = 0.0;
        for (int j = 0; j < 8; ++j)
            acc += (double)x[(i + j) % n] * (j + 1);
        dsum[i] = acc / k[i];
        fout[i] = (float)acc + x[i] / 3;
        iout[i] = (int)(x[i] * 10.0f) + k[i] / 2;
    }
}

int main()
{
    const int n = 123456;
    std::vector<float> x(n), fout(n);
    std::vector<int> k(n), iout(n);
    std::vector<double> dsum(n);
    for (int i = 0; i < n; ++i) {
        x[i] = (float)((i * 2654435761u) % 2000u) / 7.0f - 140.0f;
        k[i] = 1 + i % 13;
    }
    float *dx, *dfout;
    int *dk, *diout;
    double *ddsum;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dk, n * sizeof(int));
    cudaMalloc(&ddsum, n * sizeof(double));
    cudaMalloc(&dfout, n * sizeof(float));
    cudaMalloc(&diout, n * sizeof(int));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    mixed<<<(n + 255) / 256, 256>>>(dx, dk, ddsum, dfout, diout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(dsum.data(), ddsum, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(fout.data(), dfout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(iout.data(), diout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dk);
    cudaFree(ddsum);
    cudaFree(dfout);
    cudaFree(diout);
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < 8; ++j)
            acc += (double)x[(i + j) % n] * (j + 1);
        double ed = acc / k[i];
        float ef = (float)acc + x[i] / 3;
        int ei = (int)(x[i] * 10.0f) + k[i] / 2;
        if (std::fabs(dsum[i] - ed) > 1e-12 * (1 + std::fabs(ed)) ||
            std::fabs(fout[i] - ef) > 1e-5 * (1 + std::fabs(ef)) || iout[i] != ei) {
            printf("FAIL: index %d: (%.17g, %g, %d), expected (%.17g, %g, %d)\n", i, dsum[i], fout[i], iout[i], ed, ef, ei);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
