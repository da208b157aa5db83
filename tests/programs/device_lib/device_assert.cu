// A failing assert in a kernel stops the program with the condition and its location, as
// CUDA's device assert does (there the launch fails and the host sees cudaErrorAssert).
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void check_positive(const int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        assert(v[i] > 0);
}

int main()
{
    int h[64], *d;
    for (int i = 0; i < 64; ++i) h[i] = i == 40 ? -3 : i + 1;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    printf("launching\n");
    fflush(stdout);
    check_positive<<<2, 32>>>(d, 64);
    cudaDeviceSynchronize();
    printf("FAIL: the assert did not stop the program\n");
    return 1;
}
