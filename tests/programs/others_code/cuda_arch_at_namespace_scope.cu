// Device code selected by `#if __CUDA_ARCH__` at namespace scope and in a header.  nvcc compiles
// device functions with __CUDA_ARCH__ defined (MocCUDA's device is 7.0) and host code without:
// a device function that exists only under `#if __CUDA_ARCH__ >= 700` (as cuda-samples'
// simpleAWBarrier writes it) must be there for the kernel that calls it, and a header's
// architecture macro must read as the device pass reads it in the device functions that test it,
// while host code keeps the host pass's view.
#include <cstdio>
#include "cuda_arch_at_namespace_scope.cuh"

#if __CUDA_ARCH__ >= 700
template <int Scale>
__device__ int scaled(int x)
{
    return Scale * x;
}
#endif

// Host code depends on this one: it keeps the host pass's view.
#ifdef __CUDA_ARCH__
#define HOST_SEES -1
#else
#define HOST_SEES 5
#endif

__global__ void kernel(const int *in, int *out, int n)
{
    __shared__ int staged[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        copy_to_shared(&staged[threadIdx.x], &in[i]);
    __syncthreads();
#if __CUDA_ARCH__ >= 700
    if (i < n)
        out[i] = scaled<3>(staged[threadIdx.x]) + twice(1);
#endif
}

int main()
{
    const int n = 100;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; ++i) { h_in[i] = i; h_out[i] = -7; }
    int *in, *out;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMemcpy(in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);
    kernel<<<(n + 63) / 64, 64>>>(in, out, n);
    cudaMemcpy(h_out, out, n * sizeof(int), cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (h_out[i] != 3 * i + 2) {
            if (errors++ < 5) printf("out[%d] = %d, expected %d\n", i, h_out[i], 3 * i + 2);
        }
    if (HOST_SEES != 5) { printf("host code saw __CUDA_ARCH__\n"); ++errors; }
    printf(errors ? "FAIL\n" : "PASS\n");
    return errors ? 1 : 0;
}
