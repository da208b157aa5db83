// The paper's motivating example (Moses et al., PPoPP 2023, Fig. 1): every thread calls a
// __device__ sum over the whole input, so a direct translation is O(n^2); hoisting the
// thread-invariant call out of the kernel makes it O(n).  Usage: normalize [n]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__device__ float sum(const float *data, int n)
{
    float total = 0.0f;
    for (int i = 0; i < n; ++i)
        total += data[i];
    return total;
}

__global__ void normalize(float *out, const float *in, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float s = sum(in, n);
    if (tid < n)
        out[tid] = in[tid] / s;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 4096;
    std::vector<float> in(n), out(n);
    double total = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = 1.0f + (i % 10) * 0.125f;
        total += in[i];
    }
    float *din, *dout;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    normalize<<<(n + 255) / 256, 256>>>(dout, din, n);
    cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        double expected = in[i] / total;
        if (std::fabs(out[i] - expected) > 1e-4 * expected) {
            printf("FAIL: out[%d] = %g, expected %g\n", i, out[i], expected);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
