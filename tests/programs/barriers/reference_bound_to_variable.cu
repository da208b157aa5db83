// Reference parameters of synchronizing __device__ functions bound to variables (inlined, a use
// of the parameter names the variable): a local changed on both sides of a barrier, the same
// local bound to two parameters (each change seen through the other), a __shared__ scalar, a
// kernel parameter read through a const reference, a reference passed on to a nested
// synchronizing call, and the parameter's address taken in the function.
#include <cstdio>
#include <cuda_runtime.h>

#define BLOCK 64

__device__ void bump_twice(int &a, int &b, int *s)
{
    a += 1;
    s[threadIdx.x] = a;
    __syncthreads();
    b *= s[(threadIdx.x + 1) % BLOCK] % 7 + 2;
    __syncthreads();
}

__device__ void scale(const int &by, int &x)
{
    int *p = &x;
    __syncthreads();
    *p = *p * by + 1;
}

__device__ void outer(int &v, const int &n, int *s)
{
    s[threadIdx.x] = v;
    __syncthreads();
    v += s[BLOCK - 1 - threadIdx.x];
    scale(n, v);
}

__device__ void count_in(int &total, int add)
{
    __syncthreads();
    if (threadIdx.x == 0)
        total += add;
    __syncthreads();
}

__global__ void references(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    __shared__ int total;
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    if (t == 0)
        total = 100;
    int x = in[i];
    bump_twice(x, x, s);
    int y = in[i] * 3;
    outer(y, n, s);
    count_in(total, n + blockIdx.x);
    out[2 * i] = x;
    out[2 * i + 1] = y + total;
}

int main()
{
    const int grid = 3, n = 5, count = grid * BLOCK;
    int *in, *out;
    cudaMallocManaged(&in, count * sizeof(int));
    cudaMallocManaged(&out, 2 * count * sizeof(int));
    for (int i = 0; i < count; ++i)
        in[i] = (i * 13 + 5) % 41 - 20;
    references<<<grid, BLOCK>>>(in, out, n);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int b = 0; b < grid; ++b) {
        const int *v = in + b * BLOCK;
        for (int t = 0; t < BLOCK; ++t) {
            int x = v[t] + 1, next = v[(t + 1) % BLOCK] + 1;
            x *= next % 7 + 2;
            int y = v[t] * 3 + v[BLOCK - 1 - t] * 3;
            y = y * n + 1;
            int total = 100 + n + b;
            int i = b * BLOCK + t;
            if (out[2 * i] != x || out[2 * i + 1] != y + total) {
                if (bad++ < 10)
                    printf("FAIL: block %d thread %d: %d %d, expected %d %d\n", b, t, out[2 * i], out[2 * i + 1], x,
                           y + total);
            }
        }
    }
    cudaFree(in);
    cudaFree(out);
    if (bad)
        return 1;
    printf("PASS\n");
    return 0;
}
