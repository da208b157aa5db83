// A kernel and an extern "C" host entry in a .cu, called from a C program linked by gcc
// (`gcc main.o scale.o -lcudart -lm`, as Rodinia's kmeans and backprop Makefiles link): the
// translated object must need nothing from libstdc++.
#include <cuda_runtime.h>

__global__ void scale(float *values, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        values[i] *= factor;
}

extern "C" int scale_on_device(float *host, float factor, int n)
{
    float *device = 0;
    if (cudaMalloc((void **)&device, n * sizeof(float)) != cudaSuccess)
        return 1;
    cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 63) / 64, 64>>>(device, factor, n);
    cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(device);
    return cudaGetLastError() != cudaSuccess;
}
