// Built with nvcc -cudart shared; run on the CPU under `moccuda run` with the kernel library
// `cuda2cpu --emit=kernel-library` builds from this file:
// a shared-memory reduction with barriers, a __device__ variable set with cudaMemcpyToSymbol,
// two streams ordered by an event, and event timing.
#include <cstdio>

__device__ int offset;

__global__ void block_sums(const int *in, int *out, int n)
{
    __shared__ int partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] + offset : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = partial[0];
}

int main()
{
    const int n = 10000, threads = 256, blocks = (n + threads - 1) / threads;
    int *in, *sums;
    cudaMalloc(&in, n * sizeof(int));
    cudaMallocManaged(&sums, blocks * sizeof(int));
    int *host = new int[n];
    for (int i = 0; i < n; ++i)
        host[i] = i % 7;
    int one = 1;
    cudaMemcpyToSymbol(offset, &one, sizeof one);

    cudaStream_t copy, compute;
    cudaEvent_t copied, start, stop;
    cudaStreamCreate(&copy);
    cudaStreamCreate(&compute);
    cudaEventCreate(&copied);
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, compute);
    cudaMemcpyAsync(in, host, n * sizeof(int), cudaMemcpyHostToDevice, copy);
    cudaEventRecord(copied, copy);
    cudaStreamWaitEvent(compute, copied, 0);
    block_sums<<<blocks, threads, 0, compute>>>(in, sums, n);
    cudaEventRecord(stop, compute);
    cudaError_t launched = cudaGetLastError();
    cudaEventSynchronize(stop);
    float ms = -1;
    cudaError_t timed = cudaEventElapsedTime(&ms, start, stop);

    long long total = 0, expected = 0;
    for (int b = 0; b < blocks; ++b)
        total += sums[b];
    for (int i = 0; i < n; ++i)
        expected += i % 7 + 1;
    int read_back = 0;
    cudaMemcpyFromSymbol(&read_back, offset, sizeof read_back);
    printf("sum %lld expected %lld, offset %d, launch %s, timing %s %s\n", total, expected, read_back,
           cudaGetErrorName(launched), cudaGetErrorName(timed), ms >= 0 ? "non-negative" : "negative");
    bool ok = total == expected && read_back == 1 && launched == cudaSuccess && timed == cudaSuccess && ms >= 0;
    printf("%s\n", ok ? "PASS" : "FAIL");
    delete[] host;
    return 0;
}
