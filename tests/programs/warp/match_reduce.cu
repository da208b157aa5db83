// __match_any_sync / __match_all_sync on int, long long, float and double, and
// __reduce_{add,min,max,and,or,xor}_sync, at block sizes 32, 48, 64, 100, 1024 and a 3-D block.
// The host computes the lane groups and the reductions over the lanes that exist.
#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KINDS 12

__global__ void matches(const int *in, unsigned *out)
{
    int flat = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int size = blockDim.x * blockDim.y * blockDim.z;
    int g = blockIdx.x * size + flat;
    int v = in[g];
    unsigned *o = out + (size_t)g * KINDS;
    o[0] = __match_any_sync(FULL, v % 4);
    o[1] = __match_any_sync(FULL, (long long)(v % 3) << 40);
    o[2] = __match_any_sync(FULL, (float)(v % 2) * 0.5f);
    int same = -1;
    o[3] = __match_all_sync(FULL, (double)(v >= -1000), &same);
    o[4] = same;
    int same2 = -1;
    o[5] = __match_all_sync(FULL, v, &same2);
    o[6] = same2;
    o[7] = __reduce_add_sync(FULL, (unsigned)v);
    o[8] = __reduce_min_sync(FULL, v);
    o[9] = __reduce_max_sync(FULL, (unsigned)(v + 100));
    o[10] = __reduce_and_sync(FULL, (unsigned)v | 0x100u) ^ __reduce_or_sync(FULL, (unsigned)v);
    o[11] = __reduce_xor_sync(FULL, (unsigned)v * 2654435761u);
}

int main()
{
    const dim3 blocks[] = {dim3(32), dim3(48), dim3(64), dim3(100), dim3(1024), dim3(4, 3, 5)};
    int bad = 0;
    for (dim3 block : blocks) {
        unsigned size = block.x * block.y * block.z;
        const int grid = 2;
        int n = size * grid;
        int *in;
        unsigned *out;
        cudaMallocManaged(&in, n * sizeof(int));
        cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(unsigned));
        for (int i = 0; i < n; ++i)
            in[i] = (i * 29) % 97 - 20;
        matches<<<grid, block>>>(in, out);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            for (unsigned f = 0; f < size; ++f) {
                unsigned base = f - f % 32;
                const int *p = in + b * size;
                int v = p[f];
                unsigned m4 = 0, m3 = 0, m2 = 0, exists = 0, add = 0, umax = 0, band = ~0u, bor = 0, bxor = 0;
                int imin = 1 << 30;
                bool all_same = true;
                for (unsigned l = 0; l < 32 && base + l < size; ++l) {
                    int w = p[base + l];
                    exists |= 1u << l;
                    m4 |= (w % 4 == v % 4) << l;
                    m3 |= (w % 3 == v % 3) << l;
                    m2 |= (w % 2 == v % 2) << l;
                    all_same &= w == v;
                    add += (unsigned)w;
                    imin = w < imin ? w : imin;
                    umax = (unsigned)(w + 100) > umax ? (unsigned)(w + 100) : umax;
                    band &= (unsigned)w | 0x100u;
                    bor |= (unsigned)w;
                    bxor ^= (unsigned)w * 2654435761u;
                }
                unsigned want[KINDS] = {m4, m3, m2, exists, 1, all_same ? exists : 0, all_same, add,
                                        (unsigned)imin, umax, band ^ bor, bxor};
                const unsigned *o = out + ((size_t)b * size + f) * KINDS;
                for (int k = 0; k < KINDS; ++k) {
                    if (o[k] != want[k] && bad++ < 5)
                        printf("block %ux%ux%u thread %u kind %d: got %x, want %x\n", block.x, block.y, block.z, f,
                               k, o[k], want[k]);
                }
            }
        }
        cudaFree(in);
        cudaFree(out);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
