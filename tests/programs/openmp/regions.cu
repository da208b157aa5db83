// Host code shapes around kernel launches (launch-regions): a time-step loop with ping-pong
// buffers (hoisted), consecutive launches (fused), a loop whose condition reads a flag the host
// copies back (hoisted, with the barrier at the top of each iteration), and loops that must stay
// as written (a break, a launch argument with a side effect).  Each result is checked on the host.
#include <cstdio>
#include <utility>
#include <cuda_runtime.h>

__global__ void smooth(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float left = i > 0 ? in[i - 1] : in[i];
        float right = i + 1 < n ? in[i + 1] : in[i];
        out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
    }
}

__global__ void scale(float *x, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

__global__ void count_down(int *values, int *active, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && values[i] > 0) {
        values[i] -= 1;
        atomicAdd(active, 1);
    }
}

static void host_smooth(const float *in, float *out, int n)
{
    for (int i = 0; i < n; ++i) {
        float left = i > 0 ? in[i - 1] : in[i];
        float right = i + 1 < n ? in[i + 1] : in[i];
        out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
    }
}

int main()
{
    const int n = 3000, steps = 9, block = 128, grid = (n + block - 1) / block;
    float *a, *b;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    float *ha = new float[n], *hb = new float[n];
    for (int i = 0; i < n; ++i) a[i] = ha[i] = (float)((i * 37) % 101);
    int failures = 0;

    float *src = a, *dst = b;
    for (int t = 0; t < steps; ++t) {
        smooth<<<grid, block>>>(src, dst, n);
        std::swap(src, dst);
    }
    cudaDeviceSynchronize();
    float *hsrc = ha, *hdst = hb;
    for (int t = 0; t < steps; ++t) {
        host_smooth(hsrc, hdst, n);
        std::swap(hsrc, hdst);
    }
    for (int i = 0; i < n; ++i)
        if (src[i] != hsrc[i]) { printf("time steps: %d: %g != %g\n", i, src[i], hsrc[i]); ++failures; break; }

    scale<<<grid, block>>>(src, 2.0f, n);
    scale<<<grid, block>>>(src, 0.5f, n);
    scale<<<grid, block>>>(src, 3.0f, n);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; ++i)
        if (src[i] != hsrc[i] * 3.0f) { printf("consecutive: %d: %g != %g\n", i, src[i], hsrc[i] * 3.0f); ++failures; break; }

    int *values, *active;
    cudaMallocManaged(&values, n * sizeof(int));
    cudaMallocManaged(&active, sizeof(int));
    int expected_rounds = 0;
    for (int i = 0; i < n; ++i) {
        values[i] = i % 7;
        if (values[i] > expected_rounds) expected_rounds = values[i];
    }
    int host_active = 1, rounds = 0;
    while (host_active > 0) {
        *active = 0;
        count_down<<<grid, block>>>(values, active, n);
        cudaDeviceSynchronize();
        host_active = *active;
        rounds += 1;
    }
    if (rounds != expected_rounds + 1) { printf("flag loop: %d rounds, expected %d\n", rounds, expected_rounds + 1); ++failures; }

    int launched = 0;
    for (int t = 0; t < 5; ++t) {
        if (t == 3) break;
        scale<<<grid, block>>>(src, 1.0f, n);
        launched++;
    }
    int k = 0;
    for (int t = 0; t < 3; ++t)
        scale<<<grid, block>>>(src, (float)(++k), n);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; ++i)
        if (src[i] != hsrc[i] * 3.0f * 6.0f) { printf("kept loops: %d: %g != %g\n", i, src[i], hsrc[i] * 18.0f); ++failures; break; }
    if (launched != 3) { printf("break loop launched %d\n", launched); ++failures; }

    cudaFree(a); cudaFree(b); cudaFree(values); cudaFree(active);
    delete[] ha; delete[] hb;
    if (failures == 0) printf("PASS\n");
    return failures != 0;
}
