// srad_v2: speckle-reducing anisotropic diffusion of an image.  Per iteration the host computes
// the speckle statistic q0^2 over a region of interest, then srad1 (derivatives and diffusion
// coefficient) and srad2 (the update) each read a 16x16 tile of the image or coefficient into
// shared memory, wait at a barrier, and take neighbours from the tile (or from global memory at
// the tile's edge).  ROWS and COLS are multiples of 16.  Usage: srad_v2 ROWS COLS ITERS SEED OUTFILE
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BS 16
#define ROI 32

__global__ void srad1(const float *J, float *dN, float *dS, float *dW, float *dE, float *C, int rows,
                      int cols, float q0sqr)
{
    __shared__ float tile[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * BS + ty, j = blockIdx.x * BS + tx;
    int k = i * cols + j;
    tile[ty][tx] = J[k];
    __syncthreads();
    float jc = tile[ty][tx];
    float jn = ty > 0 ? tile[ty - 1][tx] : J[(i > 0 ? i - 1 : 0) * cols + j];
    float js = ty < BS - 1 ? tile[ty + 1][tx] : J[(i < rows - 1 ? i + 1 : rows - 1) * cols + j];
    float jw = tx > 0 ? tile[ty][tx - 1] : J[i * cols + (j > 0 ? j - 1 : 0)];
    float je = tx < BS - 1 ? tile[ty][tx + 1] : J[i * cols + (j < cols - 1 ? j + 1 : cols - 1)];
    float n = jn - jc, s = js - jc, w = jw - jc, e = je - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float c = 1.0f / (1.0f + den);
    dN[k] = n;
    dS[k] = s;
    dW[k] = w;
    dE[k] = e;
    C[k] = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
}

__global__ void srad2(float *J, const float *dN, const float *dS, const float *dW, const float *dE,
                      const float *C, int rows, int cols, float lambda)
{
    __shared__ float tile[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * BS + ty, j = blockIdx.x * BS + tx;
    int k = i * cols + j;
    tile[ty][tx] = C[k];
    __syncthreads();
    float cc = tile[ty][tx];
    float cs = ty < BS - 1 ? tile[ty + 1][tx] : C[(i < rows - 1 ? i + 1 : rows - 1) * cols + j];
    float ce = tx < BS - 1 ? tile[ty][tx + 1] : C[i * cols + (j < cols - 1 ? j + 1 : cols - 1)];
    float d = cc * dN[k] + cs * dS[k] + cc * dW[k] + ce * dE[k];
    J[k] = J[k] + 0.25f * lambda * d;
}

// q0^2 = variance / mean^2 over the ROI x ROI corner, in double, serially (as the OpenMP version).
static float speckle(const float *J, int cols)
{
    double sum = 0.0, sum2 = 0.0;
    for (int i = 0; i < ROI; ++i)
        for (int j = 0; j < ROI; ++j) {
            double v = J[i * cols + j];
            sum += v;
            sum2 += v * v;
        }
    double mean = sum / (ROI * ROI);
    double var = sum2 / (ROI * ROI) - mean * mean;
    return (float)(var / (mean * mean));
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: srad_v2 ROWS COLS ITERS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), iters = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    int size = rows * cols;
    std::vector<float> J = srad_v2_image(rng, size);
    float *d_J, *d_C, *d_N, *d_S, *d_W, *d_E;
    cudaMalloc(&d_J, size * sizeof(float));
    cudaMalloc(&d_C, size * sizeof(float));
    cudaMalloc(&d_N, size * sizeof(float));
    cudaMalloc(&d_S, size * sizeof(float));
    cudaMalloc(&d_W, size * sizeof(float));
    cudaMalloc(&d_E, size * sizeof(float));
    cudaMemcpy(d_J, J.data(), size * sizeof(float), cudaMemcpyHostToDevice);
    const float lambda = 0.5f;
    dim3 grid(cols / BS, rows / BS), block(BS, BS);
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        cudaMemcpy(J.data(), d_J, ROI * cols * sizeof(float), cudaMemcpyDeviceToHost);
        float q0sqr = speckle(J.data(), cols);
        srad1<<<grid, block>>>(d_J, d_N, d_S, d_W, d_E, d_C, rows, cols, q0sqr);
        srad2<<<grid, block>>>(d_J, d_N, d_S, d_W, d_E, d_C, rows, cols, lambda);
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(J.data(), d_J, size * sizeof(float), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[5]);
    for (int k = 0; k < size; k += 7)
        fprintf(out, "%.7e\n", J[k]);
    fclose(out);
    cudaFree(d_J);
    cudaFree(d_C);
    cudaFree(d_N);
    cudaFree(d_S);
    cudaFree(d_W);
    cudaFree(d_E);
    return 0;
}
