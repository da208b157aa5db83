// Integer semantics: / and % with negative operands, shifts (incl. >> of a negative int),
// unsigned wrap-around, ternaries, compound assignments, pre/post increment, narrowing casts,
// long long, and a while loop (popcount) inside a __device__ function.  No barriers.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__device__ int crunch(int a, unsigned b, long long c)
{
    int r = a / 7 + a % 7;
    r += (int)(b >> 3) ^ ((a & 0xFFFF) << 2);
    unsigned u = b * 2654435761u;
    u ^= u >> 13;
    r += (int)(u % 1000u);
    int t = a;
    int pre = ++t;
    int post = t++;
    r += pre * 2 - post + t;
    r -= a > 0 ? 3 : -5;
    r *= 3;
    r %= 100003;
    r |= 1;
    r &= ~4;
    r >>= 1;
    long long big = c * 1000003LL + a;
    big /= 17;
    r += (int)(big % 1000);
    char ch = (char)(a & 0x7F);
    short sh = (short)(b & 0x7FFF);
    unsigned char wrap = (unsigned char)(a + 300);
    r += ch + sh + wrap;
    r += (int)((float)a / 4.0f);
    int bits = 0;
    unsigned x = b;
    while (x) {
        x &= x - 1;
        bits++;
    }
    r ^= bits << 20;
    r -= --t;
    return r;
}

// Plain host copy of crunch(), written separately so a translator cannot share it with the kernel.
static int crunch_ref(int a, unsigned b, long long c)
{
    int r = a / 7 + a % 7;
    r += (int)(b >> 3) ^ ((a & 0xFFFF) << 2);
    unsigned u = b * 2654435761u;
    u ^= u >> 13;
    r += (int)(u % 1000u);
    int t = a;
    int pre = ++t;
    int post = t++;
    r += pre * 2 - post + t;
    r -= a > 0 ? 3 : -5;
    r *= 3;
    r %= 100003;
    r |= 1;
    r &= ~4;
    r >>= 1;
    long long big = c * 1000003LL + a;
    big /= 17;
    r += (int)(big % 1000);
    char ch = (char)(a & 0x7F);
    short sh = (short)(b & 0x7FFF);
    unsigned char wrap = (unsigned char)(a + 300);
    r += ch + sh + wrap;
    r += (int)((float)a / 4.0f);
    int bits = 0;
    unsigned x = b;
    while (x) {
        x &= x - 1;
        bits++;
    }
    r ^= bits << 20;
    r -= --t;
    return r;
}

__global__ void crunch_all(const int *a, const unsigned *b, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = crunch(a[i], b[i], (long long)i - n / 2);
}

int main()
{
    const int n = 200003;
    std::vector<int> a(n), out(n);
    std::vector<unsigned> b(n);
    unsigned s = 2463534242u;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        a[i] = (int)(s >> 12) % 100001 - 50000;
        b[i] = s ^ (s << 7);
    }
    int *da, *dout;
    unsigned *db;
    cudaMalloc(&da, n * sizeof(int));
    cudaMalloc(&db, n * sizeof(unsigned));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
    crunch_all<<<(n + 127) / 128, 128>>>(da, db, dout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        int e = crunch_ref(a[i], b[i], (long long)i - n / 2);
        if (out[i] != e) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], e);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
