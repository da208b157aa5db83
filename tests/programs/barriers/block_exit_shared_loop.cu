// A whole block returns early (a block-uniform condition), and the other blocks then run a
// do-while whose condition is a __shared__ counter that thread 0 updates between barriers.
// In CUDA the block that returned is finished; nothing of it may go on to wait on the counter,
// which nobody in that block writes (a block of translated code that did read it as garbage
// and looped forever).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void rounds_of_sums(const unsigned *in, unsigned *out, unsigned rounds)
{
    __shared__ unsigned s[64];
    __shared__ unsigned count;
    unsigned t = threadIdx.x;
    unsigned v = in[blockIdx.x * 64 + t];
    if (blockIdx.x % 2u == 0u) {
        return;
    }
    if (t == 0) {
        count = 0;
    }
    __syncthreads();
    do {
        s[t] = v;
        __syncthreads();
        v += s[(t + 1) % 64];
        __syncthreads();
        if (t == 0) {
            count += 1;
        }
        __syncthreads();
    } while (count != rounds);
    out[blockIdx.x * 64 + t] = v;
}

int main()
{
    const unsigned blocks = 8, n = blocks * 64, rounds = 3;
    static unsigned in[n], out[n], expect[n];
    for (unsigned i = 0; i < n; ++i) {
        in[i] = i * 7u + 1u;
        out[i] = expect[i] = 12345u;
    }
    for (unsigned b = 1; b < blocks; b += 2) {
        unsigned v[64], s[64];
        for (unsigned t = 0; t < 64; ++t) v[t] = in[b * 64 + t];
        for (unsigned r = 0; r < rounds; ++r) {
            for (unsigned t = 0; t < 64; ++t) s[t] = v[t];
            for (unsigned t = 0; t < 64; ++t) v[t] += s[(t + 1) % 64];
        }
        for (unsigned t = 0; t < 64; ++t) expect[b * 64 + t] = v[t];
    }
    unsigned *din, *dout;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    cudaMemcpy(dout, out, sizeof out, cudaMemcpyHostToDevice);
    rounds_of_sums<<<blocks, 64>>>(din, dout, rounds);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (unsigned i = 0; i < n; ++i) {
        if (out[i] != expect[i]) {
            printf("FAIL: out[%u] = %u, expected %u\n", i, out[i], expect[i]);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
