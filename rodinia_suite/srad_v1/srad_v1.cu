// srad_v1: speckle-reducing anisotropic diffusion of an image, the statistic over the whole image.
// The GPU way: per iteration a kernel copies the image and its square into two sum arrays, a
// reduction kernel (one 512-thread block sums 512 values in shared memory with a tree of
// barriers) runs again and again on its own partial sums until one value is left, the host
// derives q0^2 from the two sums, and two kernels compute the diffusion coefficient and apply the
// update, their neighbours from precomputed clamped index arrays.  Kernels before and after the
// iterations take the image to and from the exponential domain.
// Usage: srad_v1 ROWS COLS ITERS SEED OUTFILE
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BLOCK 512
#define LAMBDA 0.5f

__global__ void extract(int n, float *image)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        image[k] = expf(image[k] / 255.0f);
}

__global__ void prepare(int n, const float *image, float *sums, float *sums2)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        sums[k] = image[k];
        sums2[k] = image[k] * image[k];
    }
}

// The values of this pass lie `stride` apart; block b sums values b*BLOCK .. b*BLOCK+BLOCK-1 and
// leaves the result in the place of its first one.
__global__ void reduce(int n, int stride, float *sums, float *sums2)
{
    __shared__ float part[BLOCK], part2[BLOCK];
    int t = threadIdx.x;
    int k = blockIdx.x * BLOCK + t;
    part[t] = k < n ? sums[(long)k * stride] : 0.0f;
    part2[t] = k < n ? sums2[(long)k * stride] : 0.0f;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half) {
            part[t] += part[t + half];
            part2[t] += part2[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[(long)blockIdx.x * BLOCK * stride] = part[0];
        sums2[(long)blockIdx.x * BLOCK * stride] = part2[0];
    }
}

__global__ void srad(int rows, int cols, float q0sqr, const int *north, const int *south, const int *west,
                     const int *east, const float *image, float *dN, float *dS, float *dW, float *dE, float *c)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= rows * cols)
        return;
    int i = k / cols, j = k % cols;
    float jc = image[k];
    float n = image[north[i] * cols + j] - jc, s = image[south[i] * cols + j] - jc;
    float w = image[i * cols + west[j]] - jc, e = image[i * cols + east[j]] - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float coefficient = 1.0f / (1.0f + den);
    dN[k] = n;
    dS[k] = s;
    dW[k] = w;
    dE[k] = e;
    c[k] = coefficient < 0.0f ? 0.0f : (coefficient > 1.0f ? 1.0f : coefficient);
}

__global__ void srad2(int rows, int cols, const int *south, const int *east, const float *dN, const float *dS,
                      const float *dW, const float *dE, const float *c, float *image)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= rows * cols)
        return;
    int i = k / cols, j = k % cols;
    float cc = c[k], cs = c[south[i] * cols + j], ce = c[i * cols + east[j]];
    float d = cc * dN[k] + cs * dS[k] + cc * dW[k] + ce * dE[k];
    image[k] = image[k] + 0.25f * LAMBDA * d;
}

__global__ void compress(int n, float *image)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        image[k] = logf(image[k]) * 255.0f;
}

static int *index_array(const std::vector<int> &host)
{
    int *d;
    cudaMalloc(&d, host.size() * sizeof(int));
    cudaMemcpy(d, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice);
    return d;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: srad_v1 ROWS COLS ITERS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), iters = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    int n = rows * cols;
    std::vector<float> image = srad_image(rng, rows, cols);
    std::vector<int> north(rows), south(rows), west(cols), east(cols);
    for (int i = 0; i < rows; ++i) {
        north[i] = i > 0 ? i - 1 : 0;
        south[i] = i < rows - 1 ? i + 1 : rows - 1;
    }
    for (int j = 0; j < cols; ++j) {
        west[j] = j > 0 ? j - 1 : 0;
        east[j] = j < cols - 1 ? j + 1 : cols - 1;
    }
    int *d_north = index_array(north), *d_south = index_array(south), *d_west = index_array(west),
        *d_east = index_array(east);
    float *d_image, *d_sums, *d_sums2, *d_dN, *d_dS, *d_dW, *d_dE, *d_c;
    float **all[] = {&d_image, &d_sums, &d_sums2, &d_dN, &d_dS, &d_dW, &d_dE, &d_c};
    for (float **p : all)
        cudaMalloc(p, n * sizeof(float));
    cudaMemcpy(d_image, image.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    int blocks = (n + BLOCK - 1) / BLOCK;
    double t0 = suite_now();
    extract<<<blocks, BLOCK>>>(n, d_image);
    for (int it = 0; it < iters; ++it) {
        prepare<<<blocks, BLOCK>>>(n, d_image, d_sums, d_sums2);
        for (int left = n, stride = 1; left > 1; stride *= BLOCK) {
            int pass_blocks = (left + BLOCK - 1) / BLOCK;
            reduce<<<pass_blocks, BLOCK>>>(left, stride, d_sums, d_sums2);
            left = pass_blocks;
        }
        float total, total2;
        cudaMemcpy(&total, d_sums, sizeof(float), cudaMemcpyDeviceToHost);
        cudaMemcpy(&total2, d_sums2, sizeof(float), cudaMemcpyDeviceToHost);
        float mean = total / n;
        float var = total2 / n - mean * mean;
        float q0sqr = var / (mean * mean);
        srad<<<blocks, BLOCK>>>(rows, cols, q0sqr, d_north, d_south, d_west, d_east, d_image, d_dN, d_dS, d_dW,
                                d_dE, d_c);
        srad2<<<blocks, BLOCK>>>(rows, cols, d_south, d_east, d_dN, d_dS, d_dW, d_dE, d_c, d_image);
    }
    compress<<<blocks, BLOCK>>>(n, d_image);
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(image.data(), d_image, n * sizeof(float), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[5]);
    for (int k = 0; k < n; k += 3)
        fprintf(out, "%.6e\n", image[k]);
    fclose(out);
    for (float **p : all)
        cudaFree(*p);
    cudaFree(d_north);
    cudaFree(d_south);
    cudaFree(d_west);
    cudaFree(d_east);
    return 0;
}
