// backprop: one training step of a network with IN inputs, 16 hidden units and one output.  The
// forward pass of the input layer runs on 16x16 blocks (16 inputs by the 16 hidden units): each
// block multiplies its weights by its inputs in shared memory and sums its 16 rows with a tree
// reduction (barriers in the loop); the host adds the blocks' partial sums, finishes the small
// output layer and the deltas, and a second kernel adjusts the input weights with momentum.
// (Blocks along x: a grid's y extent stops at 65535.)  IN is a multiple of 16.  Usage: backprop IN SEED OUTFILE
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define HID 16
#define ETA 0.3f
#define MOMENTUM 0.3f

__global__ void layerforward(const float *input, const float *weights, float *partial)
{
    __shared__ float node[HID];
    __shared__ float w[HID][HID];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.x * HID + ty;
    if (tx == 0)
        node[ty] = input[row];
    __syncthreads();
    w[ty][tx] = weights[row * HID + tx] * node[ty];
    __syncthreads();
    for (int stride = 1; stride < HID; stride *= 2) {
        if (ty % (2 * stride) == 0)
            w[ty][tx] += w[ty + stride][tx];
        __syncthreads();
    }
    if (ty == 0)
        partial[blockIdx.x * HID + tx] = w[0][tx];
}

__global__ void adjust_weights(const float *delta, const float *input, float *weights, float *old)
{
    int row = blockIdx.x * HID + threadIdx.y, col = threadIdx.x;
    int k = row * HID + col;
    float dw = ETA * delta[col] * input[row] + MOMENTUM * old[k];
    weights[k] += dw;
    old[k] = dw;
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: backprop IN SEED OUTFILE\n");
        return 2;
    }
    int in = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    int blocks = in / HID;
    std::vector<float> input, weights, w2, old(in * HID, 0.0f);
    backprop_input(rng, in, HID, input, weights, w2);
    const float target = 0.9f;
    float *d_input, *d_weights, *d_old, *d_partial, *d_delta;
    cudaMalloc(&d_input, in * sizeof(float));
    cudaMalloc(&d_weights, in * HID * sizeof(float));
    cudaMalloc(&d_old, in * HID * sizeof(float));
    cudaMalloc(&d_partial, blocks * HID * sizeof(float));
    cudaMalloc(&d_delta, HID * sizeof(float));
    cudaMemcpy(d_input, input.data(), in * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weights, weights.data(), in * HID * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_old, old.data(), in * HID * sizeof(float), cudaMemcpyHostToDevice);
    std::vector<float> partial(blocks * HID), hidden(HID), delta(HID);
    double t0 = suite_now();
    dim3 grid(blocks), block(HID, HID);
    layerforward<<<grid, block>>>(d_input, d_weights, d_partial);
    cudaMemcpy(partial.data(), d_partial, blocks * HID * sizeof(float), cudaMemcpyDeviceToHost);
    for (int j = 0; j < HID; ++j) {
        // In double: in float, the rounding of a million partial sums depends on their order
        // enough (5e-4 relative at the full size) to fail the comparison with the OpenMP version.
        double sum = 0.0;
        for (int b = 0; b < blocks; ++b)
            sum += partial[b * HID + j];
        hidden[j] = sigmoid((float)sum);
    }
    float out_sum = 0.0f;
    for (int j = 0; j < HID; ++j)
        out_sum += hidden[j] * w2[j];
    float output = sigmoid(out_sum);
    float delta_out = output * (1.0f - output) * (target - output);
    for (int j = 0; j < HID; ++j)
        delta[j] = hidden[j] * (1.0f - hidden[j]) * delta_out * w2[j];
    cudaMemcpy(d_delta, delta.data(), HID * sizeof(float), cudaMemcpyHostToDevice);
    adjust_weights<<<grid, block>>>(d_delta, d_input, d_weights, d_old);
    cudaMemcpy(weights.data(), d_weights, in * HID * sizeof(float), cudaMemcpyDeviceToHost);
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[3]);
    for (int j = 0; j < HID; ++j)
        fprintf(out, "%.7e\n", hidden[j]);
    fprintf(out, "%.7e\n", output);
    for (int k = 0; k < in * HID; k += 97)
        fprintf(out, "%.7e\n", weights[k]);
    fclose(out);
    cudaFree(d_input);
    cudaFree(d_weights);
    cudaFree(d_old);
    cudaFree(d_partial);
    cudaFree(d_delta);
    return 0;
}
