// Grid-wide synchronization: each step reads what other blocks wrote in the step before.  The
// blocks run all at once, each on a thread of its own (run_grid); grid.sync() splits the block's
// thread loop and, between the halves, waits for every block (++grid_phase).
#include <cstdio>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void steps(float *x, float *y, int n)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long i = grid.thread_rank();
    for (int s = 0; s < n; ++s) {
        y[i] = 0.5f * (x[i] + x[(i + 1) % grid.size()]);
        grid.sync();
        float *t = x;
        x = y;
        y = t;
    }
}

int main()
{
    const int blocks = 4, threads = 64, n = blocks * threads;
    float *x, *y;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    for (int i = 0; i < n; ++i)
        x[i] = (float)(i % 7);
    int count = 3;
    void *args[] = {&x, &y, &count};
    cudaLaunchCooperativeKernel((void *)steps, dim3(blocks), dim3(threads), args, 0, 0);
    cudaDeviceSynchronize();
    printf("%g %g\n", y[0], y[n - 1]);
    return 0;
}
