// Warp-shuffle reductions as people write them: a __device__ warp sum template (shuffles over the lanes
// __activemask reports, so partial warps are summed right), a block sum through per-warp
// partial sums in shared memory with the first warp finishing (`if (wid == 0)`: uniform per warp,
// not per block), and a warp-per-row loop whose trip count differs between the warps of a block.
// Block sizes 32, 48, 64, 100, 1024.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__device__ T warp_sum(T val)
{
    unsigned mask = __activemask();
    int lanes = __popc(mask);
    int lane = threadIdx.x % warpSize;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        T other = __shfl_down_sync(mask, val, offset);
        if (lane + offset < lanes)
            val += other;
    }
    return val;
}

__device__ int block_sum(int val, int *partial)
{
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    val = warp_sum<int>(val);
    if (lane == 0)
        partial[wid] = val;
    __syncthreads();
    val = threadIdx.x < (blockDim.x + warpSize - 1) / warpSize ? partial[lane] : 0;
    if (wid == 0)
        val = warp_sum<int>(val);
    return val;
}

__global__ void sums(const int *in, int n, int *out)
{
    __shared__ int partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int total = block_sum(i < n ? in[i] : 0, partial);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}

__global__ void row_sums(const int *m, int rows, int cols, int *out)
{
    int warps_per_block = (blockDim.x + 31) / 32;
    int warp = blockIdx.x * warps_per_block + threadIdx.x / 32;
    int warps = gridDim.x * warps_per_block;
    int lane = threadIdx.x % 32;
    int first = threadIdx.x - lane;
    int lanes = blockDim.x - first < 32 ? blockDim.x - first : 32;  // the last warp may be partial
    for (int r = warp; r < rows; r += warps) {
        int s = 0;
        for (int c = lane; c < cols; c += lanes)
            s += m[r * cols + c];
        s = warp_sum(s);                   // T deduced from s
        if (lane == 0)
            out[r] = s;
    }
}

int main()
{
    const int sizes[] = {32, 48, 64, 100, 1024};
    const int n = 5000, rows = 37, cols = 45;
    int *in, *out, *m, *row;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&out, n * sizeof(int));
    cudaMallocManaged(&m, rows * cols * sizeof(int));
    cudaMallocManaged(&row, rows * sizeof(int));
    for (int i = 0; i < n; ++i)
        in[i] = (i * 31) % 101 - 50;
    for (int i = 0; i < rows * cols; ++i)
        m[i] = (i * 7) % 23;
    int bad = 0;
    for (int size : sizes) {
        int grid = (n + size - 1) / size;
        sums<<<grid, size>>>(in, n, out);
        for (int r = 0; r < rows; ++r)
            row[r] = -1;
        row_sums<<<2, size>>>(m, rows, cols, row);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            int want = 0;
            for (int i = b * size; i < n && i < (b + 1) * size; ++i)
                want += in[i];
            if (out[b] != want && bad++ < 5)
                printf("block size %d: block %d sum %d, want %d\n", size, b, out[b], want);
        }
        for (int r = 0; r < rows; ++r) {
            int want = 0;
            for (int c = 0; c < cols; ++c)
                want += m[r * cols + c];
            if (row[r] != want && bad++ < 5)
                printf("block size %d: row %d sum %d, want %d\n", size, r, row[r], want);
        }
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
