// Warp-level code under control flow that differs between warps and between lanes: __syncwarp
// with a half-warp mask exchanging through shared memory, a do/while whose condition is a vote,
// a warp loop nested in a condition uniform per warp, and lanes that return early before a
// shuffle (the shuffle then reads 0 from a lane that left, as GPUs do: undefined in CUDA).  Block sizes 32,
// 48, 64, 100, 1024.
#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KINDS 4

__global__ void divergent(const int *in, int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int v = in[blockIdx.x * blockDim.x + t];
    int *o = out + (size_t)(blockIdx.x * blockDim.x + t) * KINDS;
    o[0] = -1;
    if (lane < 16) {
        s[t] = v;
        __syncwarp(0x0000ffffu);
        o[0] = s[t ^ 1];
    }
    int steps = 0;
    int left = v % 4;
    do {
        ++steps;
        --left;
    } while (__any_sync(FULL, left > 0));
    o[1] = steps;
    o[2] = 0;
    if (warp % 2 == 0) {
        for (int i = warp; i < 6; ++i)
            o[2] += __shfl_sync(FULL, i * 100 + lane, (lane + 1) % 32);
    }
    if (lane >= 20)
        return;
    o[3] = __shfl_down_sync(0x000fffffu, v, 4);
}

int main()
{
    const int sizes[] = {32, 48, 64, 100, 1024};
    int bad = 0;
    for (int size : sizes) {
        const int grid = 2, n = size * grid;
        int *in, *out;
        cudaMallocManaged(&in, n * sizeof(int));
        cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(int));
        for (int i = 0; i < n; ++i)
            in[i] = (i * 11) % 29;
        divergent<<<grid, size>>>(in, out);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            const int *p = in + b * size;
            for (int t = 0; t < size; ++t) {
                int lane = t % 32, warp = t / 32, base = t - lane;
                int lanes = size - base < 32 ? size - base : 32;
                int most = 1;
                for (int l = 0; l < lanes; ++l)
                    most = p[base + l] % 4 > most ? p[base + l] % 4 : most;
                int sum = 0;
                if (warp % 2 == 0)
                    for (int i = warp; i < 6; ++i)
                        sum += (lane + 1) % 32 < lanes ? i * 100 + (lane + 1) % 32 : 0;  // no such lane: 0
                int want[KINDS] = {lane < 16 ? p[t ^ 1] : -1, most, sum,
                                   lane + 4 < 20 && t + 4 < size ? p[t + 4] : 0};
                const int *o = out + (size_t)(b * size + t) * KINDS;
                for (int k = 0; k < KINDS; ++k) {
                    if (lane >= 20 && k == 3)
                        continue;  // returned before writing
                    if (o[k] != want[k] && bad++ < 5)
                        printf("size %d block %d thread %d kind %d: got %d, want %d\n", size, b, t, k, o[k], want[k]);
                }
            }
        }
        cudaFree(in);
        cudaFree(out);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
