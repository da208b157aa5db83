// Barriers inside an atomicCAS retry loop: in each round every thread still without a slot reads
// the next free slot, and tries to take it with atomicCAS; one thread wins, the others go round
// again.  The threads leave the loop at different rounds, so they disagree on reaching the
// barriers: undefined behaviour in CUDA (a located error by default); --lowering=fallback runs it
// as a GPU does, and each thread of a block ends with a slot of its own.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void take_slots(int *owner)
{
    __shared__ int next;
    if (threadIdx.x == 0)
        next = 0;
    __syncthreads();
    int mine = -1;
    for (int round = 0; round < BLOCK && mine < 0; ++round) {
        const int seen = next;
        __syncthreads();
        if (atomicCAS(&next, seen, seen + 1) == seen)
            mine = seen;
        __syncthreads();
    }
    if (mine >= 0)
        owner[blockIdx.x * BLOCK + mine] = threadIdx.x;
}

int main()
{
    const int blocks = 5, n = blocks * BLOCK;
    std::vector<int> owner(n, -1);
    int *downer;
    cudaMalloc(&downer, n * sizeof(int));
    cudaMemcpy(downer, owner.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    take_slots<<<blocks, BLOCK>>>(downer);
    cudaMemcpy(owner.data(), downer, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
        std::vector<int> seen(BLOCK, 0);
        for (int s = 0; s < BLOCK; ++s) {
            const int t = owner[b * BLOCK + s];
            if (t < 0 || t >= BLOCK || seen[t]++) {
                printf("FAIL: block %d slot %d owned by %d\n", b, s, t);
                return 1;
            }
        }
    }
    printf("PASS\n");
    return 0;
}
