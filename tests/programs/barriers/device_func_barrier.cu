// __syncthreads() inside __device__ helpers: a block-sum helper (tree loop with barriers, plus a
// trailing barrier so its buffer can be reused) called twice, for the mean and the variance.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 128

__device__ float block_sum(float *buf, float v)
{
    unsigned t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    float total = buf[0];
    __syncthreads();
    return total;
}

__global__ void standardize(const float *x, float *out, float *stats, int n)
{
    __shared__ float buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    bool valid = i < n;
    float v = valid ? x[i] : 0.0f;
    int count = n - blockIdx.x * BLOCK < BLOCK ? n - blockIdx.x * BLOCK : BLOCK;
    float mean = block_sum(buf, v) / count;
    float d = valid ? v - mean : 0.0f;
    float var = block_sum(buf, d * d) / count;
    if (valid)
        out[i] = d / sqrtf(var + 1e-6f);
    if (threadIdx.x == 0) {
        stats[2 * blockIdx.x] = mean;
        stats[2 * blockIdx.x + 1] = var;
    }
}

int main()
{
    const int n = 100000 + 50;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<float> x(n), out(n), stats(2 * blocks);
    for (int i = 0; i < n; ++i)
        x[i] = (float)((i * 7919) % 1000) * 0.01f + (float)(i / BLOCK % 5);
    float *dx, *dout, *dstats;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMalloc(&dstats, 2 * blocks * sizeof(float));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    standardize<<<blocks, BLOCK>>>(dx, dout, dstats, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(stats.data(), dstats, 2 * blocks * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dout);
    cudaFree(dstats);
    for (int b = 0; b < blocks; ++b) {
        int start = b * BLOCK, count = n - start < BLOCK ? n - start : BLOCK;
        double mean = 0, var = 0;
        for (int k = 0; k < count; ++k)
            mean += x[start + k];
        mean /= count;
        for (int k = 0; k < count; ++k)
            var += (x[start + k] - mean) * (x[start + k] - mean);
        var /= count;
        if (std::fabs(stats[2 * b] - mean) > 1e-4 * (1 + std::fabs(mean)) ||
            std::fabs(stats[2 * b + 1] - var) > 1e-3 * (1 + var)) {
            printf("FAIL: block %d stats (%g, %g), expected (%g, %g)\n", b, stats[2 * b], stats[2 * b + 1], mean, var);
            return 1;
        }
        for (int k = 0; k < count; ++k) {
            double e = (x[start + k] - mean) / std::sqrt(var + 1e-6);
            if (std::fabs(out[start + k] - e) > 2e-3 * (1 + std::fabs(e))) {
                printf("FAIL: out[%d] = %g, expected %g\n", start + k, out[start + k], e);
                return 1;
            }
        }
    }
    printf("PASS\n");
    return 0;
}
