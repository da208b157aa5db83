// Explicit specializations of a __device__ function template that are translated (they read the
// thread's index, so they take it as a parameter): they stay specializations.  Two of them differ
// only in the return type, the template argument nothing deduces (vLLM's mul<Acc, A, B>).
#include <cstdio>
#include <cuda_runtime.h>

template <typename Acc, typename T>
__device__ Acc scaled(T a);

template <>
__device__ float scaled(float a)
{
    return a * (float)(threadIdx.x + 1);
}

template <>
__device__ double scaled(float a)
{
    return (double)a * 0.5;
}

template <>
__device__ int scaled<int, int>(int a)
{
    return a + (int)blockIdx.x;
}

__global__ void apply(const float *in, float *out, int *iout)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = scaled<float>(in[i]) + (float)scaled<double>(in[i]);
    iout[i] = scaled<int>(i);
}

int main()
{
    const int blocks = 4, threads = 32, n = blocks * threads;
    float *in, *out;
    int *iout;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&out, n * sizeof(float));
    cudaMallocManaged(&iout, n * sizeof(int));
    for (int i = 0; i < n; ++i)
        in[i] = 0.25f * i;
    apply<<<blocks, threads>>>(in, out, iout);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float want = in[i] * (float)(i % threads + 1) + (float)((double)in[i] * 0.5);
        bad += out[i] != want || iout[i] != i + i / threads;
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
