// Flags that record which threads passed a guard (GPU halo tiling's `computed`), tested again
// after a barrier, and a uniform `if (...) break;` in a loop with barriers.  Each kernel is
// checked bit for bit against the same arithmetic on the host, in the order of the GPU's threads.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define B 64
#define STEPS 4

// Rodinia pathfinder's pyramid: a tile of B cells advances STEPS rows, each step computing the
// cells whose neighbours are still valid; `computed` says which, and decides the copy back.
__global__ void pyramid(const int *wall, const int *src, int *dst, int cols)
{
    __shared__ int prev[B];
    __shared__ int result[B];
    int tx = threadIdx.x;
    int small = B - 2 * STEPS;
    int blkX = small * blockIdx.x - STEPS;
    int x = blkX + tx;
    int validMin = (blkX < 0) ? -blkX : 0;
    int validMax = (blkX + B - 1 > cols - 1) ? B - 1 - (blkX + B - cols) : B - 1;
    int W = tx - 1 < validMin ? validMin : tx - 1;
    int E = tx + 1 > validMax ? validMax : tx + 1;
    if (x >= 0 && x <= cols - 1)
        prev[tx] = src[x];
    __syncthreads();
    bool computed;
    for (int i = 0; i < STEPS; i++) {
        computed = false;
        if (tx >= i + 1 && tx <= B - i - 2 && tx >= validMin && tx <= validMax) {
            computed = true;
            int m = prev[W] < prev[tx] ? prev[W] : prev[tx];
            m = m < prev[E] ? m : prev[E];
            result[tx] = m + wall[i * cols + x];
        }
        __syncthreads();
        if (i == STEPS - 1)
            break;
        if (computed)
            prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed)
        dst[x] = result[tx];
}

static void pyramid_host(const int *wall, const int *src, int *dst, int cols)
{
    int prev[4096], next[4096];
    memcpy(prev, src, cols * sizeof(int));
    for (int i = 0; i < STEPS; i++) {
        for (int x = 0; x < cols; x++) {
            int w = x > 0 ? x - 1 : 0, e = x < cols - 1 ? x + 1 : cols - 1;
            int m = prev[w] < prev[x] ? prev[w] : prev[x];
            m = m < prev[e] ? m : prev[e];
            next[x] = m + wall[i * cols + x];
        }
        memcpy(prev, next, cols * sizeof(int));
    }
    memcpy(dst, prev, cols * sizeof(int));
}

// Not folded: the flag's guard reads a limit from shared memory that thread 0 changes before the
// flag is tested again; the flag keeps the threads that passed the first limit.
__global__ void limit_in_memory(int *out, int first)
{
    __shared__ int limit[1];
    if (threadIdx.x == 0)
        limit[0] = first;
    __syncthreads();
    bool passed = false;
    if (threadIdx.x < limit[0])
        passed = true;
    __syncthreads();
    if (threadIdx.x == 0)
        limit[0] = 3;
    __syncthreads();
    int v = 0;
    if (passed)
        v = 1;
    out[threadIdx.x] = v;
}

// Not folded: the flag is set under the guard and again elsewhere.
__global__ void set_twice(int *out, int n)
{
    __shared__ int s[B];
    s[threadIdx.x] = (int)threadIdx.x;
    bool hit = false;
    if (threadIdx.x >= 5 && threadIdx.x < n) {
        hit = true;
        s[threadIdx.x] = 2 * (int)threadIdx.x;
    }
    if (threadIdx.x % 7 == 0)
        hit = true;
    __syncthreads();
    if (hit)
        out[threadIdx.x] = s[(threadIdx.x + 1) % B];
    else
        out[threadIdx.x] = -1;
}

int main()
{
    int failures = 0;
    const int cols = 700, blocks = (cols + B - 2 * STEPS - 1) / (B - 2 * STEPS);
    static int wall[STEPS * cols], src[cols], dst[cols], want[cols];
    for (int i = 0; i < STEPS * cols; i++) wall[i] = (i * 7919) % 10;
    for (int x = 0; x < cols; x++) src[x] = (x * 31) % 13;
    int *dwall, *dsrc, *ddst;
    cudaMalloc(&dwall, sizeof wall);
    cudaMalloc(&dsrc, sizeof src);
    cudaMalloc(&ddst, sizeof dst);
    cudaMemcpy(dwall, wall, sizeof wall, cudaMemcpyHostToDevice);
    cudaMemcpy(dsrc, src, sizeof src, cudaMemcpyHostToDevice);
    pyramid<<<blocks, B>>>(dwall, dsrc, ddst, cols);
    cudaMemcpy(dst, ddst, sizeof dst, cudaMemcpyDeviceToHost);
    pyramid_host(wall, src, want, cols);
    for (int x = 0; x < cols; x++)
        if (dst[x] != want[x]) {
            printf("pyramid %d: %d, host %d\n", x, dst[x], want[x]);
            failures++;
        }

    int out[B];
    int *dout;
    cudaMalloc(&dout, sizeof out);
    limit_in_memory<<<1, B>>>(dout, 20);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int t = 0; t < B; t++)
        if (out[t] != (t < 20)) {
            printf("limit_in_memory %d: %d, host %d\n", t, out[t], t < 20);
            failures++;
        }
    set_twice<<<1, B>>>(dout, 40);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int t = 0; t < B; t++) {
        int u = (t + 1) % B, su = (u >= 5 && u < 40) ? 2 * u : u;
        int w = ((t >= 5 && t < 40) || t % 7 == 0) ? su : -1;
        if (out[t] != w) {
            printf("set_twice %d: %d, host %d\n", t, out[t], w);
            failures++;
        }
    }
    printf(failures ? "FAIL\n" : "PASS\n");
    return failures != 0;
}
