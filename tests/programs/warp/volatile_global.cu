// `volatile` in two roles.  Global memory: results and flags stored through volatile pointers
// (for the host or other blocks) need no order among the lanes of a warp, so the kernel keeps one
// thread loop.  Shared memory: the legacy warp-synchronous sum of the first warp (no __syncwarp,
// lanes relying on lockstep) over a block of any size, the first warp first folding the block
// into 32 partial sums.  Block sizes 32, 64 and 100; the host computes every value.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void publish(const float *in, volatile float *out, volatile int *done, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f;
        out[i] = out[i] + 1.0f;
        done[i] = 1;
    }
}

__global__ void warp_sum_any_size(const int *in, int *out, int n)
{
    __shared__ int sdata[1024];
    __shared__ int lanes[64];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    if (tid < 32)
        lanes[tid + 32] = 0;
    __syncthreads();
    if (tid < 32) {
        int s = 0;
        for (unsigned j = tid; j < blockDim.x; j += 32)
            s += sdata[j];
        volatile int *v = lanes;
        v[tid] = s;
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0)
        out[blockIdx.x] = lanes[0];
}

int main()
{
    const int n = 1000;
    float *in, *out;
    int *done, *values, *sums;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&out, n * sizeof(float));
    cudaMallocManaged(&done, n * sizeof(int));
    cudaMallocManaged(&values, n * sizeof(int));
    cudaMallocManaged(&sums, n * sizeof(int));
    for (int i = 0; i < n; ++i) {
        in[i] = 0.5f * i;
        values[i] = (i * 13) % 29 - 14;
        done[i] = 0;
    }
    int bad = 0;
    publish<<<(n + 63) / 64, 64>>>(in, out, done, n);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; ++i)
        bad += out[i] != 0.5f * i * 2.0f + 1.0f || done[i] != 1;
    const int sizes[] = {32, 64, 100};
    for (int size : sizes) {
        int grid = (n + size - 1) / size;
        warp_sum_any_size<<<grid, size>>>(values, sums, n);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            int want = 0;
            for (int i = b * size; i < (b + 1) * size && i < n; ++i)
                want += values[i];
            if (sums[b] != want) {
                if (bad < 5)
                    printf("block size %d, block %d: %d, want %d\n", size, b, sums[b], want);
                bad++;
            }
        }
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return 0;
}
