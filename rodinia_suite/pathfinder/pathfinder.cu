// pathfinder: cheapest top-to-bottom path through a grid of costs, row by row (each cell adds its
// cost to the cheapest of the three cells above it).  Pyramid-blocked: each 256-thread block keeps
// a row segment in shared memory and advances STEPS rows per launch, its valid segment shrinking by
// one cell a side per row.  Barriers inside the row loop.
// Usage: pathfinder ROWS COLS STEPS SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BS 256

__global__ void dynproc(const int *wall, const int *src, int *dst, int cols, int steps, int start_row)
{
    __shared__ int prev[BS];
    __shared__ int result[BS];
    int small = BS - 2 * steps;
    int tx = threadIdx.x;
    int blk_x = small * blockIdx.x - steps;
    int x = blk_x + tx;
    bool inside = x >= 0 && x < cols;
    int xmin = blk_x < 0 ? -blk_x : 0, xmax = blk_x + BS > cols ? cols - 1 - blk_x : BS - 1;
    int w = tx - 1 < xmin ? xmin : tx - 1, e = tx + 1 > xmax ? xmax : tx + 1;
    if (inside)
        prev[tx] = src[x];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < steps; ++i) {
        computed = false;
        if (inside && tx >= i + 1 && tx <= BS - i - 2) {
            computed = true;
            int m = prev[w] < prev[tx] ? prev[w] : prev[tx];
            m = m < prev[e] ? m : prev[e];
            result[tx] = m + wall[(start_row + i) * cols + x];
        }
        __syncthreads();
        if (computed)
            prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed)
        dst[x] = prev[tx];
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: pathfinder ROWS COLS STEPS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), steps = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    std::vector<int> wall = pathfinder_wall(rng, rows, cols);
    int *d_wall, *d_a, *d_b;
    cudaMalloc(&d_wall, rows * cols * sizeof(int));
    cudaMalloc(&d_a, cols * sizeof(int));
    cudaMalloc(&d_b, cols * sizeof(int));
    cudaMemcpy(d_wall, wall.data(), rows * cols * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_a, wall.data(), cols * sizeof(int), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    for (int row = 1; row < rows; row += steps) {
        int now = rows - row < steps ? rows - row : steps;
        int small = BS - 2 * now;
        dynproc<<<(cols + small - 1) / small, BS>>>(d_wall, d_a, d_b, cols, now, row);
        int *swap = d_a;
        d_a = d_b;
        d_b = swap;
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    std::vector<int> result(cols);
    cudaMemcpy(result.data(), d_a, cols * sizeof(int), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[5]);
    for (int j = 0; j < cols; ++j)
        fprintf(out, "%d\n", result[j]);
    fclose(out);
    cudaFree(d_wall);
    cudaFree(d_a);
    cudaFree(d_b);
    return 0;
}
