// Launches written inside macro arguments (as PyTorch's AT_DISPATCH lambdas and error-check
// macros hold them): the block size must still be read right.  Each block stores its values in
// shared memory, every thread reads element 0, and the buffer is then overwritten: the barrier
// between the read of buf[0] and the writes orders thread 0's read against the others' writes.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64
#define DISPATCH(...) do { __VA_ARGS__ } while (0)
#define CHECK(call) do { if ((call) != cudaSuccess) { printf("FAIL: %s\n", #call); return 1; } } while (0)

__global__ void first_plus_mirror(const float *x, float *y)
{
    __shared__ float buf[BLOCK];
    buf[threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    const float first = buf[0];
    const float mirror = buf[BLOCK - 1 - threadIdx.x];
    __syncthreads();
    buf[threadIdx.x] = first + mirror;
    __syncthreads();
    y[blockIdx.x * BLOCK + threadIdx.x] = buf[(threadIdx.x + 1) % BLOCK];
}

__global__ void rotate_2d(const int *x, int *y)
{
    __shared__ int tile[8][8];
    const int base = blockIdx.x * 64;
    tile[threadIdx.y][threadIdx.x] = x[base + threadIdx.y * 8 + threadIdx.x];
    __syncthreads();
    const int corner = tile[0][0];
    __syncthreads();
    tile[threadIdx.x][threadIdx.y] = corner + threadIdx.x;
    __syncthreads();
    y[base + threadIdx.y * 8 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}

int main()
{
    const int rows = 5, n = rows * BLOCK;
    std::vector<float> x(n), y(n);
    std::vector<int> xi(n), yi(n);
    for (int i = 0; i < n; ++i) {
        x[i] = (float)((i * 37) % 101);
        xi[i] = (i * 13) % 57;
    }
    float *dx, *dy;
    int *dxi, *dyi;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dxi, n * sizeof(int)));
    CHECK(cudaMalloc(&dyi, n * sizeof(int)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dxi, xi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    DISPATCH(first_plus_mirror<<<rows, BLOCK>>>(dx, dy););
    DISPATCH(rotate_2d<<<rows, dim3(8, 8)>>>(dxi, dyi););
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(yi.data(), dyi, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < rows; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            const int u = (t + 1) % BLOCK;
            const float want = x[b * BLOCK] + x[b * BLOCK + BLOCK - 1 - u];
            if (y[b * BLOCK + t] != want) {
                printf("FAIL: first_plus_mirror y[%d] = %g, expected %g\n", b * BLOCK + t, y[b * BLOCK + t], want);
                return 1;
            }
            const int ty = t / 8, tx = t % 8;
            const int wanti = xi[b * 64] + ty;  // tile[ty][tx] was written by thread (x=ty, y=tx)
            if (yi[b * 64 + t] != wanti) {
                printf("FAIL: rotate_2d y[%d] = %d, expected %d\n", b * 64 + t, yi[b * 64 + t], wanti);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
