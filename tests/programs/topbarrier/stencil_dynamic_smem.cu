// 1-D weighted stencil using dynamic `extern __shared__` memory sized at launch (block + 2*radius);
// radius is a kernel argument, launched with two block sizes; one top-level barrier.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void stencil(const int *in, int *out, int n, int radius)
{
    extern __shared__ int tile[];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int base = blockIdx.x * blockDim.x - radius;
    // Cooperative load of blockDim.x + 2*radius elements (zero outside [0, n)).
    for (int k = threadIdx.x; k < (int)blockDim.x + 2 * radius; k += blockDim.x) {
        int src = base + k;
        tile[k] = src >= 0 && src < n ? in[src] : 0;
    }
    __syncthreads();
    if (g < n) {
        int acc = 0;
        for (int d = -radius; d <= radius; ++d)
            acc += (radius + 1 - (d < 0 ? -d : d)) * tile[threadIdx.x + radius + d];
        out[g] = acc;
    }
}

static bool run(const std::vector<int> &in, int block, int radius)
{
    int n = (int)in.size();
    std::vector<int> out(n);
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    size_t smem = (block + 2 * radius) * sizeof(int);
    stencil<<<(n + block - 1) / block, block, smem>>>(din, dout, n, radius);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        int acc = 0;
        for (int d = -radius; d <= radius; ++d)
            if (i + d >= 0 && i + d < n)
                acc += (radius + 1 - (d < 0 ? -d : d)) * in[i + d];
        if (out[i] != acc) {
            printf("FAIL: block %d radius %d: out[%d] = %d, expected %d\n", block, radius, i, out[i], acc);
            return false;
        }
    }
    return true;
}

int main()
{
    const int n = 123457;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 7 + 3) % 101 - 50;
    if (!run(in, 128, 3) || !run(in, 96, 5) || !run(in, 64, 1))
        return 1;
    printf("PASS\n");
    return 0;
}
