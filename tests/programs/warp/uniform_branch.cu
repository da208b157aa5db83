// Warp operations under branches that are uniform per warp but not per block, between
// __syncthreads(): a warp scan done by warp 0 alone while the other warps wait at the barrier,
// each warp running its own number of shuffle rounds before a barrier, and a vote in odd warps
// while even warps exchange through shared memory with __syncwarp().  A warp operation involves
// only its own warp: it must never be paired with another warp's __syncthreads() (the fiber
// fallback once made every warp sync a block-wide round, and warp 0's scan read `1 1 1 1 ...`).
// Block sizes 64, 96, 128, 1024.
#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KINDS 3

__global__ void uniform(const int *in, int *out)
{
    __shared__ int total;
    __shared__ int s[1024];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int g = blockIdx.x * blockDim.x + t;
    int v = in[g];
    int *o = out + (size_t)g * KINDS;
    int scan = v;
    if (warp == 0) {
        for (int d = 1; d < 32; d *= 2) {
            int up = __shfl_up_sync(FULL, scan, d);
            if (lane >= d)
                scan += up;
        }
        if (lane == 31)
            total = scan;
    }
    __syncthreads();
    o[0] = warp == 0 ? scan : total;
    int rot = v;
    for (int r = 0; r <= warp; ++r)
        rot = __shfl_sync(FULL, rot, (lane + 1) % 32);
    s[t] = rot;
    __syncthreads();
    o[1] = s[(t + 32) % blockDim.x];
    __syncthreads();
    if (warp % 2 == 1) {
        o[2] = __popc(__ballot_sync(FULL, v % 2 == 0));
    } else {
        s[t] = 3 * v;
        __syncwarp();
        o[2] = s[t ^ 1];
    }
}

int main()
{
    const int sizes[] = {64, 96, 128, 1024};
    int bad = 0;
    for (int size : sizes) {
        const int grid = 3, n = size * grid;
        int *in, *out;
        cudaMallocManaged(&in, n * sizeof(int));
        cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(int));
        for (int i = 0; i < n; ++i)
            in[i] = (i * 13) % 31 + 1;
        uniform<<<grid, size>>>(in, out);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            const int *p = in + b * size;
            int warp0 = 0;
            for (int i = 0; i < 32; ++i)
                warp0 += p[i];
            for (int t = 0; t < size; ++t) {
                int lane = t % 32, warp = t / 32, want[KINDS];
                int prefix = 0;
                for (int i = 0; i <= lane; ++i)
                    prefix += p[i];
                want[0] = warp == 0 ? prefix : warp0;
                int u = (t + 32) % size, uw = u / 32;
                want[1] = p[32 * uw + (u % 32 + uw + 1) % 32];
                if (warp % 2 == 1) {
                    int evens = 0;
                    for (int i = 32 * warp; i < 32 * warp + 32; ++i)
                        evens += p[i] % 2 == 0;
                    want[2] = evens;
                } else {
                    want[2] = 3 * p[t ^ 1];
                }
                const int *o = out + (size_t)(b * size + t) * KINDS;
                for (int k = 0; k < KINDS; ++k)
                    if (o[k] != want[k] && bad++ < 10)
                        printf("block %d thread %d kind %d: got %d, want %d\n", size, t, k, o[k], want[k]);
            }
        }
        cudaFree(in);
        cudaFree(out);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
