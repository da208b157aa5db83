// Kernels whose next block's reads block-prefetch asks the cache for, each checked against a host
// computation.  Integer data, so sums are exact in any order.  The input of `guarded_at_page_end`
// ends right before an inaccessible page and the grid has blocks past the data: the prefetch of
// those blocks' lines must not fault.
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <cuda_runtime.h>

// Two streams 256 elements apart, unsigned indices, guards in the middle of the body.
__global__ void reduce512(const int *in, int *partial, unsigned n)
{
    __shared__ int s[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 512u + tid;
    int v = 0;
    if (i < n) v = in[i];
    if (i + 256u < n) v += in[i + 256u];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

// 2-D blocks: one prefetch per row of threads; signed index read by every thread.
__global__ void rows_reversed(const int *in, int *out, int width)
{
    __shared__ int tile[8][16];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 8 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    out[y * width + x] = tile[threadIdx.y][15 - threadIdx.x];
}

// A 3-D grid: the next block wraps from the end of a row to the next row and plane.
__global__ void planes(const int *in, int *out)
{
    __shared__ int s[64];
    unsigned b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned i = b * 64u + threadIdx.x;
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[63 - threadIdx.x] + (int)blockIdx.z;
}

// An early return before the barrier: the loop after it skips the threads that left.
__global__ void early_exit(const int *in, int *out, int n)
{
    __shared__ int s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[threadIdx.x] * 3 + s[threadIdx.x & ~1u];  // a neighbour that has not returned
}

// The data ends before an inaccessible page; the grid's last blocks read nothing.
__global__ void guarded_at_page_end(const int *in, int *out, unsigned n)
{
    __shared__ int s[256];
    unsigned i = blockIdx.x * 256u + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    if (i < n) out[i] = s[threadIdx.x] + 1;
}

static int failures = 0;

static void check(const char *what, bool ok)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        ++failures;
    }
}

int main()
{
    // reduce512: 37 blocks, the last one partial.
    const unsigned n = 512 * 36 + 300;
    const unsigned blocks = (n + 511) / 512;
    int *in, *partial;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&partial, blocks * sizeof(int));
    for (unsigned i = 0; i < n; ++i) in[i] = (int)(i % 1000) - 300;
    reduce512<<<blocks, 256>>>(in, partial, n);
    cudaDeviceSynchronize();
    bool ok = true;
    for (unsigned b = 0; b < blocks; ++b) {
        long expected = 0;
        for (unsigned i = b * 512; i < b * 512 + 512 && i < n; ++i) expected += in[i];
        ok = ok && partial[b] == expected;
    }
    check("reduce512", ok);

    // rows_reversed: a 48 x 40 matrix in blocks of 16 x 8.
    const int width = 48, height = 40;
    int *m, *r;
    cudaMallocManaged(&m, width * height * sizeof(int));
    cudaMallocManaged(&r, width * height * sizeof(int));
    for (int i = 0; i < width * height; ++i) m[i] = i * 7 + 1;
    rows_reversed<<<dim3(width / 16, height / 8), dim3(16, 8)>>>(m, r, width);
    cudaDeviceSynchronize();
    ok = true;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            ok = ok && r[y * width + x] == m[y * width + (x / 16) * 16 + 15 - x % 16];
    check("rows_reversed", ok);

    // planes: a 3 x 2 x 4 grid of 64-thread blocks.
    const unsigned total = 3 * 2 * 4 * 64;
    int *p, *q;
    cudaMallocManaged(&p, total * sizeof(int));
    cudaMallocManaged(&q, total * sizeof(int));
    for (unsigned i = 0; i < total; ++i) p[i] = (int)(i * 13 % 101);
    planes<<<dim3(3, 2, 4), 64>>>(p, q);
    cudaDeviceSynchronize();
    ok = true;
    for (unsigned i = 0; i < total; ++i) {
        unsigned b = i / 64, z = b / 6;
        ok = ok && q[i] == p[b * 64 + 63 - i % 64] + (int)z;
    }
    check("planes", ok);

    // early_exit: 1000 elements in blocks of 128.
    const int e = 1000;
    int *ein, *eout;
    cudaMallocManaged(&ein, e * sizeof(int));
    cudaMallocManaged(&eout, e * sizeof(int));
    for (int i = 0; i < e; ++i) { ein[i] = i - 17; eout[i] = 0; }
    early_exit<<<(e + 127) / 128, 128>>>(ein, eout, e);
    cudaDeviceSynchronize();
    ok = true;
    for (int i = 0; i < e; ++i) ok = ok && eout[i] == (i - 17) * 3 + ((i & ~1) - 17);
    check("early_exit", ok);

    // guarded_at_page_end: 300 ints ending exactly at an inaccessible page, 8 blocks.
    const long page = sysconf(_SC_PAGESIZE);
    char *region = (char *)mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(region + page, page, PROT_NONE);
    const unsigned g = 300;
    int *gin = (int *)(region + page) - g;
    int *gout;
    cudaMallocManaged(&gout, 8 * 256 * sizeof(int));
    for (unsigned i = 0; i < g; ++i) gin[i] = (int)i * 5;
    guarded_at_page_end<<<8, 256>>>(gin, gout, g);
    cudaDeviceSynchronize();
    ok = true;
    for (unsigned i = 0; i < g; ++i) ok = ok && gout[i] == (int)i * 5 + 1;
    check("guarded_at_page_end", ok);

    if (failures == 0) printf("PASS\n");
    return failures != 0;
}
