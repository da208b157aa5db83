// Host regions: a time-step loop (hoisted region, host work in single) and two consecutive
// launches (fused region).
#include <utility>
#include <cuda_runtime.h>

__global__ void relax(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.5f * (in[i] + (i + 1 < n ? in[i + 1] : in[i]));
}

void run(float *a, float *b, int n, int steps)
{
    for (int t = 0; t < steps; ++t) {
        relax<<<(n + 255) / 256, 256>>>(a, b, n);
        std::swap(a, b);
    }
    relax<<<(n + 255) / 256, 256>>>(a, b, n);
    relax<<<(n + 255) / 256, 256>>>(b, a, n);
}

int main()
{
    const int n = 1000;
    float *a, *b;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    for (int i = 0; i < n; ++i) a[i] = b[i] = (float)i;
    run(a, b, n, 4);
    cudaDeviceSynchronize();
    cudaFree(a);
    cudaFree(b);
    return 0;
}
