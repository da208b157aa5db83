// Shared memory written through C++ references: a __device__ function's reference parameter bound
// to a shared element, a local reference bound to one, and a variable a function changes through
// a reference parameter.  The barriers order these writes against other threads' reads: the
// analysis must see the writes through the references (they are not thread-private).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__device__ void put(float &dst, float v) { dst = v; }
__device__ void next_slot(int &i) { i = (i + 1) % BLOCK; }

__global__ void mirror(const float *in, float *out)
{
    __shared__ float s[BLOCK];
    __shared__ float t[BLOCK];
    const int base = blockIdx.x * BLOCK;
    put(s[threadIdx.x], in[base + threadIdx.x]);
    __syncthreads();
    float &mine = t[threadIdx.x];
    mine = 2.0f * s[BLOCK - 1 - threadIdx.x];
    __syncthreads();
    int slot = threadIdx.x;
    next_slot(slot);
    out[base + threadIdx.x] = t[slot] + s[slot];
}

int main()
{
    const int blocks = 3, n = blocks * BLOCK;
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (float)((i * 5) % 37);
    float *din, *dout;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    mirror<<<blocks, BLOCK>>>(din, dout);
    cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            const int u = (t + 1) % BLOCK;
            const float want = 2.0f * in[b * BLOCK + BLOCK - 1 - u] + in[b * BLOCK + u];
            if (out[b * BLOCK + t] != want) {
                printf("FAIL: out[%d] = %g, expected %g\n", b * BLOCK + t, out[b * BLOCK + t], want);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
