// A block sum with warp shuffles: the first warp finishes what the others left in shared memory
// (its `if` is uniform per warp, not per block, so each thread records it in a predicate).
#include <cuda_runtime.h>

__global__ void block_sum(const float *in, float *out)
{
    __shared__ float partial[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    float v = in[blockIdx.x * blockDim.x + warp * 32 + lane];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)blockDim.x / 32 ? partial[lane] : 0.0f;
        v += __shfl_xor_sync(0xffffffff, v, 1);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

int main()
{
    const int n = 256;
    float *in, *out;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&out, 2 * sizeof(float));
    for (int i = 0; i < n; ++i)
        in[i] = 1.0f;
    block_sum<<<2, 128>>>(in, out);
    cudaDeviceSynchronize();
    // Each warp sums 32 ones; the first warp adds pairs of the four partial sums.
    return out[0] == 64.0f && out[1] == 64.0f ? 0 : 1;
}
