// Grid-wide synchronization of a cooperative launch: a Jacobi-style smoothing whose every step
// reads the neighbours other blocks wrote in the step before (grid.sync() between steps, in a
// loop, with __syncthreads() and shared memory inside), a grid-wide sum through per-block
// partials (cg::this_grid().sync(), cg::sync(grid)), grid_group's thread_rank/size/block_rank/
// num_blocks/is_valid, a 2-D block with a partial last warp.  The host computes every value
// independently; an oversized cooperative launch is refused with
// cudaErrorCooperativeLaunchTooLarge, and is_valid() is false for an ordinary launch, true for
// cudaLaunchCooperativeKernel (with the kernel typed or cast to void *) and for cudaLaunchKernelEx
// with cudaLaunchAttributeCooperative.  With the
// argument "ordinary" the program launches the grid-syncing kernel with <<<>>>, which CUDA does
// not allow: the run must stop with an error, before "unreachable".
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__device__ void publish_partial(cg::grid_group grid, const float *x, float *part, float *partials, float *total)
{
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    unsigned long long g = grid.thread_rank();
    part[t] = g < grid.size() ? x[g] : 0.0f;
    block.sync();
    if (t == 0) {
        float s = 0;
        for (unsigned i = 0; i < block.size(); ++i)
            s += part[i];
        partials[grid.block_rank()] = s;
    }
    grid.sync();  // every block's partial is written
    if (grid.thread_rank() == 0) {
        float s = 0;
        for (unsigned long long b = 0; b < grid.num_blocks(); ++b)
            s += partials[b];
        *total = s;
    }
    cg::sync(grid);
}

__global__ void smooth(float *x, float *y, int steps, float *partials, float *total, float *scaled,
                       unsigned long long *info)
{
    __shared__ float part[256];
    cg::grid_group grid = cg::this_grid();
    unsigned long long n = grid.size(), i = grid.thread_rank();
    for (int s = 0; s < steps; ++s) {
        float left = x[(i + n - 1) % n], right = x[(i + 1) % n];
        y[i] = (left + x[i] + right) / 3.0f;
        grid.sync();
        float *swap = x; x = y; y = swap;  // each thread swaps its own copies of the parameters
    }
    publish_partial(grid, x, part, partials, total);
    scaled[i] = x[i] / *total;  // every thread sees the sum of all blocks
    cg::this_grid().sync();
    if (i == 0) {
        info[0] = grid.is_valid();
        info[1] = grid.num_blocks();
        info[2] = n;
    }
}

// Dynamic shared memory in a cooperative kernel: each block's threads (on the block's own thread)
// reverse their values through it, then read another block's input after grid.sync().
__global__ void reverse_then_neighbour(const int *in, int *out)
{
    extern __shared__ int s[];
    cg::grid_group grid = cg::this_grid();
    unsigned long long i = grid.thread_rank();
    s[threadIdx.x] = in[i];
    __syncthreads();
    int v = s[blockDim.x - 1 - threadIdx.x];
    grid.sync();
    out[i] = v + in[(i + blockDim.x) % grid.size()];
}

__global__ void validity(int *out)
{
    cg::grid_group grid = cg::this_grid();
    out[grid.thread_rank()] = grid.is_valid() ? 1 : 2;
}

