// The shape of Rodinia backprop's layer-forward kernel (PPoPP'23 paper, Fig. 9), written afresh:
// 16x16 blocks, shared input_node / weight_matrix, barriers between phases, a log2 reduction loop
// over power_two with a barrier inside, write-back, a last barrier, then a transposed read.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define HEIGHT 16
#define WIDTH 16

// input: n_in = HEIGHT * gridDim.y values; weights: n_in x hid (row-major), hid = WIDTH * gridDim.x.
// hidden_partial_sum[by * hid + j] = sum over this block's 16 input rows of weights[row][j] * input[row].
__global__ void layerforward(const float *input, float *weights, float *hidden_partial_sum, int hid)
{
    __shared__ float input_node[HEIGHT];
    __shared__ float weight_matrix[HEIGHT][WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * HEIGHT + ty;
    int col = blockIdx.x * WIDTH + tx;
    int index = row * hid + col;
    if (tx == 0)
        input_node[ty] = input[row];
    __syncthreads();
    weight_matrix[ty][tx] = weights[index];
    __syncthreads();
    weight_matrix[ty][tx] *= input_node[ty];
    __syncthreads();
    for (int level = 1; (1 << level) <= HEIGHT; ++level) {
        int power_two = 1 << level;
        if (ty % power_two == 0)
            weight_matrix[ty][tx] += weight_matrix[ty + power_two / 2][tx];
        __syncthreads();
    }
    weights[index] = weight_matrix[ty][tx];
    __syncthreads();
    if (tx == 0)
        hidden_partial_sum[blockIdx.y * hid + blockIdx.x * WIDTH + ty] = weight_matrix[tx][ty];
}

int main()
{
    const int gx = 4, gy = 64;
    const int hid = WIDTH * gx, n_in = HEIGHT * gy;
    std::vector<float> input(n_in), w(n_in * hid), w_out(n_in * hid), partial(gy * hid);
    for (int r = 0; r < n_in; ++r)
        input[r] = (float)((r * 37) % 101) / 101.0f;
    for (int k = 0; k < n_in * hid; ++k)
        w[k] = (float)((k * 7919) % 2001 - 1000) / 4000.0f;
    float *dinput, *dw, *dpartial;
    cudaMalloc(&dinput, n_in * sizeof(float));
    cudaMalloc(&dw, n_in * hid * sizeof(float));
    cudaMalloc(&dpartial, gy * hid * sizeof(float));
    cudaMemcpy(dinput, input.data(), n_in * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w.data(), n_in * hid * sizeof(float), cudaMemcpyHostToDevice);
    layerforward<<<dim3(gx, gy), dim3(WIDTH, HEIGHT)>>>(dinput, dw, dpartial, hid);
    cudaDeviceSynchronize();
    cudaMemcpy(w_out.data(), dw, n_in * hid * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(partial.data(), dpartial, gy * hid * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dinput);
    cudaFree(dw);
    cudaFree(dpartial);

    // Host reference: the same products and the same pairwise tree, block by block.
    for (int by = 0; by < gy; ++by)
        for (int j = 0; j < hid; ++j) {
            float m[HEIGHT];
            for (int ty = 0; ty < HEIGHT; ++ty)
                m[ty] = w[(by * HEIGHT + ty) * hid + j] * input[by * HEIGHT + ty];
            for (int p = 2; p <= HEIGHT; p *= 2)
                for (int ty = 0; ty < HEIGHT; ty += p)
                    m[ty] += m[ty + p / 2];
            for (int ty = 0; ty < HEIGHT; ++ty) {
                float g = w_out[(by * HEIGHT + ty) * hid + j];
                if (std::fabs(g - m[ty]) > 1e-5f * (1 + std::fabs(m[ty]))) {
                    printf("FAIL: weights[%d][%d] = %g, expected %g\n", by * HEIGHT + ty, j, g, m[ty]);
                    return 1;
                }
            }
            if (std::fabs(partial[by * hid + j] - m[0]) > 1e-5f * (1 + std::fabs(m[0]))) {
                printf("FAIL: hidden_partial_sum[%d][%d] = %g, expected %g\n", by, j, partial[by * hid + j], m[0]);
                return 1;
            }
        }
    // End to end: summing the partials over the blocks gives the hidden layer's inputs.
    for (int j = 0; j < hid; ++j) {
        double sum = 0, e = 0;
        for (int by = 0; by < gy; ++by)
            sum += partial[by * hid + j];
        for (int r = 0; r < n_in; ++r)
            e += (double)w[r * hid + j] * input[r];
        double hidden = 1.0 / (1.0 + std::exp(-sum)), expected = 1.0 / (1.0 + std::exp(-e));
        if (std::fabs(hidden - expected) > 1e-4) {
            printf("FAIL: hidden unit %d = %g, expected %g\n", j, hidden, expected);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
