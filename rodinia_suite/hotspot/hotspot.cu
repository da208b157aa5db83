// hotspot: transient chip temperature on a grid, the pyramid way: each 16x16 block loads a tile of
// temperature and power into shared memory and advances STEPS time steps inside it, the region it
// computes shrinking by one cell per step, so one launch does STEPS steps and writes only the
// (16 - 2 STEPS)^2 centre it got right.  Barriers inside the step loop.
// Usage: hotspot ROWS COLS ITERS STEPS SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BS 16

__global__ void hotspot_step(const float *power, const float *src, float *dst, int rows, int cols, int steps,
                             float sdc, float rx, float ry, float rz, float amb)
{
    __shared__ float t[BS][BS];
    __shared__ float p[BS][BS];
    __shared__ float tn[BS][BS];
    int small = BS - 2 * steps;
    int tx = threadIdx.x, ty = threadIdx.y;
    int blk_y = small * blockIdx.y - steps, blk_x = small * blockIdx.x - steps;
    int gy = blk_y + ty, gx = blk_x + tx;
    bool inside = gy >= 0 && gy < rows && gx >= 0 && gx < cols;
    if (inside) {
        t[ty][tx] = src[gy * cols + gx];
        p[ty][tx] = power[gy * cols + gx];
    }
    __syncthreads();
    // The tile's cells inside the grid; neighbours are clamped to them, as at the chip's edge.
    int ymin = blk_y < 0 ? -blk_y : 0, ymax = blk_y + BS > rows ? rows - 1 - blk_y : BS - 1;
    int xmin = blk_x < 0 ? -blk_x : 0, xmax = blk_x + BS > cols ? cols - 1 - blk_x : BS - 1;
    int n = ty - 1 < ymin ? ymin : ty - 1, s = ty + 1 > ymax ? ymax : ty + 1;
    int w = tx - 1 < xmin ? xmin : tx - 1, e = tx + 1 > xmax ? xmax : tx + 1;
    bool computed = false;
    for (int i = 0; i < steps; ++i) {
        computed = false;
        if (inside && tx >= i + 1 && tx <= BS - i - 2 && ty >= i + 1 && ty <= BS - i - 2) {
            computed = true;
            float c = t[ty][tx];
            tn[ty][tx] = c + sdc * (p[ty][tx] + (t[s][tx] + t[n][tx] - 2.0f * c) * ry +
                                    (t[ty][e] + t[ty][w] - 2.0f * c) * rx + (amb - c) * rz);
        }
        __syncthreads();
        if (computed)
            t[ty][tx] = tn[ty][tx];
        __syncthreads();
    }
    if (computed)
        dst[gy * cols + gx] = t[ty][tx];
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: hotspot ROWS COLS ITERS STEPS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), iters = atoi(argv[3]), steps = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    int size = rows * cols;
    std::vector<float> temp, power;
    thermal_input(rng, size, temp, power);
    const float sdc = 1.0f, rx = 0.1f, ry = 0.1f, rz = 0.01f, amb = 80.0f;
    float *d_power, *d_a, *d_b;
    cudaMalloc(&d_power, size * sizeof(float));
    cudaMalloc(&d_a, size * sizeof(float));
    cudaMalloc(&d_b, size * sizeof(float));
    cudaMemcpy(d_power, power.data(), size * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_a, temp.data(), size * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    for (int done = 0; done < iters; done += steps) {
        int now = iters - done < steps ? iters - done : steps;
        int small = BS - 2 * now;
        dim3 grid((cols + small - 1) / small, (rows + small - 1) / small);
        hotspot_step<<<grid, dim3(BS, BS)>>>(d_power, d_a, d_b, rows, cols, now, sdc, rx, ry, rz, amb);
        float *swap = d_a;
        d_a = d_b;
        d_b = swap;
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(temp.data(), d_a, size * sizeof(float), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[6]);
    for (int k = 0; k < size; k += 5)
        fprintf(out, "%.7e\n", temp[k]);
    fclose(out);
    cudaFree(d_power);
    cudaFree(d_a);
    cudaFree(d_b);
    return 0;
}
