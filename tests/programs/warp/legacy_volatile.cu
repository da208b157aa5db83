// Warp-synchronous code from before __syncwarp: the last six steps of a shared-memory tree
// reduction done by the first warp through a `volatile` pointer, with no synchronization, relying
// on the lanes of a warp running in lockstep (CUDA samples' reduction kernels 5 and 6): once in a
// __device__ helper, once written in the kernel.  On a GPU of that era each statement completes
// for the whole warp before the next; run thread after thread without care, lane 0 would add
// sdata[16] before lane 16 had added sdata[48] into it.  The tree needs a power-of-two block of at
// least 64 threads: block sizes 64, 128, 256, 1024.
#include <cstdio>
#include <cuda_runtime.h>

__device__ void warp_reduce(volatile int *sdata, unsigned tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__global__ void reduce_helper(const int *in, int *out, int n)
{
    __shared__ int sdata[1024];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + tid;
    sdata[tid] = (i < n ? in[i] : 0) + (i + blockDim.x < n ? in[i + blockDim.x] : 0);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warp_reduce(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void reduce_inline(const int *in, int *out, int n, unsigned warp_half)
{
    __shared__ int sdata[1024];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile int *v = sdata;
        for (unsigned s = warp_half; s > 0; s >>= 1)  // a loop the lanes run in lockstep
            v[tid] += v[tid + s];
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

int main()
{
    const int sizes[] = {64, 128, 256, 1024};
    const int n = 10000;
    int *in, *out;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&out, n * sizeof(int));
    for (int i = 0; i < n; ++i)
        in[i] = (i * 17) % 41 - 20;
    int bad = 0;
    for (int size : sizes) {
        for (int twice = 0; twice < 2; ++twice) {
            int per_block = twice ? 2 * size : size;
            int grid = (n + per_block - 1) / per_block;
            if (twice)
                reduce_helper<<<grid, size>>>(in, out, n);
            else
                reduce_inline<<<grid, size>>>(in, out, n, 32);
            cudaDeviceSynchronize();
            for (int b = 0; b < grid; ++b) {
                int want = 0;
                for (int i = b * per_block; i < n && i < (b + 1) * per_block; ++i)
                    want += in[i];
                if (out[b] != want && bad++ < 5)
                    printf("%s, block size %d: block %d sum %d, want %d\n", twice ? "helper" : "inline", size, b,
                           out[b], want);
            }
        }
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
