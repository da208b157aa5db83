// A struct-of-arrays passed by value as a kernel parameter (pointers + sizes inside), a small
// parameter struct, and a struct with a __host__ __device__ member function.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct Particles {
    float *x, *y;
    float *vx, *vy;
    int n;
};

struct Params {
    float dt;
    float gravity;
    float floor_y;
    __host__ __device__ float damp(float v) const { return v < 0.0f ? -0.5f * v : v; }
};

__global__ void step(Particles p, Params prm)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        p.vy[i] -= prm.gravity * prm.dt;
        p.x[i] += p.vx[i] * prm.dt;
        p.y[i] += p.vy[i] * prm.dt;
        if (p.y[i] < prm.floor_y) {
            p.y[i] = prm.floor_y;
            p.vy[i] = prm.damp(p.vy[i]);
        }
    }
}

int main()
{
    const int n = 50000, steps = 20;
    std::vector<float> hx(n), hy(n), hvx(n), hvy(n);
    for (int i = 0; i < n; ++i) {
        hx[i] = (float)(i % 100);
        hy[i] = 1.0f + (float)(i % 37) * 0.1f;
        hvx[i] = (float)(i % 7) - 3.0f;
        hvy[i] = (float)(i % 11) * 0.5f;
    }
    Params prm = {0.05f, 9.8f, 0.0f};
    Particles d;
    d.n = n;
    cudaMalloc(&d.x, n * sizeof(float));
    cudaMalloc(&d.y, n * sizeof(float));
    cudaMalloc(&d.vx, n * sizeof(float));
    cudaMalloc(&d.vy, n * sizeof(float));
    cudaMemcpy(d.x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d.y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d.vx, hvx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d.vy, hvy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    for (int s = 0; s < steps; ++s)
        step<<<(n + 255) / 256, 256>>>(d, prm);
    cudaDeviceSynchronize();
    std::vector<float> gx(n), gy(n), gvy(n);
    cudaMemcpy(gx.data(), d.x, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(gy.data(), d.y, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(gvy.data(), d.vy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d.x);
    cudaFree(d.y);
    cudaFree(d.vx);
    cudaFree(d.vy);
    // Host reference: the same update, step by step, in float.
    for (int s = 0; s < steps; ++s)
        for (int i = 0; i < n; ++i) {
            hvy[i] -= prm.gravity * prm.dt;
            hx[i] += hvx[i] * prm.dt;
            hy[i] += hvy[i] * prm.dt;
            if (hy[i] < prm.floor_y) {
                hy[i] = prm.floor_y;
                hvy[i] = prm.damp(hvy[i]);
            }
        }
    for (int i = 0; i < n; ++i) {
        if (std::fabs(gx[i] - hx[i]) > 1e-3f * (1 + std::fabs(hx[i])) ||
            std::fabs(gy[i] - hy[i]) > 1e-3f * (1 + std::fabs(hy[i])) ||
            std::fabs(gvy[i] - hvy[i]) > 1e-3f * (1 + std::fabs(hvy[i]))) {
            printf("FAIL: particle %d: (%g, %g, %g), expected (%g, %g, %g)\n", i, gx[i], gy[i], gvy[i], hx[i], hy[i], hvy[i]);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
