// Transpose through a padded shared tile [16][17] where each block walks several tiles in a
// block-uniform loop: load, barrier, transposed store, barrier (protects the tile for reuse).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define TILE 16

__global__ void transpose(const int *in, int *out, int rows, int cols)
{
    __shared__ int tile[TILE][TILE + 1];
    int tiles_y = (rows + TILE - 1) / TILE;
    int c = blockIdx.x * TILE + threadIdx.x;
    for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
        int r = by * TILE + threadIdx.y;
        if (r < rows && c < cols)
            tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
        __syncthreads();
        int orow = blockIdx.x * TILE + threadIdx.y;  // = input column
        int ocol = by * TILE + threadIdx.x;          // = input row
        if (orow < cols && ocol < rows)
            out[orow * rows + ocol] = tile[threadIdx.x][threadIdx.y];
        __syncthreads();
    }
}

int main()
{
    const int rows = 333, cols = 190;
    std::vector<int> in(rows * cols), out(rows * cols);
    for (int i = 0; i < rows * cols; ++i)
        in[i] = i * 3 - 7;
    int *din, *dout;
    cudaMalloc(&din, rows * cols * sizeof(int));
    cudaMalloc(&dout, rows * cols * sizeof(int));
    cudaMemcpy(din, in.data(), rows * cols * sizeof(int), cudaMemcpyHostToDevice);
    transpose<<<dim3((cols + TILE - 1) / TILE, 4), dim3(TILE, TILE)>>>(din, dout, rows, cols);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, rows * cols * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (out[c * rows + r] != in[r * cols + c]) {
                printf("FAIL: out[%d][%d] = %d, expected %d\n", c, r, out[c * rows + r], in[r * cols + c]);
                return 1;
            }
    printf("PASS\n");
    return 0;
}
