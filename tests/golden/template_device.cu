// A templated kernel, a __device__ helper that reads threadIdx, a prototype and a 4-part launch.
#include <cstdio>

template <typename T>
__global__ void scale(T *x, T factor, int n);

__device__ int global_index()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ float twice(float v) { return 2.0f * v; }

template <typename T>
__global__ void scale(T *x, T factor, int n)
{
    int i = global_index();
    for (int k = i; k < n; k += blockDim.x * gridDim.x) {
        x[k] = x[k] * factor + (T)(k % 3 == 0 ? 1 : 0);
    }
}

__global__ void doubled(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }

int main()
{
    const int n = 3000;
    double *x;
    float *y;
    cudaMallocManaged(&x, n * sizeof(double));
    cudaMallocManaged(&y, 32 * sizeof(float));
    for (int i = 0; i < n; ++i) x[i] = 1.0;
    for (int i = 0; i < 32; ++i) y[i] = i;
    cudaStream_t stream = 0;
    scale<double><<<4, 128, 0, stream>>>(x, 2.0, n);
    doubled<<<1, 32>>>(y);
    cudaDeviceSynchronize();
    printf("%s\n", x[0] == 3.0 && x[1] == 2.0 && y[31] == 62.0f ? "PASS" : "FAIL");
    return 0;
}
