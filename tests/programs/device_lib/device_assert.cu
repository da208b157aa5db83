// A failing assert in device code, as CUDA reports it: the message with the block and thread on
// stderr, the launch completes, and the next synchronization, copy and launch return
// cudaErrorAssert, a sticky error that cudaGetLastError does not clear.  Asserts that hold cost
// nothing; one in a __device__ helper and one before a barrier fail the same way.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__device__ int checked_load(const int *v, int i)
{
    assert(v[i] >= 0);
    return v[i];
}

__global__ void sum_checked(const int *v, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, checked_load(v, i));
}

__global__ void check_positive(const int *v, int n)
{
    __shared__ int seen[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i >= n || v[i] > 0);
    seen[threadIdx.x] = v[i];  // the failing thread ends at its assert: neither this nor what follows runs
    __syncthreads();
    if (threadIdx.x == 0)
        seen[0] += seen[blockDim.x - 1];
}

static int check(cudaError_t got, cudaError_t expected, const char *what)
{
    if (got == expected)
        return 0;
    printf("FAIL: %s returned %s, expected %s\n", what, cudaGetErrorName(got), cudaGetErrorName(expected));
    return 1;
}

int main()
{
    int h[64], *d, *sum, total = 0;
    for (int i = 0; i < 64; ++i) h[i] = i + 1;
    cudaMalloc(&d, sizeof h);
    cudaMalloc(&sum, sizeof(int));
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(sum, 0, sizeof(int));
    sum_checked<<<2, 32>>>(d, sum, 64);  // every assert holds
    if (check(cudaDeviceSynchronize(), cudaSuccess, "cudaDeviceSynchronize after passing asserts"))
        return 1;
    cudaMemcpy(&total, sum, sizeof(int), cudaMemcpyDeviceToHost);
    if (total != 64 * 65 / 2) {
        printf("FAIL: sum %d\n", total);
        return 1;
    }

    h[40] = -3;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    check_positive<<<2, 32>>>(d, 1000);  // i >= n never holds: thread 40 fails, 64.. never run
    int failed = check(cudaDeviceSynchronize(), cudaErrorAssert, "cudaDeviceSynchronize");
    failed |= check(cudaGetLastError(), cudaErrorAssert, "cudaGetLastError");
    failed |= check(cudaGetLastError(), cudaErrorAssert, "cudaGetLastError (sticky)");
    failed |= check(cudaMemcpy(&total, sum, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorAssert, "cudaMemcpy");
    sum_checked<<<2, 32>>>(d, sum, 64);
    failed |= check(cudaPeekAtLastError(), cudaErrorAssert, "a launch");
    void *more;
    failed |= check(cudaMalloc(&more, 16), cudaErrorAssert, "cudaMalloc");
    if (failed)
        return 1;

    cudaDeviceReset();  // a fresh context: usable again
    failed |= check(cudaMalloc(&d, sizeof h), cudaSuccess, "cudaMalloc after cudaDeviceReset");
    failed |= check(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess, "cudaMemcpy after cudaDeviceReset");
    sum_checked<<<2, 32>>>(d, d, 64);  // h[40] < 0: the helper's assert fails
    failed |= check(cudaDeviceSynchronize(), cudaErrorAssert, "cudaDeviceSynchronize (helper's assert)");
    if (failed)
        return 1;
    printf("PASS\n");
    return 0;
}
