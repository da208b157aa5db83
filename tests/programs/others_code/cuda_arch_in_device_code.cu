// Device code under `#if __CUDA_ARCH__`: nvcc compiles kernels and __device__ functions with
// __CUDA_ARCH__ defined (the device's compute capability times 100; MocCUDA's device is 7.0),
// and host code without it.  A kernel whose body sits under `#if __CUDA_ARCH__ >= 700` (as
// cuda-samples write feature-gated kernels) must run that body, not the host view's empty one.
#include <cstdio>

__device__ int scale_of(int x)
{
#ifdef __CUDA_ARCH__
    return 3 * x;
#else
    return -1000;  // the host view: never what a device function computes
#endif
}

__global__ void gated(const int *in, int *out, int n)
{
#if __CUDA_ARCH__ >= 700
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = scale_of(in[i]) + __CUDA_ARCH__ / 100;
#elif defined(__CUDA_ARCH__)
    if (threadIdx.x == 0) out[0] = -2;  // an older device
#endif
}

__global__ void host_branch_never_taken(int *flag)
{
#ifndef __CUDA_ARCH__
    *flag = 1;
#endif
#if !defined(__CUDA_ARCH__) \
    || __CUDA_ARCH__ < 300
    *flag += 2;
#endif
}

int host_view()
{
#ifdef __CUDA_ARCH__
    return -1;
#else
    return 5;  // host code is compiled without __CUDA_ARCH__
#endif
}

int main()
{
    const int n = 100;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; ++i) { h_in[i] = i; h_out[i] = -7; }
    int *in, *out, *flag;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMalloc(&flag, sizeof(int));
    cudaMemcpy(in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(out, h_out, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(flag, 0, sizeof(int));
    gated<<<(n + 31) / 32, 32>>>(in, out, n);
    host_branch_never_taken<<<1, 1>>>(flag);
    int h_flag = -1;
    cudaMemcpy(h_out, out, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&h_flag, flag, sizeof(int), cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (h_out[i] != 3 * i + 7) {
            if (errors++ < 5) printf("out[%d] = %d, expected %d\n", i, h_out[i], 3 * i + 7);
        }
    if (h_flag != 0) { printf("flag = %d: a host branch ran in a kernel\n", h_flag); ++errors; }
    if (host_view() != 5) { printf("host code saw __CUDA_ARCH__\n"); ++errors; }
    printf(errors ? "FAIL\n" : "PASS\n");
    return errors ? 1 : 0;
}
