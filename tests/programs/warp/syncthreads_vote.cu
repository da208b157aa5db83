// __syncthreads_count, __syncthreads_and and __syncthreads_or, also as a loop condition (a
// block iterates while any thread still has work), at block sizes 32, 48, 64, 100, 1024 and a
// 2-D block.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_votes(const int *in, int *out, int *rounds)
{
    int flat = threadIdx.y * blockDim.x + threadIdx.x;
    int size = blockDim.x * blockDim.y;
    int v = in[blockIdx.x * size + flat];
    int *o = out + blockIdx.x * 3;
    int count = __syncthreads_count(v % 3 == 0);
    int all = __syncthreads_and(v >= 0);
    int any = __syncthreads_or(v > 95);
    if (flat == 0) {
        o[0] = count;
        o[1] = all;
        o[2] = any;
    }
    int left = v % 7;                     // each thread has `left` steps of work
    int n = 0;
    while (__syncthreads_or(left > 0)) {
        --left;
        ++n;
    }
    if (flat == size - 1)
        rounds[blockIdx.x] = n;
}

int main()
{
    const dim3 blocks[] = {dim3(32), dim3(48), dim3(64), dim3(100), dim3(1024), dim3(10, 5)};
    int bad = 0;
    for (dim3 block : blocks) {
        int size = block.x * block.y;
        const int grid = 3;
        int *in, *out, *rounds;
        cudaMallocManaged(&in, size * grid * sizeof(int));
        cudaMallocManaged(&out, 3 * grid * sizeof(int));
        cudaMallocManaged(&rounds, grid * sizeof(int));
        for (int i = 0; i < size * grid; ++i)
            in[i] = (i * 13) % 97 - (i == size ? 1 : 0);
        block_votes<<<grid, block>>>(in, out, rounds);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            int count = 0, all = 1, any = 0, most = 0;
            for (int t = 0; t < size; ++t) {
                int v = in[b * size + t];
                count += v % 3 == 0;
                all &= v >= 0;
                any |= v > 95;
                most = v % 7 > most ? v % 7 : most;
            }
            int want[4] = {count, all, any, most};
            int got[4] = {out[b * 3], out[b * 3 + 1], out[b * 3 + 2], rounds[b]};
            for (int k = 0; k < 4; ++k) {
                if (got[k] != want[k] && bad++ < 5)
                    printf("block %ux%u #%d kind %d: got %d, want %d\n", block.x, block.y, b, k, got[k], want[k]);
            }
        }
        cudaFree(in);
        cudaFree(out);
        cudaFree(rounds);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
