// Matrix transpose with dim3(16,16) blocks through a padded static shared tile [16][17]; one
// top-level barrier, 2-D grid, sizes that are not multiples of 16 (guards on load and store).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define TILE 16

__global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols)
        tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    __syncthreads();
    // The block writes the transposed tile: output row = input column.
    int oc = blockIdx.y * TILE + threadIdx.x;  // column in out (= row in in)
    int orow = blockIdx.x * TILE + threadIdx.y; // row in out (= column in in)
    if (orow < cols && oc < rows)
        out[orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}

int main()
{
    const int rows = 301, cols = 517;
    std::vector<float> in(rows * cols), out(rows * cols, -1.0f);
    for (int i = 0; i < rows * cols; ++i)
        in[i] = (float)((i * 37) % 1009) - 500.0f;
    float *din, *dout;
    cudaMalloc(&din, rows * cols * sizeof(float));
    cudaMalloc(&dout, rows * cols * sizeof(float));
    cudaMemcpy(din, in.data(), rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose<<<grid, block>>>(din, dout, rows, cols);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, rows * cols * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (out[c * rows + r] != in[r * cols + c]) {
                printf("FAIL: out[%d][%d] = %g, expected %g\n", c, r, out[c * rows + r], in[r * cols + c]);
                return 1;
            }
    printf("PASS\n");
    return 0;
}
