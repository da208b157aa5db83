// ATen's gpuAtomicAdd/Max from the compat headers in a kernel whose blocks race on the same
// counters: a histogram in float, double, int and at::Half (counts small enough to be exact in
// half), and a maximum.  Prints PASS when every count is exact.
#include <ATen/cuda/Atomic.cuh>
#include <cstdio>

__global__ void histogram(const int *values, int n, float *f, double *d, int *i, at::Half *h, int *most)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    int bin = values[k];
    gpuAtomicAdd(&f[bin], 1.0f);
    gpuAtomicAdd(&d[bin], 1.0);
    gpuAtomicAddNoReturn(&i[bin], 1);
    gpuAtomicAdd(&h[bin], at::Half(1.0f));
    gpuAtomicMax(most, values[k] * 3);
}

int main()
{
    const int n = 1 << 16, bins = 37;
    int *values, *ints, *most;
    float *floats;
    double *doubles;
    at::Half *halves;
    cudaMallocManaged(&values, n * sizeof(int));
    cudaMallocManaged(&floats, bins * sizeof(float));
    cudaMallocManaged(&doubles, bins * sizeof(double));
    cudaMallocManaged(&ints, bins * sizeof(int));
    cudaMallocManaged(&halves, bins * sizeof(at::Half));
    cudaMallocManaged(&most, sizeof(int));
    int expected[bins] = {0};
    for (int k = 0; k < n; ++k) {
        values[k] = (k * 7919) % bins;
        ++expected[values[k]];
    }
    for (int b = 0; b < bins; ++b) {
        floats[b] = 0;
        doubles[b] = 0;
        ints[b] = 0;
        halves[b] = at::Half(0.0f);
    }
    *most = 0;
    histogram<<<(n + 255) / 256, 256>>>(values, n, floats, doubles, ints, halves, most);
    cudaDeviceSynchronize();
    for (int b = 0; b < bins; ++b) {
        if (floats[b] != expected[b] || doubles[b] != expected[b] || ints[b] != expected[b] ||
            static_cast<float>(halves[b]) != expected[b]) {
            printf("FAIL at bin %d: %g %g %d %g, expected %d\n", b, floats[b], doubles[b], ints[b],
                   static_cast<float>(halves[b]), expected[b]);
            return 1;
        }
    }
    if (*most != 3 * (bins - 1)) {
        printf("FAIL: max %d\n", *most);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
