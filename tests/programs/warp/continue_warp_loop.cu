// `continue` in loops around __syncwarp() exchanges (loops the split lowering runs with per-thread
// loop state): a block-uniform continue before the exchange, a loop whose body holds a while of
// exchanges under a warp-uniform branch and ends in a block-uniform continue (the soak's kernel
// s1u4k26 once translated this to `if (skip_40) { goto ; }`, which g++ rejected), and a
// warp-uniform continue between two __syncwarp()s.  Block sizes 64, 96, 256.
#include <cstdio>
#include <cuda_runtime.h>

#define PHASES 3

__host__ __device__ unsigned partner(unsigned t, unsigned k) { return (t & ~31u) | ((t + k) & 31u); }

__global__ void skip(const unsigned *in, unsigned *out, int rounds)
{
    __shared__ unsigned w[1024];
    unsigned t = threadIdx.x, warp = t / 32u;
    unsigned g = blockIdx.x * blockDim.x + t;
    unsigned v = in[g];
    for (int r = 0; r < rounds; ++r) {
        if (r == 1)
            continue;
        w[t] = v + r;
        __syncwarp();
        v = v * 3u + w[partner(t, 1)];
        __syncwarp();
    }
    out[g * PHASES] = v;
    for (unsigned r = 0; r < 3u; ++r) {
        int k = 0;
        while (k < rounds) {
            if (warp % 2u == 1u) {
                __syncwarp();
                w[t] = r + 7u * t;
                __syncwarp();
                v = v * 11u + w[partner(t, 27)];
            }
            ++k;
        }
        if (r == 1u)
            continue;
        v += 5u;
    }
    out[g * PHASES + 1] = v;
    for (int r = 0; r < rounds; ++r) {
        w[t] = v;
        __syncwarp();
        if (warp % 2u == 0u && r == 0)
            continue;
        v += w[t ^ 1u];
        __syncwarp();
    }
    out[g * PHASES + 2] = v;
}

int main()
{
    const int sizes[] = {64, 96, 256};
    const int grid = 3, rounds = 3;
    int bad = 0;
    for (int size : sizes) {
        const int n = size * grid;
        unsigned *in, *out;
        cudaMallocManaged(&in, n * sizeof(unsigned));
        cudaMallocManaged(&out, (size_t)n * PHASES * sizeof(unsigned));
        for (int i = 0; i < n; ++i)
            in[i] = (unsigned)i * 2654435761u + 12345u;
        skip<<<grid, size>>>(in, out, rounds);
        cudaDeviceSynchronize();
        unsigned v[1024], w[1024], want[PHASES][1024];
        for (int b = 0; b < grid; ++b) {
            for (int t = 0; t < size; ++t)
                v[t] = in[b * size + t];
            for (int r = 0; r < rounds; ++r) {
                if (r == 1)
                    continue;
                for (int t = 0; t < size; ++t)
                    w[t] = v[t] + r;
                for (int t = 0; t < size; ++t)
                    v[t] = v[t] * 3u + w[partner(t, 1)];
            }
            for (int t = 0; t < size; ++t)
                want[0][t] = v[t];
            for (unsigned r = 0; r < 3u; ++r) {
                for (int k = 0; k < rounds; ++k) {
                    for (int t = 0; t < size; ++t)
                        w[t] = r + 7u * t;
                    for (int t = 0; t < size; ++t)
                        if ((t / 32) % 2 == 1)
                            v[t] = v[t] * 11u + w[partner(t, 27)];
                }
                if (r == 1u)
                    continue;
                for (int t = 0; t < size; ++t)
                    v[t] += 5u;
            }
            for (int t = 0; t < size; ++t)
                want[1][t] = v[t];
            for (int r = 0; r < rounds; ++r) {
                for (int t = 0; t < size; ++t)
                    w[t] = v[t];
                for (int t = 0; t < size; ++t)
                    if (!((t / 32) % 2 == 0 && r == 0))
                        v[t] += w[t ^ 1];
            }
            for (int t = 0; t < size; ++t)
                want[2][t] = v[t];
            for (int t = 0; t < size; ++t)
                for (int p = 0; p < PHASES; ++p) {
                    unsigned got = out[(size_t)(b * size + t) * PHASES + p];
                    if (got != want[p][t] && bad++ < 10)
                        printf("block size %d block %d thread %d phase %d: got %u, want %u\n", size, b, t, p, got,
                               want[p][t]);
                }
        }
        cudaFree(in);
        cudaFree(out);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
