// Warp votes: __ballot_sync, __any_sync, __all_sync, __activemask in divergent code, a vote
// under a condition uniform per warp, and a vote of the lower half-warp with its own mask, at
// block sizes 32, 48, 64, 100, 1024 and a 2-D block; a loop whose condition is a vote and a loop
// each warp leaves after its own number of rounds.  The host computes the expected masks.
#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KINDS 10

__global__ void votes(const int *in, unsigned *out)
{
    int flat = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int size = blockDim.x * blockDim.y * blockDim.z;
    int g = blockIdx.x * size + flat;
    int lane = flat % 32;
    int warp = flat / 32;
    int p = in[g];
    unsigned *o = out + (size_t)g * KINDS;
    o[0] = __ballot_sync(FULL, p > 0);
    o[1] = __any_sync(FULL, p > 40);
    o[2] = __all_sync(FULL, p >= 0);
    unsigned seen = 0;
    if (lane % 3 == 0) {
        seen = __activemask();            // the lanes that reach it: every third lane
    }
    o[3] = seen;
    unsigned half = 0;
    if (lane < 16) {
        half = __ballot_sync(0x0000ffffu, p % 2 == 0);
    }
    o[4] = half;
    unsigned odd_warps = 7;
    if (warp % 2 == 1) {                  // uniform per warp, not per block
        odd_warps = __ballot_sync(FULL, 1);
    } else {
        odd_warps = __any_sync(FULL, p > 1000000);
    }
    o[5] = odd_warps;
    o[6] = __all_sync(FULL, lane < 32);
    o[7] = __activemask();
    int left = p % 5;
    int rounds = 0;
    while (__any_sync(FULL, left > 0)) {  // a warp loops while any of its lanes has work left
        --left;
        ++rounds;
    }
    o[8] = rounds;
    int acc = 0;
    for (int i = 0; i < 100; ++i) {
        if (i >= warp + 2)                // each warp leaves after its own number of rounds
            break;
        acc += __reduce_add_sync(FULL, 1);
    }
    o[9] = acc;
}

int main()
{
    const dim3 blocks[] = {dim3(32), dim3(48), dim3(64), dim3(100), dim3(1024), dim3(10, 5)};
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
            in[i] = (i * 37) % 50 - 3;
        votes<<<grid, block>>>(in, out);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            for (unsigned f = 0; f < size; ++f) {
                unsigned base = f - f % 32, lane = f % 32, warp = f / 32;
                const int *p = in + b * size;
                unsigned exists = 0, pos = 0, even = 0, every_third = 0, most = 0, lanes = 0;
                int any40 = 0, all0 = 1;
                for (unsigned l = 0; l < 32 && base + l < size; ++l) {
                    exists |= 1u << l;
                    ++lanes;
                    most = p[base + l] % 5 > (int)most ? p[base + l] % 5 : most;
                    pos |= (p[base + l] > 0) << l;
                    any40 |= p[base + l] > 40;
                    all0 &= p[base + l] >= 0;
                    if (l < 16)
                        even |= (p[base + l] % 2 == 0) << l;
                    if (l % 3 == 0)
                        every_third |= 1u << l;
                }
                unsigned want[KINDS] = {pos, (unsigned)any40, (unsigned)all0, lane % 3 == 0 ? every_third : 0,
                                        lane < 16 ? even : 0, warp % 2 == 1 ? exists : 0, 1, exists, most,
                                        (warp + 2) * lanes};
                const unsigned *o = out + ((size_t)b * size + f) * KINDS;
                for (int k = 0; k < KINDS; ++k) {
                    if (o[k] != want[k] && bad++ < 5)
                        printf("block %ux%u thread %u kind %d: got %x, want %x\n", block.x, block.y, f, k, o[k],
                               want[k]);
                }
            }
        }
        cudaFree(in);
        cudaFree(out);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
