// `do { ... } while (again)` whose condition comes from a flag in shared memory that some threads
// set: max-label propagation along runs of equal colour until nothing changes.  Every thread
// reads the flag after a barrier, so the trip count is uniform per block (and checked).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void propagate(const int *color, const int *label_in, int *label_out, int *rounds, int n)
{
    __shared__ int lab[BLOCK];
    __shared__ int col[BLOCK];
    __shared__ int changed;
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    col[t] = i < n ? color[i] : -1 - t;  // padding threads are singletons
    lab[t] = i < n ? label_in[i] : 0;
    int iterations = 0;
    int again;
    do {
        if (t == 0)
            changed = 0;
        __syncthreads();
        int best = lab[t];
        if (t > 0 && col[t - 1] == col[t] && lab[t - 1] > best)
            best = lab[t - 1];
        if (t < BLOCK - 1 && col[t + 1] == col[t] && lab[t + 1] > best)
            best = lab[t + 1];
        __syncthreads();
        if (best != lab[t]) {
            lab[t] = best;
            changed = 1;
        }
        __syncthreads();
        again = changed;
        ++iterations;
        __syncthreads();  // everyone has read `changed` before thread 0 clears it
    } while (again);
    if (i < n)
        label_out[i] = lab[t];
    if (t == 0)
        rounds[blockIdx.x] = iterations;
}

int main()
{
    const int n = 50000;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<int> color(n), label(n), out(n), rounds(blocks);
    unsigned s = 99u;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        color[i] = (s >> 16) % 5 == 0 ? (i > 0 ? color[i - 1] + 1 : 0) : (i > 0 ? color[i - 1] : 0);
        label[i] = (int)((s >> 8) % 100000);
    }
    int *dcolor, *dlabel, *dout, *drounds;
    cudaMalloc(&dcolor, n * sizeof(int));
    cudaMalloc(&dlabel, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMalloc(&drounds, blocks * sizeof(int));
    cudaMemcpy(dcolor, color.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dlabel, label.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    propagate<<<blocks, BLOCK>>>(dcolor, dlabel, dout, drounds, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(rounds.data(), drounds, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dcolor);
    cudaFree(dlabel);
    cudaFree(dout);
    cudaFree(drounds);
    // Host reference: the same synchronous (Jacobi-style) rounds, block by block.
    for (int b = 0; b < blocks; ++b) {
        int start = b * BLOCK, len = n - start < BLOCK ? n - start : BLOCK;
        std::vector<int> lab(label.begin() + start, label.begin() + start + len), next(len);
        int iterations = 0;
        bool again;
        do {
            again = false;
            for (int t = 0; t < len; ++t) {
                int best = lab[t];
                if (t > 0 && color[start + t - 1] == color[start + t] && lab[t - 1] > best)
                    best = lab[t - 1];
                if (t < len - 1 && color[start + t + 1] == color[start + t] && lab[t + 1] > best)
                    best = lab[t + 1];
                next[t] = best;
                again = again || best != lab[t];
            }
            lab.swap(next);
            ++iterations;
        } while (again);
        if (rounds[b] != iterations) {
            printf("FAIL: block %d ran %d rounds, expected %d\n", b, rounds[b], iterations);
            return 1;
        }
        for (int t = 0; t < len; ++t)
            if (out[start + t] != lab[t]) {
                printf("FAIL: label[%d] = %d, expected %d\n", start + t, out[start + t], lab[t]);
                return 1;
            }
    }
    printf("PASS\n");
    return 0;
}
