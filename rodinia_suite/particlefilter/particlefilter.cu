// particlefilter: tracking a disk through noisy video with a sampling-importance-resampling
// particle filter, in double.  The GPU way, per frame: a likelihood kernel (one thread per
// particle: move it with its own random generator, compare the pixels under the disk, scale its
// weight, then a shared-memory tree sums the block's weights, barriers between the steps); a
// one-thread kernel adds the blocks' sums; a normalisation kernel (the sum broadcast through
// shared memory); a one-thread kernel builds the cumulative distribution; a find-index kernel in
// which each particle looks for its resampled parent by a linear search of the distribution.  The
// host estimates the position from the particles.  Usage: particlefilter ROWS COLS FRAMES
// PARTICLES SEED OUTFILE
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BLOCK 512
#define PI 3.14159265358979323846

// The particle's linear congruential generator: uniform in (0, 1), and normal by Box-Muller.
__device__ double randu(int *seed, int i)
{
    seed[i] = (int)((1103515245LL * seed[i] + 12345LL) % 2147483647LL);
    return (seed[i] + 0.5) / 2147483647.0;
}

__device__ double randn(int *seed, int i)
{
    double u = randu(seed, i), v = randu(seed, i);
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

__global__ void likelihood_kernel(int particles, int rows, int cols, const int *frame, const int *offsets, int count,
                                  double *x, double *y, double *weights, int *seed, double *partial)
{
    __shared__ double buffer[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    if (i < particles) {
        x[i] += 1.0 + 5.0 * randn(seed, i);
        y[i] += -2.0 + 2.0 * randn(seed, i);
        int cx = (int)floor(x[i] + 0.5), cy = (int)floor(y[i] + 0.5);
        double sum = 0.0;
        for (int j = 0; j < count; ++j) {
            int py = cy + offsets[2 * j], px = cx + offsets[2 * j + 1];
            py = py < 0 ? 0 : (py >= rows ? rows - 1 : py);
            px = px < 0 ? 0 : (px >= cols ? cols - 1 : px);
            double v = frame[py * cols + px];
            sum += ((v - 100.0) * (v - 100.0) - (v - 228.0) * (v - 228.0)) / 50.0;
        }
        weights[i] = weights[i] * exp(sum / count);
        buffer[t] = weights[i];
    } else {
        buffer[t] = 0.0;
    }
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            buffer[t] += buffer[t + half];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = buffer[0];
}

__global__ void sum_kernel(int blocks, double *partial)
{
    double sum = 0.0;
    for (int b = 0; b < blocks; ++b)
        sum += partial[b];
    partial[0] = sum;
}

__global__ void normalize_weights_kernel(int particles, const double *partial, double *weights)
{
    __shared__ double total;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (threadIdx.x == 0)
        total = partial[0];
    __syncthreads();
    if (i < particles)
        weights[i] = weights[i] / total;
}

__global__ void cdf_kernel(int particles, const double *weights, double *cdf, int *seed, double *u1)
{
    cdf[0] = weights[0];
    for (int k = 1; k < particles; ++k)
        cdf[k] = cdf[k - 1] + weights[k];
    *u1 = randu(seed, 0) / particles;
}

__global__ void find_index_kernel(int particles, const double *cdf, const double *u1, const double *x, const double *y,
                                  double *new_x, double *new_y, double *weights)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= particles)
        return;
    double u = *u1 + (double)i / particles;
    int parent = particles - 1;
    for (int k = 0; k < particles; ++k)
        if (cdf[k] >= u) {
            parent = k;
            break;
        }
    new_x[i] = x[parent];
    new_y[i] = y[parent];
    weights[i] = 1.0 / particles;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: particlefilter ROWS COLS FRAMES PARTICLES SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), frames = atoi(argv[3]), particles = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    std::vector<int> video = particlefilter_video(rng, rows, cols, frames);
    std::vector<int> seeds = particlefilter_seeds(rng, particles);
    std::vector<int> offsets = disk_offsets(5);
    int count = (int)offsets.size() / 2;
    std::vector<double> x(particles, cols / 2), y(particles, rows / 2), weights(particles, 1.0 / particles);
    int blocks = (particles + BLOCK - 1) / BLOCK;
    int *d_video, *d_offsets, *d_seed;
    double *d_x, *d_y, *d_new_x, *d_new_y, *d_weights, *d_partial, *d_cdf, *d_u1;
    cudaMalloc(&d_video, video.size() * sizeof(int));
    cudaMalloc(&d_offsets, offsets.size() * sizeof(int));
    cudaMalloc(&d_seed, particles * sizeof(int));
    cudaMalloc(&d_x, particles * sizeof(double));
    cudaMalloc(&d_y, particles * sizeof(double));
    cudaMalloc(&d_new_x, particles * sizeof(double));
    cudaMalloc(&d_new_y, particles * sizeof(double));
    cudaMalloc(&d_weights, particles * sizeof(double));
    cudaMalloc(&d_partial, blocks * sizeof(double));
    cudaMalloc(&d_cdf, particles * sizeof(double));
    cudaMalloc(&d_u1, sizeof(double));
    cudaMemcpy(d_video, video.data(), video.size() * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_seed, seeds.data(), particles * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x.data(), particles * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y.data(), particles * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weights, weights.data(), particles * sizeof(double), cudaMemcpyHostToDevice);
    std::vector<double> estimates;
    double t0 = suite_now();
    for (int k = 1; k < frames; ++k) {
        const int *frame = d_video + (size_t)k * rows * cols;
        likelihood_kernel<<<blocks, BLOCK>>>(particles, rows, cols, frame, d_offsets, count, d_x, d_y, d_weights,
                                             d_seed, d_partial);
        sum_kernel<<<1, 1>>>(blocks, d_partial);
        normalize_weights_kernel<<<blocks, BLOCK>>>(particles, d_partial, d_weights);
        cudaMemcpy(x.data(), d_x, particles * sizeof(double), cudaMemcpyDeviceToHost);
        cudaMemcpy(y.data(), d_y, particles * sizeof(double), cudaMemcpyDeviceToHost);
        cudaMemcpy(weights.data(), d_weights, particles * sizeof(double), cudaMemcpyDeviceToHost);
        double xe = 0.0, ye = 0.0;
        for (int i = 0; i < particles; ++i) {
            xe += x[i] * weights[i];
            ye += y[i] * weights[i];
        }
        estimates.push_back(xe);
        estimates.push_back(ye);
        cdf_kernel<<<1, 1>>>(particles, d_weights, d_cdf, d_seed, d_u1);
        find_index_kernel<<<blocks, BLOCK>>>(particles, d_cdf, d_u1, d_x, d_y, d_new_x, d_new_y, d_weights);
        double *swap = d_x;
        d_x = d_new_x;
        d_new_x = swap;
        swap = d_y;
        d_y = d_new_y;
        d_new_y = swap;
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[6]);
    for (double e : estimates)
        fprintf(out, "%.12e\n", e);
    fclose(out);
    cudaFree(d_video);
    cudaFree(d_offsets);
    cudaFree(d_seed);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_new_x);
    cudaFree(d_new_y);
    cudaFree(d_weights);
    cudaFree(d_partial);
    cudaFree(d_cdf);
    cudaFree(d_u1);
    return 0;
}
