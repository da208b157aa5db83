// Shift counts of the operand's width or more: a GPU shifts every bit out (0, or -1 for >> of a
// negative signed value), where x86 masks the count (x << 32 == x).  32- and 64-bit, signed and
// unsigned, the four operators, and a bit packer in the style of Rodinia's huffman encoder, where
// a code word of 32 bits shifts the whole accumulator out.
#include <cstdio>
#include <cuda_runtime.h>

const int N = 80;  // counts 0..79

__global__ void shifts(const int *count, unsigned *u32, int *s32, unsigned long long *u64, long long *s64)
{
    constexpr int kLogLanes = 5;
    static_assert((1u << kLogLanes) == 32u, "a shift in a constant expression stays one");
    int i = threadIdx.x;
    int n = count[i];
    unsigned u = 0xF00Fu + i;
    int s = -1000 - i;
    unsigned long long ul = 0xF0F0F0F0F0F0F0F0ull;
    long long sl = -123456789012ll;
    u32[4 * i] = u << n;
    u32[4 * i + 1] = u >> n;
    s32[4 * i] = s << n;
    s32[4 * i + 1] = s >> n;
    u64[4 * i] = ul << n;
    u64[4 * i + 1] = ul >> n;
    s64[4 * i] = sl >> n;
    u <<= n;
    s >>= n;
    ul >>= n;
    sl <<= n;
    u32[4 * i + 2] = u;
    s32[4 * i + 2] = s;
    u64[4 * i + 2] = ul;
    s64[4 * i + 2] = sl;
    unsigned short h = 0xABCD;  // promoted to int: 32 bits
    u32[4 * i + 3] = h << n;
    s32[4 * i + 3] = 0x40000000 >> (n - 1) << 1;  // a count from an expression
}

// Appends `len` bits to a 32-bit accumulator (a __device__ function that reads no thread index).
__device__ unsigned append_bits(unsigned acc, unsigned code, int len)
{
    return (acc << len) | code;
}

// Packs `len` low bits of each code into a 32-bit accumulator, high bits first, and stores the
// accumulator after each code.
__global__ void pack(const unsigned *code, const int *len, unsigned *out, int n)
{
    unsigned acc = 0;
    for (int k = 0; k < n; ++k) {
        acc = append_bits(acc, code[k], len[k]);
        out[k] = acc;
    }
}

static unsigned long long gpu_shl(unsigned long long x, int n, int width)
{
    return n >= width ? 0 : x << n;
}

static long long gpu_shr(long long x, int n, int width)  // sign-filling
{
    return n >= width ? (x < 0 ? -1 : 0) : x >> n;
}

int main()
{
    int count[N], *dcount, *ds32, *dlen;
    unsigned *du32, *dcode, *dpacked;
    unsigned long long *du64;
    long long *ds64;
    for (int i = 0; i < N; ++i) count[i] = i;
    cudaMalloc(&dcount, sizeof count);
    cudaMalloc(&du32, 4 * N * sizeof(unsigned));
    cudaMalloc(&ds32, 4 * N * sizeof(int));
    cudaMalloc(&du64, 4 * N * sizeof(unsigned long long));
    cudaMalloc(&ds64, 4 * N * sizeof(long long));
    cudaMemcpy(dcount, count, sizeof count, cudaMemcpyHostToDevice);
    shifts<<<1, N>>>(dcount, du32, ds32, du64, ds64);
    static unsigned u32[4 * N];
    static int s32[4 * N];
    static unsigned long long u64[4 * N];
    static long long s64[4 * N];
    cudaMemcpy(u32, du32, sizeof u32, cudaMemcpyDeviceToHost);
    cudaMemcpy(s32, ds32, sizeof s32, cudaMemcpyDeviceToHost);
    cudaMemcpy(u64, du64, sizeof u64, cudaMemcpyDeviceToHost);
    cudaMemcpy(s64, ds64, sizeof s64, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; ++i) {
        int n = i;
        unsigned u = 0xF00Fu + i;
        long long s = -1000 - i;
        unsigned long long ul = 0xF0F0F0F0F0F0F0F0ull;
        long long sl = -123456789012ll;
        unsigned long long expected[13] = {
            (unsigned)gpu_shl(u, n, 32), n >= 32 ? 0u : u >> n,
            (unsigned)(int)gpu_shl((unsigned)(int)s, n, 32), (unsigned)(int)gpu_shr(s, n, 32),
            gpu_shl(ul, n, 64), n >= 64 ? 0ull : ul >> n, (unsigned long long)gpu_shr(sl, n, 64),
            (unsigned)gpu_shl(u, n, 32), (unsigned)(int)gpu_shr(s, n, 32), n >= 64 ? 0ull : ul >> n,
            gpu_shl((unsigned long long)sl, n, 64), (unsigned)gpu_shl(0xABCD, n, 32),
            (unsigned)(int)(n == 0 ? 0 : gpu_shl((unsigned)gpu_shr(0x40000000, n - 1, 32), 1, 32))};
        unsigned long long got[13] = {
            u32[4 * i], u32[4 * i + 1], (unsigned)s32[4 * i], (unsigned)s32[4 * i + 1],
            u64[4 * i], u64[4 * i + 1], (unsigned long long)s64[4 * i],
            u32[4 * i + 2], (unsigned)s32[4 * i + 2], u64[4 * i + 2], (unsigned long long)s64[4 * i + 2],
            u32[4 * i + 3], (unsigned)s32[4 * i + 3]};
        for (int k = 0; k < 13; ++k)
            if (k != 12 || n > 0)  // a count of -1 (n == 0) is undefined on every machine
                if (got[k] != expected[k]) {
                    printf("FAIL: shift %d by %d: 0x%llx, expected 0x%llx\n", k, n, got[k], expected[k]);
                    return 1;
                }
    }

    const int codes = 6;
    unsigned code[codes] = {0x5u, 0xDEADBEEFu, 0x3u, 0x1u, 0x7u, 0x12345678u};
    int len[codes] = {3, 32, 2, 1, 3, 32};
    cudaMalloc(&dcode, sizeof code);
    cudaMalloc(&dlen, sizeof len);
    cudaMalloc(&dpacked, codes * sizeof(unsigned));
    cudaMemcpy(dcode, code, sizeof code, cudaMemcpyHostToDevice);
    cudaMemcpy(dlen, len, sizeof len, cudaMemcpyHostToDevice);
    pack<<<1, 1>>>(dcode, dlen, dpacked, codes);
    unsigned packed[codes], acc = 0;
    cudaMemcpy(packed, dpacked, sizeof packed, cudaMemcpyDeviceToHost);
    for (int k = 0; k < codes; ++k) {
        acc = (unsigned)gpu_shl(acc, len[k], 32) | code[k];
        if (packed[k] != acc) {
            printf("FAIL: packed word %d is 0x%x, expected 0x%x\n", k, packed[k], acc);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
