// Warp collectives under guards on one component of threadIdx (the second stage of a 2-D block
// reduction, if (threadIdx.y == 0) { ... __shfl_down_sync ... }), in 2-D and 3-D blocks whose
// rows are whole warps, so each guard is uniform per warp.  Such a guard has the same value all
// through its branch: the translation tests it in each thread loop, which then runs only the
// threads of that row (none where the row is past blockDim.y).  Guards that the branch can
// change (a local it assigns, a shared flag it clears) must be taken as they were on entry.
#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KINDS 6

__global__ void guarded(const int *in, int *out)
{
    __shared__ int partial[32];
    __shared__ int flag[32];
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned flat = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    const unsigned lane = flat % 32, warp = flat / 32;
    int v = in[blockIdx.x * nthreads + flat];
    int *o = out + (size_t)(blockIdx.x * nthreads + flat) * KINDS;

    int sum = v;
    for (int m = 16; m > 0; m /= 2)
        sum += __shfl_xor_sync(FULL, sum, m);
    o[0] = sum;
    if (lane == 0) {
        partial[warp] = sum;
        flag[warp] = warp % 2;
    }
    __syncthreads();

    // The first row and layer (one or two warps) combines the warps' sums.
    o[1] = -1;
    if (threadIdx.y == 0 && threadIdx.z == 0) {
        int w = lane < nthreads / 32 ? partial[lane] : 0;
        for (int m = 16; m > 0; m /= 2)
            w += __shfl_down_sync(FULL, w, m);
        o[1] = __shfl_sync(FULL, w, 0);
    }

    // Row 5 exists only in blocks of more than 5 rows.
    o[2] = -1;
    if (threadIdx.y == 5)
        o[2] = __popc(__ballot_sync(FULL, v % 2 != 0));

    // Through a local, with an else branch.
    const unsigned row = threadIdx.y;
    if (row == 1)
        o[3] = __shfl_sync(FULL, v, 3);
    else
        o[3] = __shfl_up_sync(FULL, v, 1);

    // The branch clears the shared flag its guard reads (once every lane has tested it: they all
    // reached the first shuffle): the guard holds as it was on entry.
    o[4] = -1;
    if (flag[warp]) {
        int first = __shfl_sync(FULL, v, 0);
        flag[warp] = 0;
        o[4] = first + __shfl_sync(FULL, v, 1);
    }

    // The branch assigns the local its guard reads.
    int k = threadIdx.z;
    o[5] = -1;
    if (k == 1) {
        k = 5;
        o[5] = __shfl_down_sync(FULL, v, 1) + k;
    }
}

int main()
{
    const dim3 blocks[] = {dim3(32, 4, 1), dim3(32, 2, 3), dim3(32, 8, 2), dim3(64, 6, 1), dim3(32, 1, 1)};
    const int grid = 3;
    int bad = 0;
    for (dim3 block : blocks) {
        const int nthreads = block.x * block.y * block.z, n = grid * nthreads;
        int *in, *out;
        cudaMallocManaged(&in, n * sizeof(int));
        cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(int));
        for (int i = 0; i < n; ++i)
            in[i] = (i * 37) % 101 - 40;
        guarded<<<grid, block>>>(in, out);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            const int *p = in + b * nthreads;
            int total = 0;
            for (int i = 0; i < nthreads; ++i)
                total += p[i];
            for (int t = 0; t < nthreads; ++t) {
                const int y = t / block.x % block.y, z = t / (block.x * block.y);
                const int lane = t % 32, warp = t / 32, *w = p + 32 * warp;
                int want[KINDS], warp_sum = 0, odd = 0;
                for (int i = 0; i < 32; ++i) {
                    warp_sum += w[i];
                    odd += w[i] % 2 != 0;
                }
                want[0] = warp_sum;
                want[1] = y == 0 && z == 0 ? total : -1;
                want[2] = y == 5 ? odd : -1;
                want[3] = y == 1 ? w[3] : lane == 0 ? p[t] : w[lane - 1];
                want[4] = warp % 2 ? w[0] + w[1] : -1;
                want[5] = z == 1 ? (lane < 31 ? w[lane + 1] : p[t]) + 5 : -1;
                for (int k = 0; k < KINDS; ++k) {
                    int got = out[(size_t)(b * nthreads + t) * KINDS + k];
                    if (got != want[k] && bad++ < 10)
                        printf("block (%u,%u,%u), block %d, thread %d, value %d: %d, expected %d\n", block.x, block.y,
                               block.z, b, t, k, got, want[k]);
                }
            }
        }
        cudaFree(in);
        cudaFree(out);
    }
    if (bad) {
        printf("FAIL: %d wrong values\n", bad);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
