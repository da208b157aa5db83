// Type punning through locals, as fp16/bf16 kernels pack and unpack vector registers: a local
// uint4 written and read as floats, and a float4 read as ints.  nvcc compiles these as written;
// under g++'s strict aliasing (-O2 and up) the stores to the uint4 may be dropped.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale_packed(const uint4 *in, uint4 *out, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 packed = in[i];
    uint4 result;
#pragma unroll
    for (int k = 0; k < 4; ++k)
        reinterpret_cast<float *>(&result)[k] = reinterpret_cast<const float *>(&packed)[k] * s;
    out[i] = result;
}

__global__ void sign_bits(const float4 *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = in[i];
    v.y = -v.y;
    const int *bits = reinterpret_cast<const int *>(&v);
    out[i] = (bits[0] < 0) | (bits[1] < 0) << 1 | (bits[2] < 0) << 2 | (bits[3] < 0) << 3;
}

int main()
{
    const int n = 300;
    static float h[4 * n], r[4 * n];
    static int signs[n];
    for (int i = 0; i < 4 * n; ++i) h[i] = (i % 3 == 0 ? -0.5f : 0.5f) * (i + 1);
    uint4 *din, *dout;
    int *dsigns;
    cudaMalloc(&din, sizeof h);
    cudaMalloc(&dout, sizeof r);
    cudaMalloc(&dsigns, sizeof signs);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    scale_packed<<<(n + 127) / 128, 128>>>(din, dout, 2.0f, n);
    sign_bits<<<(n + 63) / 64, 64>>>(reinterpret_cast<const float4 *>(din), dsigns, n);
    cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost);
    cudaMemcpy(signs, dsigns, sizeof signs, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 4 * n; ++i)
        if (r[i] != 2.0f * h[i]) { printf("FAIL: element %d is %g, expected %g\n", i, r[i], 2.0f * h[i]); return 1; }
    for (int i = 0; i < n; ++i) {
        int expected = (h[4 * i] < 0) | (h[4 * i + 1] > 0) << 1 | (h[4 * i + 2] < 0) << 2 | (h[4 * i + 3] < 0) << 3;
        if (signs[i] != expected) { printf("FAIL: signs %d are %d, expected %d\n", i, signs[i], expected); return 1; }
    }
    printf("PASS\n");
    return 0;
}
