// Warp collectives in the second statement of a case of a switch that is no if/else chain (a
// statement after a break), which the fiber fallback lowers as a switch: the collective's value
// is a local, and the next case label must not jump past its initialization (g++: "jump to case
// label crosses initialization", found by the front-end fuzz).  Block sizes 32, 64, 96.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void switched(const int *in, int *out, int mode)
{
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    int s = 0;
    switch (mode) {
    case 1:
        s = v;
        s += __popc(__ballot_sync(0xffffffffu, v > 0));
        break;
        s = -1;  // never runs: the switch is not an if/else chain
    case 2:
        s = v;
        s += __shfl_xor_sync(0xffffffffu, v, 1);
    default:
        s += 1;
    }
    out[blockIdx.x * blockDim.x + t] = s;
}

int main()
{
    const int sizes[] = {32, 64, 96}, blocks = 2;
    int *in, *out, bad = 0;
    cudaMallocManaged(&in, blocks * 96 * sizeof(int));
    cudaMallocManaged(&out, blocks * 96 * sizeof(int));
    for (int i = 0; i < blocks * 96; ++i)
        in[i] = (i * 13) % 23 - 9;
    for (int size : sizes)
        for (int mode = 1; mode <= 3; ++mode) {
            switched<<<blocks, size>>>(in, out, mode);
            cudaDeviceSynchronize();
            for (int g = 0; g < blocks * size; ++g) {
                int v = in[g], want = 0;
                if (mode == 1) {
                    want = v;
                    for (int l = g / 32 * 32; l < g / 32 * 32 + 32; ++l)
                        want += in[l] > 0;
                } else {
                    want = (mode == 2 ? v + in[g ^ 1] : 0) + 1;
                }
                if (out[g] != want && bad++ < 8)
                    printf("size %d mode %d thread %d: %d, want %d\n", size, mode, g, out[g], want);
            }
        }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
