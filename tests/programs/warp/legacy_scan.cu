// Warp-synchronous scans and a reduction written before __syncwarp: each warp updates `volatile`
// shared memory with no synchronization, relying on the 32 lanes of a warp running in lockstep,
// where every lane reads before any lane stores.  Run lane after lane, lane i of a scan would add
// lane i-1's *new* value.  Three shapes seen in real code: a predicated scan (`if (lane >= d)
// v[t] += v[t - d]`), a scan over a zero-padded segment with the running value in a local
// (`s[idx] = x += s[idx - d]`, in a __device__ helper) and a tree reduction by the first warp
// (`if (tid < 32) { v[tid] += v[tid + 16]; ... }`); and a lane reading its neighbour's slot
// before the warp stores new values (every lane reads before any stores).  Block sizes 32, 64,
// 128, 256.
#include <cstdio>
#include <cuda_runtime.h>

#define KINDS 4

__device__ int padded_scan(int x, volatile int *s)
{
    int idx = 2 * threadIdx.x - (threadIdx.x & 31);
    s[idx] = 0;
    idx += 32;
    s[idx] = x;
    s[idx] = x += s[idx - 1];
    s[idx] = x += s[idx - 2];
    s[idx] = x += s[idx - 4];
    s[idx] = x += s[idx - 8];
    s[idx] = x += s[idx - 16];
    return s[idx - 1];  // exclusive
}

__global__ void legacy(const int *in, int *out)
{
    __shared__ int a[256];
    __shared__ int padded[512];
    __shared__ int tree[256];
    int t = threadIdx.x, lane = t % 32;
    int g = blockIdx.x * blockDim.x + t;
    int *o = out + (size_t)g * KINDS;
    volatile int *v = a;
    v[t] = in[g];
    if (lane >= 1) v[t] += v[t - 1];
    if (lane >= 2) v[t] += v[t - 2];
    if (lane >= 4) v[t] += v[t - 4];
    if (lane >= 8) v[t] += v[t - 8];
    if (lane >= 16) v[t] += v[t - 16];
    o[0] = v[t];
    o[1] = padded_scan(in[g], padded);
    tree[t] = in[g];
    __syncthreads();
    if (t < 32) {
        volatile int *w = tree;
        for (int i = t + 32; i < blockDim.x; i += 32)
            w[t] += w[i];
        w[t] += w[t + 16];
        w[t] += w[t + 8];
        w[t] += w[t + 4];
        w[t] += w[t + 2];
        w[t] += w[t + 1];
    }
    __syncthreads();
    o[2] = tree[0];
    int left = lane > 0 ? v[t - 1] : -1;
    v[t] = -7;
    o[3] = left;
}

int main()
{
    const int sizes[] = {32, 64, 128, 256};
    int bad = 0;
    for (int size : sizes) {
        const int grid = 3, n = size * grid;
        int *in, *out;
        cudaMallocManaged(&in, n * sizeof(int));
        cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(int));
        for (int i = 0; i < n; ++i)
            in[i] = (i * 7) % 19 + 1;
        legacy<<<grid, size>>>(in, out);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            const int *p = in + b * size;
            int total = 0;
            for (int i = 0; i < size; ++i)
                total += p[i];
            for (int t = 0; t < size; ++t) {
                int first = t - t % 32, inclusive = 0;
                for (int i = first; i <= t; ++i)
                    inclusive += p[i];
                const int want[KINDS] = {inclusive, inclusive - p[t], total, t % 32 ? inclusive - p[t] : -1};
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
