// parallel-licm under a guard: a uniform call that only some threads make is computed at most
// once per block, by the first thread that makes it, and never when no thread does.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__device__ float total(const float *p, int n)
{
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
        s += p[k];
    return s;
}

// Reads p[0..n]: a null p faults if this is called at all.
__device__ float total_inclusive(const float *p, int n)
{
    float s = 0.0f;
    for (int k = 0; k <= n; ++k)
        s += p[k];
    return s;
}

// The paper's normalize, written the usual way: the O(n) sum inside the bounds guard.
__global__ void normalize(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] / total(in, n);
}

// No thread passes the guard (n == 0): total_inclusive(gone, 0) must never run (gone is freed).
__global__ void never_needed(float *out, const float *gone, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = total_inclusive(gone, n);
}

// Inside a loop and behind a short-circuit: the same value, whichever thread comes first.
__global__ void accumulate(float *out, const float *in, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int r = 0; r < rounds; ++r)
        if (r % 2 == 1 && i < n)
            acc += total(in, n);
    if (i < n)
        out[i] = acc;
}

int main()
{
    const int n = 1000, block = 128, blocks = (n + block - 1) / block;
    float *in, *out;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&out, n * sizeof(float));
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
        in[k] = 1.0f + (k % 7) * 0.125f;  // multiples of 1/8: the float sum is exact
        sum += in[k];
    }
    int bad = 0;
    normalize<<<blocks, block>>>(out, in, n);
    cudaDeviceSynchronize();
    for (int k = 0; k < n; ++k)
        if (out[k] != in[k] / sum) { printf("FAIL: normalize[%d] = %g\n", k, out[k]); bad = 1; break; }
    out[0] = -1.0f;
    float *gone;  // large enough to be unmapped when freed: reading it would fault
    cudaMalloc(&gone, 64 << 20);
    cudaFree(gone);
    never_needed<<<blocks, block>>>(out, gone, 0);
    cudaDeviceSynchronize();
    if (out[0] != -1.0f) { printf("FAIL: never_needed wrote\n"); bad = 1; }
    accumulate<<<blocks, block>>>(out, in, n, 5);
    cudaDeviceSynchronize();
    for (int k = 0; k < n; ++k)
        if (out[k] != 2.0f * sum) { printf("FAIL: accumulate[%d] = %g\n", k, out[k]); bad = 1; break; }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
