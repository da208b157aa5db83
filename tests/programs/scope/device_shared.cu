// __shared__ (and static __shared__) variables declared inside __device__ functions: the
// block-reduce helper pattern, called several times and from several kernels.  Each declaration
// is one variable per block, shared by every call of the function in that block.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <typename T>
__device__ T warp_sum(T v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// CUB-style: per-warp partial sums through a static __shared__ array, then one warp sums them.
template <typename T>
__device__ T block_sum(T v)
{
    static __shared__ T warp_sums[32];
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;
    v = warp_sum<T>(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x + warpSize - 1) / warpSize ? warp_sums[lane] : T(0);
    if (warp == 0)
        v = warp_sum<T>(v);
    __syncthreads();
    return v;
}

// Without warp operations: a tree in a plain __shared__ array, the total broadcast through a
// second one.
__device__ float block_max(float v)
{
    __shared__ float tree[256];
    __shared__ float total;
    tree[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && tree[threadIdx.x + s] > tree[threadIdx.x])
            tree[threadIdx.x] = tree[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        total = tree[0];
    __syncthreads();
    return total;
}

// One variable for every call in a block: the second call reads what the first one stored.
__device__ int handoff(int v, bool store)
{
    __shared__ int box[256];
    if (store)
        box[threadIdx.x] = v;
    __syncthreads();
    int got = box[blockDim.x - 1 - threadIdx.x];
    __syncthreads();
    return got;
}

__global__ void stats(const float *x, const int *k, float *sums, int *isums, float *maxes, int *swapped)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = block_sum<float>(x[i]);
    float sq = block_sum<float>(x[i] * x[i]);
    int si = block_sum<int>(k[i]);
    float m = block_max(x[i]);
    handoff(k[i], true);
    int back = handoff(0, false);
    swapped[i] = back;
    if (threadIdx.x == 0) {
        sums[2 * blockIdx.x] = s;
        sums[2 * blockIdx.x + 1] = sq;
        isums[blockIdx.x] = si;
        maxes[blockIdx.x] = m;
    }
}

// extern __shared__ in a function template: every instantiation is the launch's dynamic buffer.
template <typename T>
__device__ T *dynamic_buffer()
{
    extern __shared__ unsigned char raw[];
    return reinterpret_cast<T *>(raw);
}

__global__ void reverse_dynamic(const int *k, int *out)
{
    int *s = dynamic_buffer<int>();
    s[threadIdx.x] = k[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x] + (int)(dynamic_buffer<short>() - (short *)s);
}

__global__ void max_only(const float *x, float *maxes)
{
    float m = block_max(x[blockIdx.x * blockDim.x + threadIdx.x]);
    if (threadIdx.x == 0)
        maxes[blockIdx.x] = -m;
}

int main()
{
    const int block = 256, blocks = 40, n = block * blocks;
    std::vector<float> x(n), sums(2 * blocks), maxes(blocks), maxes2(blocks);
    std::vector<int> k(n), isums(blocks), swapped(n);
    for (int i = 0; i < n; ++i) {
        x[i] = (float)((i * 37) % 101) * 0.25f;
        k[i] = (i * 13) % 29 - 7;
    }
    float *dx, *dsums, *dmaxes;
    int *dk, *disums, *dswapped;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dk, n * sizeof(int));
    cudaMalloc(&dsums, 2 * blocks * sizeof(float));
    cudaMalloc(&disums, blocks * sizeof(int));
    cudaMalloc(&dmaxes, blocks * sizeof(float));
    cudaMalloc(&dswapped, n * sizeof(int));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dk, k.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    stats<<<blocks, block>>>(dx, dk, dsums, disums, dmaxes, dswapped);
    cudaMemcpy(sums.data(), dsums, 2 * blocks * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(isums.data(), disums, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(maxes.data(), dmaxes, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(swapped.data(), dswapped, n * sizeof(int), cudaMemcpyDeviceToHost);
    max_only<<<blocks, block>>>(dx, dmaxes);
    cudaMemcpy(maxes2.data(), dmaxes, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    reverse_dynamic<<<blocks, block, block * sizeof(int)>>>(dk, dswapped);
    std::vector<int> reversed(n);
    cudaMemcpy(reversed.data(), dswapped, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
        if (reversed[i] != k[i / block * block + block - 1 - i % block]) {
            printf("FAIL: reverse_dynamic[%d] = %d\n", i, reversed[i]);
            return 1;
        }
    for (int b = 0; b < blocks; ++b) {
        double s = 0, sq = 0;
        int si = 0;
        float m = x[b * block];
        for (int t = 0; t < block; ++t) {
            float v = x[b * block + t];
            s += v;
            sq += (double)v * v;
            si += k[b * block + t];
            m = v > m ? v : m;
            if (swapped[b * block + t] != k[b * block + block - 1 - t]) {
                printf("FAIL: handoff block %d thread %d: %d, expected %d\n", b, t, swapped[b * block + t],
                       k[b * block + block - 1 - t]);
                return 1;
            }
        }
        if (sums[2 * b] != (float)s || sums[2 * b + 1] != (float)sq || isums[b] != si || maxes[b] != m ||
            maxes2[b] != -m) {
            printf("FAIL: block %d: sum %g/%g, squares %g/%g, int sum %d/%d, max %g/%g/%g\n", b, sums[2 * b], s,
                   sums[2 * b + 1], sq, isums[b], si, maxes[b], maxes2[b], m);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
