// Subscripts that CUDA computes in 32-bit arithmetic, some of it unsigned (pass
// wide-subscripts): the kernels' results against the same arithmetic on the host, also where
// an unsigned subscript really wraps.
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 16

// lud's tile update: a 2-D block, the subscript unsigned through threadIdx.
__global__ void tile_update(float *m, int n, int offset)
{
    __shared__ float row[TILE][TILE];
    __shared__ float col[TILE][TILE];
    int global_row = offset + (blockIdx.y + 1) * TILE;
    int global_col = offset + (blockIdx.x + 1) * TILE;
    row[threadIdx.y][threadIdx.x] = m[(offset + threadIdx.y) * n + global_col + threadIdx.x];
    col[threadIdx.y][threadIdx.x] = m[(global_row + threadIdx.y) * n + offset + threadIdx.x];
    __syncthreads();
    float sum = 0;
    for (int k = 0; k < TILE; k++)
        sum += col[threadIdx.y][k] * row[k][threadIdx.x];
    m[(global_row + threadIdx.y) * n + global_col + threadIdx.x] -= sum;
}

// A subscript that wraps for real: base + threadIdx.x passes 2^32 at thread 16, where the
// threads that store start; the block's test fails and the loop runs as written.
__global__ void wrapped(float *a, unsigned base)
{
    if (threadIdx.x >= 16)
        a[base + threadIdx.x] = 10.0f + threadIdx.x;
}

// The same wrap in the middle of the threads that run the loop: every thread computes the
// address (the threads below 16 one 2^32 elements past a, which they never read), and only
// 32-bit arithmetic reaches a[0] at thread 16.
__global__ void wrapped_inside(const float *a, const int *reads, unsigned base, float *out)
{
    const float *p = &a[base + threadIdx.x];
    out[threadIdx.x] = reads[threadIdx.x] ? *p : -1.0f;
}

// Reading one element back: threadIdx.x - 1u is 2^32 - 1 at thread 0, which does not read.
__global__ void previous(const float *in, float *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < n)
        out[i] = in[i - 1u] + in[i];
}

// Signed subscripts: int arithmetic on values that unsigned arithmetic computed, with a
// negative offset.
__global__ void shifted_signed(const int *in, int *out, int n, int shift)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x) - shift;
    if (i >= 0 && i < n)
        out[i] = 3 * in[(int)(blockIdx.x * 64u + threadIdx.x) - shift] + 1;
}

// A flat kernel (no shared memory, no barrier): strided by 2 along x.
__global__ void pairs(const float *in, float *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[2u * i] - in[2u * i + 1u];
}

static int check(const char *what, bool ok)
{
    if (!ok)
        printf("FAIL %s\n", what);
    return ok ? 0 : 1;
}

int main()
{
    int failures = 0;

    // tile_update on a 64 x 64 matrix, offset 0: blocks (3, 3).
    const int n = 64;
    float *m, *expect = (float *)malloc(sizeof(float) * n * n);
    cudaMallocManaged(&m, sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++)
        m[i] = expect[i] = (float)((i * 7919) % 101) / 50.0f;
    float *before = (float *)malloc(sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++)
        before[i] = m[i];
    for (int by = 0; by < n / TILE - 1; by++)
        for (int bx = 0; bx < n / TILE - 1; bx++)
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) {
                    int gr = (by + 1) * TILE, gc = (bx + 1) * TILE;
                    float sum = 0;
                    for (int k = 0; k < TILE; k++)
                        sum += before[(gr + ty) * n + k] * before[k * n + gc + tx];
                    expect[(gr + ty) * n + gc + tx] -= sum;
                }
    tile_update<<<dim3(n / TILE - 1, n / TILE - 1), dim3(TILE, TILE)>>>(m, n, 0);
    cudaDeviceSynchronize();
    bool same = true;
    for (int i = 0; i < n * n; i++)  // within rounding: the host's sums may contract differently
        same &= fabsf(m[i] - expect[i]) <= 1e-5f * (1.0f + fabsf(expect[i]));
    failures += check("tile_update", same);

    // wrapped: threads 16..31 store a[0..15].
    float *a;
    cudaMallocManaged(&a, sizeof(float) * 32);
    for (int i = 0; i < 32; i++)
        a[i] = -1.0f;
    wrapped<<<1, 32>>>(a, 0xFFFFFFF0u);
    cudaDeviceSynchronize();
    same = true;
    for (int i = 0; i < 32; i++)
        same &= a[i] == (i < 16 ? 26.0f + i : -1.0f);
    failures += check("wrapped", same);

    int *reads;
    float *read;
    cudaMallocManaged(&reads, sizeof(int) * 32);
    cudaMallocManaged(&read, sizeof(float) * 32);
    for (int i = 0; i < 32; i++)
        reads[i] = i >= 16;
    wrapped_inside<<<1, 32>>>(a, reads, 0xFFFFFFF0u, read);
    cudaDeviceSynchronize();
    same = true;
    for (int i = 0; i < 32; i++)
        same &= read[i] == (i < 16 ? -1.0f : a[i - 16]);
    failures += check("wrapped_inside", same);

    // previous over 1000 elements in blocks of 128.
    const unsigned count = 1000;
    float *in, *out;
    cudaMallocManaged(&in, sizeof(float) * 2 * count);
    cudaMallocManaged(&out, sizeof(float) * count);
    for (unsigned i = 0; i < 2 * count; i++)
        in[i] = (float)(i % 37) * 0.25f;
    for (unsigned i = 0; i < count; i++)
        out[i] = -5.0f;
    previous<<<(count + 127) / 128, 128>>>(in, out, count);
    cudaDeviceSynchronize();
    same = out[0] == -5.0f;
    for (unsigned i = 1; i < count; i++)
        same &= out[i] == in[i - 1] + in[i];
    failures += check("previous", same);

    // shifted_signed: 4 blocks of 64, shift 5.
    int *iin, *iout;
    cudaMallocManaged(&iin, sizeof(int) * 256);
    cudaMallocManaged(&iout, sizeof(int) * 256);
    for (int i = 0; i < 256; i++) {
        iin[i] = i * i - 300;
        iout[i] = 0;
    }
    shifted_signed<<<4, 64>>>(iin, iout, 240, 5);
    cudaDeviceSynchronize();
    same = true;
    for (int i = 0; i < 256; i++)
        same &= iout[i] == (i < 240 && i + 5 < 256 ? 3 * iin[i] + 1 : 0);
    failures += check("shifted_signed", same);

    // pairs: 1000 outputs from 2000 inputs, blocks of 96 (the last one partly past the end).
    for (unsigned i = 0; i < count; i++)
        out[i] = 0.0f;
    pairs<<<(count + 95) / 96, 96>>>(in, out, count);
    cudaDeviceSynchronize();
    same = true;
    for (unsigned i = 0; i < count; i++)
        same &= out[i] == in[2 * i] - in[2 * i + 1];
    failures += check("pairs", same);

    if (failures == 0)
        printf("PASS\n");
    cudaFree(m);
    cudaFree(a);
    cudaFree(reads);
    cudaFree(read);
    cudaFree(in);
    cudaFree(out);
    cudaFree(iin);
    cudaFree(iout);
    free(expect);
    free(before);
    return failures != 0;
}
