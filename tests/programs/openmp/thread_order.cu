// Kernels whose unit-stride dimension is not threadIdx.x, each checked against a host
// computation: thread-order runs their serial thread loops with that dimension innermost, and
// every thread must still run exactly once, guards and partial blocks included.  The last three
// kernels synchronize through an atomic or warp shuffles: their loops keep CUDA's order.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

// Rodinia gaussian's Fan2: threadIdx.x picks the row, threadIdx.y the column.
__global__ void eliminate(float *a, const float *m, int n, int t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n - 1 - t || y >= n - t)
        return;
    int row = x + 1 + t, col = y + t;
    a[row * n + col] -= m[row * n + t] * a[t * n + col];
}

// A 3-D block whose z index is the contiguous one.
__global__ void fill3d(int *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz)
        out[(x * ny + y) * nz + z] = x * 10000 + y * 100 + z;
}

// Shared memory and a value kept across the barrier: both split loops run y innermost.
__global__ void tile_twice(const float *in, float *out, int n)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    float v = x < n && y < n ? in[x * n + y] : 0.0f;
    tile[threadIdx.x][threadIdx.y] = v;
    __syncthreads();
    float neighbour = tile[threadIdx.x][(threadIdx.y + 1) % 16];
    if (x < n && y < n)
        out[x * n + y] = 2.0f * v + neighbour;
}

// An atomic per thread: the loop keeps CUDA's order (x innermost).
__global__ void count_columns(const int *keys, int *counts, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n)
        atomicAdd(&counts[keys[x * n + y]], 1);
}

// One warp per 4 x 8 block, lanes numbered x first: a shuffle reduction over the warp.
__global__ void warp_sums(const int *in, int *sums, int n)
{
    int x = blockIdx.x * 4 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    int v = in[x * n + y];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0 && threadIdx.y == 0)
        sums[blockIdx.y * gridDim.x + blockIdx.x] = v;
}

// The loop reading the shuffled value stores with unit stride along y; it writes no exchange
// slot, so its threads are independent and y may go innermost.
__global__ void warp_pairs(const int *in, int *out, int n)
{
    int x = blockIdx.x * 4 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    int v = in[x * n + y];
    out[x * n + y] = v + __shfl_xor_sync(0xffffffffu, v, 1);  // lane ^ 1: the neighbour in x
}

