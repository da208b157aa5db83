// 2-D shared tile in a dim3(16, 8) block: each thread loads one element, one top-level barrier,
// then reads a whole row and a whole column of the tile (loops over shared memory).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define TX 16
#define TY 8

__global__ void cross_sums(const int *in, int *out, int w, int h)
{
    __shared__ int tile[TY][TX];
    int x = blockIdx.x * TX + threadIdx.x;
    int y = blockIdx.y * TY + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = (x < w && y < h) ? in[y * w + x] : 0;
    __syncthreads();
    int row = 0, col = 0;
    for (int k = 0; k < TX; ++k)
        row += tile[threadIdx.y][k];
    for (int k = 0; k < TY; ++k)
        col += tile[k][threadIdx.x];
    if (x < w && y < h)
        out[y * w + x] = row * 1000 + col;
}

int main()
{
    const int w = 250, h = 123;
    std::vector<int> in(w * h), out(w * h);
    for (int i = 0; i < w * h; ++i)
        in[i] = (i * 11) % 17;
    int *din, *dout;
    cudaMalloc(&din, w * h * sizeof(int));
    cudaMalloc(&dout, w * h * sizeof(int));
    cudaMemcpy(din, in.data(), w * h * sizeof(int), cudaMemcpyHostToDevice);
    cross_sums<<<dim3((w + TX - 1) / TX, (h + TY - 1) / TY), dim3(TX, TY)>>>(din, dout, w, h);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, w * h * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int bx = x / TX * TX, by = y / TY * TY;
            int row = 0, col = 0;
            for (int k = bx; k < bx + TX && k < w; ++k)
                row += in[y * w + k];
            for (int k = by; k < by + TY && k < h; ++k)
                col += in[k * w + x];
            if (out[y * w + x] != row * 1000 + col) {
                printf("FAIL: out(%d, %d) = %d, expected %d\n", x, y, out[y * w + x], row * 1000 + col);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
