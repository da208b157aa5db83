// The auto schedule's choice between flat and blocks (openmp_emit/schedule.py): flat only where
// its 64-thread chunks along the innermost thread dimension are full.  Every kernel is free of
// shared memory and barriers, so each could be flat.  Self-checking: prints PASS.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Gaussian elimination's Fan2 shape: 16x16 blocks, a guard that returns.  Rows of 16: blocks.
__global__ void update_rows(float *a, const float *m, int n, int t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n - 1 - t || y >= n - t)
        return;
    int row = x + 1 + t, col = y + t;
    a[row * n + col] -= m[row * n + t] * a[t * n + col];
}

// 1-D blocks of 256: flat.
__global__ void scale(float *v, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] *= s;
}

// 1-D blocks of 32: one short row per block, blocks.
__global__ void offset(float *v, float d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] += d;
}

// 2-D blocks of 128x2: rows of 128 fill flat's chunks, flat.
__global__ void wide_rows(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = 2.0f * in[y * w + x] + (float)y;
}

// 2-D indexing, block size known only at run time: blocks.
__global__ void transpose_add(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[x * h + y] += in[y * w + x];
}

static int check(const char *what, const float *got, const float *want, int count)
{
    for (int i = 0; i < count; ++i)
        if (got[i] != want[i]) {
            printf("%s[%d] = %g, expected %g\n", what, i, got[i], want[i]);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    const int n = 37, t = 2, len = 1000, w = 300, h = 5;
    const int side = argc > 1 ? atoi(argv[1]) : 8;  // transpose_add's block: not a constant
    float *a, *m, *v, *in, *out, *tr;
    cudaMallocManaged(&a, n * n * sizeof(float));
    cudaMallocManaged(&m, n * n * sizeof(float));
    cudaMallocManaged(&v, len * sizeof(float));
    cudaMallocManaged(&in, w * h * sizeof(float));
    cudaMallocManaged(&out, w * h * sizeof(float));
    cudaMallocManaged(&tr, w * h * sizeof(float));
    float *want_a = (float *)malloc(n * n * sizeof(float));
    float *want_v = (float *)malloc(len * sizeof(float));
    float *want_out = (float *)malloc(w * h * sizeof(float));
    float *want_tr = (float *)malloc(w * h * sizeof(float));
    for (int i = 0; i < n * n; ++i) {
        a[i] = want_a[i] = (float)(i % 13) - 6.0f;
        m[i] = (float)(i % 7) * 0.5f;
    }
    for (int i = 0; i < len; ++i)
        v[i] = want_v[i] = (float)(i % 11);
    for (int i = 0; i < w * h; ++i) {
        in[i] = (float)(i % 17);
        out[i] = -1.0f;
        tr[i] = want_tr[i] = (float)(i % 5);
    }

    update_rows<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(a, m, n, t);
    scale<<<(len + 255) / 256, 256>>>(v, 3.0f, len);
    offset<<<(len + 31) / 32, 32>>>(v, 0.5f, len);
    wide_rows<<<dim3((w + 127) / 128, (h + 1) / 2), dim3(128, 2)>>>(in, out, w, h);
    transpose_add<<<dim3((w + side - 1) / side, (h + side - 1) / side), dim3(side, side)>>>(in, tr, w, h);
    cudaDeviceSynchronize();

    // The same updates, one element at a time.
    for (int row = t + 1; row < n; ++row)
        for (int col = t; col < n; ++col)
            want_a[row * n + col] -= m[row * n + t] * want_a[t * n + col];
    for (int i = 0; i < len; ++i)
        want_v[i] = want_v[i] * 3.0f + 0.5f;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            want_out[y * w + x] = 2.0f * in[y * w + x] + (float)y;
            want_tr[x * h + y] += in[y * w + x];
        }
    int bad = check("a", a, want_a, n * n) || check("v", v, want_v, len) || check("out", out, want_out, w * h)
              || check("tr", tr, want_tr, w * h);
    if (!bad)
        printf("PASS\n");
    return bad;
}
