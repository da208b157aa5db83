// A warp per row: the loop's trip count differs between the warps of a block, so each thread
// keeps its own loop state (done_LINE) and the block loops while any thread is still in.
#include <cuda_runtime.h>

__global__ void row_sums(const float *m, int rows, float *out)
{
    for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += gridDim.x * (blockDim.x / 32)) {
        int lane = threadIdx.x % 32;
        float v = m[r * 32 + lane];
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_xor_sync(0xffffffff, v, offset);
        if (lane == 0)
            out[r] = v;
    }
}

int main()
{
    const int rows = 5;
    float *m, *out;
    cudaMallocManaged(&m, rows * 32 * sizeof(float));
    cudaMallocManaged(&out, rows * sizeof(float));
    for (int i = 0; i < rows * 32; ++i)
        m[i] = 1.0f;
    row_sums<<<1, 64>>>(m, rows, out);
    cudaDeviceSynchronize();
    for (int r = 0; r < rows; ++r)
        if (out[r] != 32.0f)
            return 1;
    return 0;
}
