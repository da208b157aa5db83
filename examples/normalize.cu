// The paper's motivating example (Moses et al., PPoPP 2023, Fig. 1): every thread calls a
// __device__ sum over the whole input, so a direct translation is O(n^2); hoisting the
// thread-invariant call out of the kernel makes it O(n).  Usage: normalize [n]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// Sums the whole array.  The result does not depend on the calling thread, so the call can be
// hoisted out of the loop over a block's threads and computed once per block (as in the paper).
__device__ float sum(const float *data, int n)
{
    float total = 0.0f;
    for (int i = 0; i < n; ++i)
        total += data[i];
    return total;
}

// Every thread divides its element by the total: out[i] = in[i] / sum(in).
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
    if (n <= 0) {
        printf("FAIL: usage: %s [n > 0]\n", argv[0]);
        return 1;
    }
    std::vector<float> in(n), out(n);
    // Inputs are multiples of 1/8, so the float sum on the device is exact for n up to ~10^6.
    double total = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = 1.0f + (i % 10) * 0.125f;
        total += in[i];
    }
    float *din, *dout;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    // One thread per element, 256 threads per block; the last block may be partly empty.
    normalize<<<(n + 255) / 256, 256>>>(dout, din, n);
    cudaDeviceSynchronize();
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