int main()
{
    // ---- eliminate: a few elimination steps, blocks of 4 x 96 (y in two SIMD chunks) ----
    const int n = 150;
    float *a = (float *)malloc(n * n * sizeof(float)), *ref = (float *)malloc(n * n * sizeof(float));
    float *m = (float *)malloc(n * n * sizeof(float));
    for (int i = 0; i < n * n; ++i) a[i] = ref[i] = (float)((i * 37) % 101) / 7.0f + (i % (n + 1) == 0 ? 50.0f : 0.0f);
    float *da, *dm;
    cudaMalloc(&da, n * n * sizeof(float));
    cudaMalloc(&dm, n * n * sizeof(float));
    cudaMemcpy(da, a, n * n * sizeof(float), cudaMemcpyHostToDevice);
    for (int t = 0; t < 3; ++t) {
        for (int row = t + 1; row < n; ++row) m[row * n + t] = ref[row * n + t] / ref[t * n + t];
        cudaMemcpy(dm, m, n * n * sizeof(float), cudaMemcpyHostToDevice);
        dim3 block(4, 96), grid((n + 3) / 4, (n + 95) / 96);
        eliminate<<<grid, block>>>(da, dm, n, t);
        for (int row = t + 1; row < n; ++row)
            for (int col = t; col < n; ++col) ref[row * n + col] -= m[row * n + t] * ref[t * n + col];
    }
    cudaMemcpy(a, da, n * n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n * n; ++i) CHECK(a[i] == ref[i], "eliminate %d: %g != %g", i, a[i], ref[i]);

    // ---- fill3d: 2 x 3 x 16 blocks over a box that divides by none of them ----
    const int nx = 5, ny = 7, nz = 37;
    int *dout, out[nx * ny * nz];
    cudaMalloc(&dout, sizeof out);
    cudaMemset(dout, 0xff, sizeof out);
    fill3d<<<dim3(3, 3, 3), dim3(2, 3, 16)>>>(dout, nx, ny, nz);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int x = 0; x < nx; ++x)
        for (int y = 0; y < ny; ++y)
            for (int z = 0; z < nz; ++z)
                CHECK(out[(x * ny + y) * nz + z] == x * 10000 + y * 100 + z, "fill3d %d %d %d", x, y, z);

    // ---- tile_twice: 16 x 16 blocks over 40 x 40 ----
    const int nt = 40;
    float in[nt * nt], res[nt * nt];
    for (int i = 0; i < nt * nt; ++i) in[i] = (float)(i % 97) - 3.5f;
    float *din, *dres;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dres, sizeof res);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    tile_twice<<<dim3(3, 3), dim3(16, 16)>>>(din, dres, nt);
    cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost);
    for (int x = 0; x < nt; ++x)
        for (int y = 0; y < nt; ++y) {
            int yn = (y / 16) * 16 + (y % 16 + 1) % 16;  // the tile's next column, wrapping in the tile
            float next = yn < nt ? in[x * nt + yn] : 0.0f;
            CHECK(res[x * nt + y] == 2.0f * in[x * nt + y] + next, "tile_twice %d %d", x, y);
        }

    // ---- count_columns and warp_sums over 32 x 32 ----
    const int nk = 32;
    int keys[nk * nk], counts[7] = {0}, want[7] = {0}, sums[32], *dkeys, *dcounts, *dsums;
    for (int i = 0; i < nk * nk; ++i) { keys[i] = (i * 13) % 7; want[keys[i]]++; }
    cudaMalloc(&dkeys, sizeof keys);
    cudaMalloc(&dcounts, sizeof counts);
    cudaMalloc(&dsums, sizeof sums);
    cudaMemcpy(dkeys, keys, sizeof keys, cudaMemcpyHostToDevice);
    cudaMemcpy(dcounts, counts, sizeof counts, cudaMemcpyHostToDevice);
    count_columns<<<dim3(4, 4), dim3(8, 8)>>>(dkeys, dcounts, nk);
    cudaMemcpy(counts, dcounts, sizeof counts, cudaMemcpyDeviceToHost);
    for (int k = 0; k < 7; ++k) CHECK(counts[k] == want[k], "count_columns %d: %d != %d", k, counts[k], want[k]);
    warp_sums<<<dim3(8, 4), dim3(4, 8)>>>(dkeys, dsums, nk);
    cudaMemcpy(sums, dsums, sizeof sums, cudaMemcpyDeviceToHost);
    for (int bx = 0; bx < 8; ++bx)
        for (int by = 0; by < 4; ++by) {
            int s = 0;
            for (int x = bx * 4; x < bx * 4 + 4; ++x)
                for (int y = by * 8; y < by * 8 + 8; ++y) s += keys[x * nk + y];
            CHECK(sums[by * 8 + bx] == s, "warp_sums %d %d: %d != %d", bx, by, sums[by * 8 + bx], s);
        }
    int pairs[nk * nk], *dpairs;
    cudaMalloc(&dpairs, sizeof pairs);
    warp_pairs<<<dim3(8, 4), dim3(4, 8)>>>(dkeys, dpairs, nk);
    cudaMemcpy(pairs, dpairs, sizeof pairs, cudaMemcpyDeviceToHost);
    for (int x = 0; x < nk; ++x)
        for (int y = 0; y < nk; ++y)
            CHECK(pairs[x * nk + y] == keys[x * nk + y] + keys[(x ^ 1) * nk + y], "warp_pairs %d %d", x, y);
    CHECK(cudaGetLastError() == cudaSuccess, "last error");
    printf("PASS\n");
    return 0;
}
