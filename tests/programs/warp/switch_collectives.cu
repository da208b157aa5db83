// Warp collectives inside switch statements: a switch on a value uniform per warp (warp % 3, a
// default in the middle, a braced case), and one on a kernel parameter (grouped labels, a
// default that falls off the end).  Both are lowered as if/else chains by the split lowering
// (no fiber fallback).  Block sizes 32, 48, 64, 100 and 1024, three modes; the host computes
// what each thread must see.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void switched(const int *in, int *out, int mode)
{
    int t = threadIdx.x, warp = t / 32;
    int g = blockIdx.x * blockDim.x + t;
    int v = in[g];
    int r = 0;
    switch (warp % 3) {
    case 0:
        r = __shfl_xor_sync(0xffffffff, v, 1);
        break;
    default:
        r = -__reduce_max_sync(0xffffffff, v);
        break;
    case 1: {
        r = __reduce_add_sync(0xffffffff, v);
        break;
    }
    }
    int s = 0;
    switch (mode) {
    case 7:
    case 8:
        s = __shfl_down_sync(0xffffffff, v, 4);
        s += __ballot_sync(0xffffffff, v > 0) & 1;
        break;
    case 9:
        s = __any_sync(0xffffffff, v == 3);
        break;
    default:
        s = v;
    }
    out[2 * g] = r;
    out[2 * g + 1] = s;
}

int main()
{
    const int sizes[] = {32, 48, 64, 100, 1024};
    const int modes[] = {8, 9, 1};
    const int blocks = 2, most = 2 * 1024;
    int *in, *out;
    cudaMallocManaged(&in, most * sizeof(int));
    cudaMallocManaged(&out, 2 * most * sizeof(int));
    for (int i = 0; i < most; ++i)
        in[i] = (i * 13) % 23 - 9;
    int bad = 0;
    for (int size : sizes)
        for (int mode : modes) {
            switched<<<blocks, size>>>(in, out, mode);
            cudaDeviceSynchronize();
            for (int g = 0; g < blocks * size; ++g) {
                int t = g % size, lane = t % 32, warp = t / 32, block = g - t;
                int first = block + warp * 32, last = block + (warp * 32 + 32 < size ? warp * 32 + 32 : size);
                int v = in[g], sum = 0, mx = -1000, any3 = 0;
                for (int i = first; i < last; ++i) {
                    sum += in[i];
                    mx = in[i] > mx ? in[i] : mx;
                    any3 |= in[i] == 3;
                }
                int r = warp % 3 == 0 ? ((t ^ 1) < size ? in[block + (t ^ 1)] : v) : warp % 3 == 1 ? sum : -mx;
                int s = v;
                if (mode == 8)
                    s = (lane + 4 >= 32 ? v : t + 4 < size ? in[g + 4] : 0) + (in[first] > 0);  // past the block: 0
                else if (mode == 9)
                    s = any3;
                if (out[2 * g] != r || out[2 * g + 1] != s) {
                    if (bad < 8)
                        printf("size %d mode %d thread %d: %d %d, want %d %d\n", size, mode, g, out[2 * g],
                               out[2 * g + 1], r, s);
                    bad++;
                }
            }
        }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return 0;
}
