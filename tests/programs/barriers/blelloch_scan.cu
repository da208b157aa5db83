// Work-efficient (Blelloch) exclusive scan in shared memory: up-sweep and down-sweep loops with a
// barrier at the top of each iteration; 2 elements per thread; multi-block with a second-level
// scan of the block sums (same kernel, one block) and a uniform-add kernel.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define THREADS 256
#define ELEMS (2 * THREADS)

__global__ void scan_block(const int *in, int *out, int *block_sums, int n)
{
    __shared__ int t[ELEMS];
    int tid = threadIdx.x;
    int base = blockIdx.x * ELEMS;
    t[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
    t[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
    int offset = 1;
    // Up-sweep: build partial sums in place.
    for (int d = ELEMS >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int left = offset * (2 * tid + 1) - 1;
            int right = offset * (2 * tid + 2) - 1;
            t[right] += t[left];
        }
        offset <<= 1;
    }
    if (tid == 0) {
        if (block_sums)
            block_sums[blockIdx.x] = t[ELEMS - 1];
        t[ELEMS - 1] = 0;
    }
    // Down-sweep: distribute the prefixes.
    for (int d = 1; d < ELEMS; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int left = offset * (2 * tid + 1) - 1;
            int right = offset * (2 * tid + 2) - 1;
            int keep = t[left];
            t[left] = t[right];
            t[right] += keep;
        }
    }
    __syncthreads();
    if (base + 2 * tid < n)
        out[base + 2 * tid] = t[2 * tid];
    if (base + 2 * tid + 1 < n)
        out[base + 2 * tid + 1] = t[2 * tid + 1];
}

__global__ void add_offsets(int *data, const int *offsets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += offsets[i / ELEMS];
}

int main()
{
    const int n = 200003;
    const int blocks = (n + ELEMS - 1) / ELEMS;  // must be <= ELEMS for the two-level scan
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 37) % 23 - 7;
    int *din, *dout, *dsums, *dsums_scanned;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMalloc(&dsums, blocks * sizeof(int));
    cudaMalloc(&dsums_scanned, blocks * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    scan_block<<<blocks, THREADS>>>(din, dout, dsums, n);
    scan_block<<<1, THREADS>>>(dsums, dsums_scanned, nullptr, blocks);
    add_offsets<<<(n + 255) / 256, 256>>>(dout, dsums_scanned, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dsums);
    cudaFree(dsums_scanned);
    int running = 0;
    for (int i = 0; i < n; ++i) {
        if (out[i] != running) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], running);
            return 1;
        }
        running += in[i];
    }
    printf("PASS\n");
    return 0;
}
