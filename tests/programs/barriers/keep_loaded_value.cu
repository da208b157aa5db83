// A value loaded from shared memory, then that shared slot overwritten by ANOTHER thread after a
// barrier, and the loaded value used afterwards: a translator must keep the loaded value (per
// thread, across the barrier), not re-read shared memory.  Also the same in a loop of rounds.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void keep_value(const int *in, int *out, int n, int rounds)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    int mine = s[t];
    __syncthreads();
    s[(t + 1) % BLOCK] = mine * 2 + 1;  // thread t-1 overwrites s[t]
    __syncthreads();
    int neighbour = s[t];               // = 2 * (value of thread t-1) + 1
    int acc = 0;
    for (int r = 0; r < rounds; ++r) {
        int v = s[t];
        __syncthreads();
        s[(t + 1) % BLOCK] = v;         // rotate by one; my slot now holds my left neighbour's
        __syncthreads();
        acc += v * (r + 1);
    }
    if (i < n)
        out[i] = mine * 100000 + neighbour * 100 + acc % 100;
}

int main()
{
    const int n = 30001, rounds = 10;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 17) % 97;
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    keep_value<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, n, rounds);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        int start = i / BLOCK * BLOCK, t = i - start;
        auto orig = [&](int slot) { int j = start + (slot % BLOCK + BLOCK) % BLOCK; return j < n ? in[j] : 0; };
        int mine = orig(t);
        // After the overwrite, slot u holds 2 * orig(u - 1) + 1; round r reads slot t holding
        // what started in slot t - r.
        int neighbour = 2 * orig(t - 1) + 1;
        int acc = 0;
        for (int r = 0; r < rounds; ++r)
            acc += (2 * orig(t - 1 - r) + 1) * (r + 1);
        int e = mine * 100000 + neighbour * 100 + acc % 100;
        if (out[i] != e) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], e);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