int main(int argc, char **argv)
{
    const dim3 block(20, 5);  // 100 threads: the last warp is partial
    const int blocks = 7, steps = 9;
    const int n = blocks * 100;
    float *x, *y, *partials, *total, *scaled;
    unsigned long long *info;
    int *valid;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    cudaMallocManaged(&scaled, n * sizeof(float));
    cudaMallocManaged(&partials, blocks * sizeof(float));
    cudaMallocManaged(&total, sizeof(float));
    cudaMallocManaged(&info, 3 * sizeof(unsigned long long));
    cudaMallocManaged(&valid, 2 * 32 * sizeof(int));
    float *ref = (float *)malloc(n * sizeof(float)), *tmp = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i)
        x[i] = ref[i] = (float)((i * 37) % 101);

    int steps_arg = steps;
    void *args[] = {&x, &y, &steps_arg, &partials, &total, &scaled, &info};
    if (argc > 1) {
        smooth<<<blocks, block>>>(x, y, steps, partials, total, scaled, info);
        cudaDeviceSynchronize();
        printf("unreachable\n");
        return 0;
    }
    cudaError_t status = cudaLaunchCooperativeKernel(smooth, dim3(blocks), block, args, 0, 0);
    cudaDeviceSynchronize();

    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < n; ++i)
            tmp[i] = (ref[(i + n - 1) % n] + ref[i] + ref[(i + 1) % n]) / 3.0f;
        for (int i = 0; i < n; ++i)
            ref[i] = tmp[i];
    }
    const float *result = steps % 2 ? y : x;  // where the last step wrote
    int bad = status != cudaSuccess;
    float want_total = 0;
    for (int b = 0; b < blocks; ++b) {
        float s = 0;
        for (int t = 0; t < 100; ++t)
            s += ref[b * 100 + t];
        if (partials[b] != s) bad++;
        want_total += s;
    }
    for (int i = 0; i < n; ++i)
        if (result[i] != ref[i] || scaled[i] != ref[i] / want_total)
            bad++;
    if (*total != want_total || info[0] != 1 || info[1] != blocks || info[2] != (unsigned long long)n)
        bad++;
    printf("smooth: %s, total %.3f, %d wrong\n", cudaGetErrorName(status), *total, bad);

    int *ints, *reversed;
    cudaMallocManaged(&ints, 4 * 64 * sizeof(int));
    cudaMallocManaged(&reversed, 4 * 64 * sizeof(int));
    for (int i = 0; i < 4 * 64; ++i)
        ints[i] = (i * 5) % 17;
    void *rargs[] = {&ints, &reversed};
    status = cudaLaunchCooperativeKernel(reverse_then_neighbour, dim3(4), dim3(64), rargs, 64 * sizeof(int), 0);
    cudaDeviceSynchronize();
    int wrong = status != cudaSuccess;
    for (int i = 0; i < 4 * 64; ++i)
        wrong += reversed[i] != ints[i / 64 * 64 + 63 - i % 64] + ints[(i + 64) % (4 * 64)];
    printf("dynamic shared: %d wrong\n", wrong);
    bad += wrong;

    // A grid that cannot be resident at once is refused, as CUDA refuses it.
    int per_sm = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, smooth, 100, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    status = cudaLaunchCooperativeKernel(smooth, dim3(per_sm * sms + 1), block, args, 0, 0);
    cudaError_t last = cudaGetLastError();
    printf("oversized: %s, last error %s\n", cudaGetErrorName(status), cudaGetErrorName(last));
    bad += status != cudaErrorCooperativeLaunchTooLarge || last != cudaErrorCooperativeLaunchTooLarge;

    // is_valid(): true under a cooperative launch only.
    void *vargs[] = {&valid};
    validity<<<2, 16>>>(valid);
    cudaDeviceSynchronize();
    int ordinary = 0, cooperative = 0;
    for (int i = 0; i < 32; ++i)
        ordinary += valid[i] == 2;
    cudaLaunchCooperativeKernel(validity, dim3(2), dim3(16), vargs, 0, 0);
    cudaDeviceSynchronize();
    for (int i = 0; i < 32; ++i)
        cooperative += valid[i] == 1;
    // The same launch as CUDA's samples write it (the kernel cast to void *), and through
    // cudaLaunchKernelEx with the cooperative attribute.
    cudaLaunchCooperativeKernel((void *)validity, dim3(2), dim3(16), vargs, 0, 0);
    cudaDeviceSynchronize();
    for (int i = 0; i < 32; ++i)
        cooperative += valid[i] == 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(2);
    config.blockDim = dim3(16);
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeCooperative;
    attribute.val.cooperative = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    for (int i = 0; i < 32; ++i)
        valid[i] = 0;
    cudaLaunchKernelEx(&config, validity, valid);
    cudaDeviceSynchronize();
    for (int i = 0; i < 32; ++i)
        cooperative += valid[i] == 1;
    printf("is_valid: ordinary %d/32, cooperative %d/96\n", ordinary, cooperative);
    bad += ordinary != 32 || cooperative != 96;
    printf("%s\n", bad ? "FAIL" : "PASS");
    return 0;
}
