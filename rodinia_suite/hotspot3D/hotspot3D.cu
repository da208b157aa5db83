// hotspot3D: transient temperature of a stacked chip (NX x NY x NZ cells), one time step per
// launch.  The GPU way: a 2-D grid of 64x4 blocks covers the x-y plane, and each thread walks up
// its column in z, keeping the cells below, at and above it in registers so that each step reads
// every cell of the column once; x-y neighbours are clamped to the chip's edge, and so are the
// bottom and top layers.  No shared memory, no barriers.
// Usage: hotspot3D NX NY NZ ITERS SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BX 64
#define BY 4

struct Coefficients {
    float cc, cw, ce, cs, cn, cb, ct, sdc, amb;
};

__global__ void hotspot3d_step(const float *power, const float *tin, float *tout, int nx, int ny, int nz,
                               Coefficients k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    int plane = nx * ny;
    int c = j * nx + i;
    int w = i == 0 ? c : c - 1, e = i == nx - 1 ? c : c + 1;
    int n = j == 0 ? c : c - nx, s = j == ny - 1 ? c : c + nx;
    float below = tin[c], here = tin[c];
    for (int z = 0; z < nz; ++z) {
        float above = z < nz - 1 ? tin[c + plane] : here;
        tout[c] = k.cc * here + k.cw * tin[w] + k.ce * tin[e] + k.cs * tin[s] + k.cn * tin[n] + k.cb * below +
                  k.ct * above + k.sdc * power[c] + k.ct * k.amb;
        below = here;
        here = above;
        c += plane;
        w += plane;
        e += plane;
        n += plane;
        s += plane;
    }
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: hotspot3D NX NY NZ ITERS SEED OUTFILE\n");
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]), iters = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    int cells = nx * ny * nz;
    std::vector<float> temp, power;
    thermal_input(rng, cells, temp, power);
    // Lateral conduction 0.1 per side, vertical 0.05, the rest stays: a stable explicit step.
    const Coefficients k = {0.45f, 0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f, 0.5f, 80.0f};
    float *d_power, *d_a, *d_b;
    cudaMalloc(&d_power, cells * sizeof(float));
    cudaMalloc(&d_a, cells * sizeof(float));
    cudaMalloc(&d_b, cells * sizeof(float));
    cudaMemcpy(d_power, power.data(), cells * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_a, temp.data(), cells * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(BX, BY), grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        hotspot3d_step<<<grid, block>>>(d_power, d_a, d_b, nx, ny, nz, k);
        float *swap = d_a;
        d_a = d_b;
        d_b = swap;
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(temp.data(), d_a, cells * sizeof(float), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[6]);
    for (int c = 0; c < cells; c += 7)
        fprintf(out, "%.7e\n", temp[c]);
    fclose(out);
    cudaFree(d_power);
    cudaFree(d_a);
    cudaFree(d_b);
    return 0;
}
