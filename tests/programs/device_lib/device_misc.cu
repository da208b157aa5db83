// Device-side odds and ends: kernel printf, __ldg, __restrict__, __launch_bounds__,
// #pragma unroll, clock()/clock64() and __nanosleep.  (A failing device assert is its own
// program, device_assert.cu, since it must abort.)
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

#define N 1000
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

__global__ void __launch_bounds__(256, 2) saxpy_ldg(int n, float a, const float *__restrict__ x,
                                                    float *__restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(i < n);  // holds: must not fire
        y[i] = a * __ldg(&x[i]) + __ldg(y + i);
    }
}

__global__ void unrolled_dot(const int *v, int *out)
{
    int t = threadIdx.x, s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k)
        s += v[t * 8 + k] * (k + 1);
#pragma unroll 4
    for (int k = 0; k < 8; ++k)
        s -= v[t * 8 + k];
    out[t] = s;
}

__global__ void timing(long long *t64, long *t32, int spins)
{
    long long start64 = clock64();
    long start = clock();
    __nanosleep(1000);
    volatile int sink = 0;
    for (int k = 0; k < spins; ++k) sink = sink + k;
    long long end64 = clock64();
    long end = clock();
    t64[threadIdx.x] = end64 - start64;
    t32[threadIdx.x] = end - start;
}

__global__ void hello(int value, float f)
{
    printf("thread %d of block %d: value=%d f=%.2f\n", (int)threadIdx.x, (int)blockIdx.x, value + (int)threadIdx.x, f);
}

int main()
{
    float hx[N], hy[N], r[N], *dx, *dy;
    for (int i = 0; i < N; ++i) { hx[i] = i * 0.5f; hy[i] = 1000.0f - i; }
    cudaMalloc(&dx, sizeof hx);
    cudaMalloc(&dy, sizeof hy);
    cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice);
    saxpy_ldg<<<(N + 255) / 256, 256>>>(N, 2.0f, dx, dy);
    cudaMemcpy(r, dy, sizeof r, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; ++i) CHECK(r[i] == 2.0f * hx[i] + hy[i], "saxpy %d: %f", i, r[i]);

    int v[64 * 8], out[64], *dv, *dout;
    for (int i = 0; i < 64 * 8; ++i) v[i] = (i * 37) % 101 - 50;
    cudaMalloc(&dv, sizeof v);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice);
    unrolled_dot<<<1, 64>>>(dv, dout);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; ++t) {
        int s = 0;
        for (int k = 0; k < 8; ++k) s += v[t * 8 + k] * k;
        CHECK(out[t] == s, "unrolled %d: %d != %d", t, out[t], s);
    }

    long long t64[4], *d64; long t32[4], *d32;
    cudaMalloc(&d64, sizeof t64);
    cudaMalloc(&d32, sizeof t32);
    timing<<<1, 4>>>(d64, d32, 2000);
    cudaMemcpy(t64, d64, sizeof t64, cudaMemcpyDeviceToHost);
    cudaMemcpy(t32, d32, sizeof t32, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 4; ++t) CHECK(t64[t] > 0 && t32[t] >= 0, "clocks not monotonic: %lld %ld", t64[t], t32[t]);

    fflush(stdout);
    hello<<<1, 1>>>(41, 2.5f);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    hello<<<2, 3>>>(100, -1.0f);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    printf("PASS\n");
    return 0;
}
