// Grid-stride loops (i from the thread's global index, in steps of the whole grid): each thread
// sums every stride-th element.  Serialized thread by thread, each CUDA thread walks memory in
// steps of the grid; loop-interchange runs the block's threads innermost instead.  Every thread
// adds its own elements in its own order either way, so the sums equal the host's bit for bit.
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// size_t counter, through a local global index (graphExecution's reduce).
__global__ void sum_size_t(const float *in, double *out, size_t n)
{
    size_t global = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    double sum = 0.0;
    for (size_t i = global; i < n; i += gridDim.x * blockDim.x)
        sum += (double)in[i];
    out[global] = sum;
}

// int counter, index and stride written in the loop's header; a store in the loop.
__global__ void scale_int(const float *in, float *out, int n, float factor)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[i] * factor;
}

// The stride and the bound through the thread's locals: the moved loop runs outside the thread
// loops, where they are not declared, so its header spells their definitions.
__global__ void copy_through_locals(const float *in, float *out, int n)
{
    int stride = blockDim.x * gridDim.x;
    int start = blockIdx.x * blockDim.x + threadIdx.x;
    int limit = n;
    for (int i = start; i < limit; i += stride)
        out[i] = -in[i];
}

// Two-dimensional blocks: threads of one row share a start (the loop uses threadIdx.x only).
__global__ void rows_2d(const float *in, float *out, int n)
{
    int row = threadIdx.y;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n; i += gridDim.x * blockDim.x)
        out[row * n + i] = in[i] + row;
}

// Kept: the loop leaves early in some threads (a break).
__global__ void first_above(const float *in, int *found, int n, float limit)
{
    int global = blockIdx.x * blockDim.x + threadIdx.x;
    int where = -1;
    for (int i = global; i < n; i += gridDim.x * blockDim.x) {
        if (in[i] > limit) {
            where = i;
            break;
        }
    }
    found[global] = where;
}

// Kept: the start is not the thread's index plus a block-uniform value (two elements a thread).
__global__ void pairs(const float *in, float *out, int n)
{
    for (int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += 2 * gridDim.x * blockDim.x)
        out[i] = in[i] + in[i + 1];
}

// graphExecution's reduce: the threads' sums through shared memory, then one warp's shuffles
// after the barrier.  Only the code between the barriers around the loop runs in another order,
// so the warp operations beyond the barrier do not keep the loop in place.
__global__ void block_sums(const float *in, double *out, size_t n)
{
    __shared__ double partial[64];
    cg::thread_block block = cg::this_thread_block();
    double sum = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += (double)in[i];
    partial[block.thread_rank()] = sum;
    block.sync();
    if (threadIdx.x < 32) {
        double s = partial[threadIdx.x] + partial[threadIdx.x + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            s += __shfl_down_sync(0xffffffff, s, offset);
        if (threadIdx.x == 0)
            out[blockIdx.x] = s;
    }
}

// Kept: an atomic between the same barriers as the loop.
__global__ void count_above(const float *in, int *count, int n, float limit)
{
    int mine = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        mine += in[i] > limit;
    atomicAdd(count, mine);
}

int main()
{
    const int n = 100003, blocks = 7, threads = 64, total = blocks * threads;
    float *in, *scaled, *rows, *paired, *negated;
    double *sums, *block_totals;
    int *found, *count;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&scaled, n * sizeof(float));
    cudaMallocManaged(&rows, 3 * n * sizeof(float));
    cudaMallocManaged(&paired, n * sizeof(float));
    cudaMallocManaged(&negated, n * sizeof(float));
    cudaMallocManaged(&sums, total * sizeof(double));
    cudaMallocManaged(&found, total * sizeof(int));
    cudaMallocManaged(&block_totals, blocks * sizeof(double));
    cudaMallocManaged(&count, sizeof(int));
    srand(7);
    for (int i = 0; i < n; ++i)
        in[i] = (float)(rand() % 2001 - 1000) / 7.0f;
    for (int i = 0; i < n; ++i)
        paired[i] = 0.0f;
    *count = 0;

    sum_size_t<<<blocks, threads>>>(in, sums, n);
    scale_int<<<blocks, threads>>>(in, scaled, n, 1.5f);
    copy_through_locals<<<blocks, threads>>>(in, negated, n);
    rows_2d<<<blocks, dim3(threads, 3)>>>(in, rows, n);
    first_above<<<blocks, threads>>>(in, found, n, 142.0f);
    pairs<<<blocks, threads>>>(in, paired, n - 1);
    block_sums<<<blocks, threads>>>(in, block_totals, n);
    count_above<<<blocks, threads>>>(in, count, n, 0.0f);
    cudaDeviceSynchronize();

    for (int t = 0; t < total; ++t) {
        double sum = 0.0;
        int where = -1;
        for (int i = t; i < n; i += total) {
            sum += (double)in[i];
            if (where < 0 && in[i] > 142.0f)
                where = i;
        }
        if (sums[t] != sum || found[t] != where) {
            printf("FAIL: thread %d: sum %.17g (host %.17g), found %d (host %d)\n", t, sums[t], sum, found[t], where);
            return 1;
        }
    }
    // Each block's warp tree over its threads' sums, as the shuffles add them.
    for (int b = 0; b < blocks; ++b) {
        double lane[32];
        for (int l = 0; l < 32; ++l)
            lane[l] = sums[b * threads + l] + sums[b * threads + l + 32];
        for (int offset = 16; offset > 0; offset /= 2) {
            double next[32];
            for (int l = 0; l < 32; ++l)
                next[l] = lane[l] + (l + offset < 32 ? lane[l + offset] : lane[l]);
            for (int l = 0; l < 32; ++l)
                lane[l] = next[l];
        }
        if (block_totals[b] != lane[0]) {
            printf("FAIL: block %d: sum %.17g (host %.17g)\n", b, block_totals[b], lane[0]);
            return 1;
        }
    }
    int above = 0;
    for (int i = 0; i < n; ++i)
        above += in[i] > 0.0f;
    if (*count != above) {
        printf("FAIL: %d above 0 (host %d)\n", *count, above);
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        bool ok = scaled[i] == in[i] * 1.5f && negated[i] == -in[i];
        for (int row = 0; row < 3; ++row)
            ok = ok && rows[row * n + i] == in[i] + row;
        if (i % 2 == 0 && i + 1 < n)
            ok = ok && paired[i] == in[i] + in[i + 1];
        if (!ok) {
            printf("FAIL: element %d\n", i);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
