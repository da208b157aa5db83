// CUDA vector types: float4 arrays with make_float4, int2 with make_int2, and a __device__
// function returning float2; member access .x/.y/.z/.w on loads, temporaries and stores.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__device__ float2 minmax4(float4 v)
{
    float lo = fminf(fminf(v.x, v.y), fminf(v.z, v.w));
    float hi = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
    return make_float2(lo, hi);
}

__global__ void vec_ops(const float4 *a, const int2 *p, float4 *out, int2 *pout, float2 *range, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = a[i];
        int2 q = p[i];
        float s = (float)q.x;
        out[i] = make_float4(v.x * s, v.y + v.w, v.z - s, v.w * 0.5f);
        pout[i] = make_int2(q.y, q.x + q.y);
        range[i] = minmax4(v);
    }
}

int main()
{
    const int n = 65537;
    std::vector<float4> a(n), out(n);
    std::vector<int2> p(n), pout(n);
    std::vector<float2> range(n);
    for (int i = 0; i < n; ++i) {
        a[i] = make_float4((float)(i % 10), (float)(i % 7) - 3.0f, 0.5f * (i % 5), -(float)(i % 3));
        p[i] = make_int2(i % 9 - 4, i * 2);
    }
    float4 *da, *dout;
    int2 *dp, *dpout;
    float2 *drange;
    cudaMalloc(&da, n * sizeof(float4));
    cudaMalloc(&dout, n * sizeof(float4));
    cudaMalloc(&dp, n * sizeof(int2));
    cudaMalloc(&dpout, n * sizeof(int2));
    cudaMalloc(&drange, n * sizeof(float2));
    cudaMemcpy(da, a.data(), n * sizeof(float4), cudaMemcpyHostToDevice);
    cudaMemcpy(dp, p.data(), n * sizeof(int2), cudaMemcpyHostToDevice);
    vec_ops<<<(n + 255) / 256, 256>>>(da, dp, dout, dpout, drange, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost);
    cudaMemcpy(pout.data(), dpout, n * sizeof(int2), cudaMemcpyDeviceToHost);
    cudaMemcpy(range.data(), drange, n * sizeof(float2), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(dout);
    cudaFree(dp);
    cudaFree(dpout);
    cudaFree(drange);
    for (int i = 0; i < n; ++i) {
        float4 v = a[i];
        float s = (float)p[i].x;
        float e[4] = {v.x * s, v.y + v.w, v.z - s, v.w * 0.5f};
        float g[4] = {out[i].x, out[i].y, out[i].z, out[i].w};
        for (int k = 0; k < 4; ++k)
            if (g[k] != e[k]) {
                printf("FAIL: out[%d] component %d = %g, expected %g\n", i, k, g[k], e[k]);
                return 1;
            }
        if (pout[i].x != p[i].y || pout[i].y != p[i].x + p[i].y) {
            printf("FAIL: pout[%d] = (%d, %d)\n", i, pout[i].x, pout[i].y);
            return 1;
        }
        float lo = std::fmin(std::fmin(v.x, v.y), std::fmin(v.z, v.w));
        float hi = std::fmax(std::fmax(v.x, v.y), std::fmax(v.z, v.w));
        if (range[i].x != lo || range[i].y != hi) {
            printf("FAIL: range[%d] = (%g, %g), expected (%g, %g)\n", i, range[i].x, range[i].y, lo, hi);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
