// Dynamic shared memory sized at launch, 2-D blocks, and a value that lives across a barrier.
#include <cstdio>

__global__ void transpose_tile(const float *in, float *out, int width)
{
    extern __shared__ float tile[];
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    float v = in[y * width + x];
    tile[threadIdx.y * (blockDim.x + 1) + threadIdx.x] = v;
    __syncthreads();
    unsigned tx = blockIdx.y * blockDim.y + threadIdx.x;
    unsigned ty = blockIdx.x * blockDim.x + threadIdx.y;
    out[ty * width + tx] = tile[threadIdx.x * (blockDim.x + 1) + threadIdx.y] + 0.0f * v;
}

int main()
{
    const int w = 64;
    float *in, *out;
    cudaMallocManaged(&in, w * w * sizeof(float));
    cudaMallocManaged(&out, w * w * sizeof(float));
    for (int i = 0; i < w * w; ++i) in[i] = i;
    dim3 block(16, 16);
    dim3 grid(w / 16, w / 16);
    transpose_tile<<<grid, block, 16 * 17 * sizeof(float)>>>(in, out, w);
    cudaDeviceSynchronize();
    bool ok = true;
    for (int y = 0; y < w; ++y)
        for (int x = 0; x < w; ++x)
            ok = ok && out[x * w + y] == in[y * w + x];
    printf("%s\n", ok ? "PASS" : "FAIL");
    return 0;
}
