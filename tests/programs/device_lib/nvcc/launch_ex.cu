// Built by nvcc -cudart shared and run under `moccuda run`: CUDA 12's cudaLaunchKernelEx (which
// nvcc's header turns into cudaLaunchKernelExC), cudaFuncGetAttributes and the removed
// cudaDeviceProp fields read through MocCUDA's libcudart stand-in.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void axpb(int *out, int a, int b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * i + b;
}

int main()
{
    const int n = 1000;
    int *d, h[n];
    cudaMalloc(&d, n * sizeof(int));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 127) / 128);
    config.blockDim = dim3(128);
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributePriority;
    attribute.val.priority = 0;
    config.attrs = &attribute;
    config.numAttrs = 1;
    cudaError_t launched = cudaLaunchKernelEx(&config, axpb, d, 3, -7, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += h[i] != 3 * i - 7;
    printf("cudaLaunchKernelEx: %s, %d wrong\n", cudaGetErrorName(launched), wrong);
    cudaFuncAttributes attributes;
    cudaError_t got = cudaFuncGetAttributes(&attributes, axpb);
    printf("cudaFuncGetAttributes: %s, maxThreadsPerBlock %d\n", cudaGetErrorName(got), attributes.maxThreadsPerBlock);
    return launched == cudaSuccess && wrong == 0 && got == cudaSuccess && attributes.maxThreadsPerBlock == 1024 ? 0 : 1;
}
