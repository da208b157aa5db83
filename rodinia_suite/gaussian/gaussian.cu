// gaussian: forward elimination of a dense system, one step t at a time with two kernels: Fan1
// computes the multipliers of column t, Fan2 updates the trailing rows (2D grid) and the right-hand
// side; the host then back-substitutes.  Usage: gaussian N SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

__global__ void fan1(const float *a, float *m, int n, int t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1 - t)
        m[(i + t + 1) * n + t] = a[(i + t + 1) * n + t] / a[t * n + t];
}

__global__ void fan2(float *a, float *b, const float *m, int n, int t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n - 1 - t || y >= n - t)
        return;
    int row = x + 1 + t, col = y + t;
    a[row * n + col] -= m[row * n + t] * a[t * n + col];
    if (y == 0)
        b[row] -= m[row * n + t] * b[t];
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gaussian N SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    std::vector<float> a, b, m(n * n, 0.0f);
    gaussian_input(rng, n, a, b);
    float *d_a, *d_b, *d_m;
    cudaMalloc(&d_a, n * n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMalloc(&d_m, n * n * sizeof(float));
    cudaMemcpy(d_a, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_m, m.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    const int block1 = 256, block2 = 16;
    for (int t = 0; t < n - 1; ++t) {
        fan1<<<(n + block1 - 1) / block1, block1>>>(d_a, d_m, n, t);
        dim3 grid((n + block2 - 1) / block2, (n + block2 - 1) / block2);
        fan2<<<grid, dim3(block2, block2)>>>(d_a, d_b, d_m, n, t);
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(a.data(), d_a, n * n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<float> x(n);
    for (int i = n - 1; i >= 0; --i) {
        float s = b[i];
        for (int j = i + 1; j < n; ++j)
            s -= a[i * n + j] * x[j];
        x[i] = s / a[i * n + i];
    }
    FILE *out = suite_open_output(argv[3]);
    for (int i = 0; i < n; ++i)
        fprintf(out, "%.7e\n", x[i]);
    fclose(out);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_m);
    return 0;
}
