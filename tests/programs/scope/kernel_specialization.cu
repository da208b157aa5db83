// An explicit specialization of a kernel template runs when the launch names (or deduces) its
// template arguments; other arguments run the primary template.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void fill(T *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = T(1);
}

template <>
__global__ void fill<float>(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 2.5f;
}

template <int SCALE>
__global__ void scaled(int *p)
{
    p[threadIdx.x] = SCALE * threadIdx.x;
}

template <>
__global__ void scaled<3>(int *p)
{
    p[threadIdx.x] = -1;
}

int main()
{
    const int n = 100;
    float *df, hf[n];
    int *di, hi[n];
    cudaMalloc(&df, n * sizeof(float));
    cudaMalloc(&di, n * sizeof(int));
    fill<float><<<4, 32>>>(df, n);
    cudaMemcpy(hf, df, n * sizeof(float), cudaMemcpyDeviceToHost);
    fill<int><<<4, 32>>>(di, n);
    cudaMemcpy(hi, di, n * sizeof(int), cudaMemcpyDeviceToHost);
    if (hf[0] != 2.5f || hf[n - 1] != 2.5f || hi[0] != 1 || hi[n - 1] != 1) {
        printf("FAIL: fill<float> %g, fill<int> %d\n", hf[0], hi[0]);
        return 1;
    }
    cudaMemset(df, 0, n * sizeof(float));
    fill<<<4, 32>>>(df, n); // deduced: the specialization for float
    cudaMemcpy(hf, df, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (hf[7] != 2.5f) {
        printf("FAIL: fill (deduced float) %g\n", hf[7]);
        return 1;
    }
    scaled<3><<<1, 32>>>(di);
    cudaMemcpy(hi, di, 32 * sizeof(int), cudaMemcpyDeviceToHost);
    if (hi[5] != -1) {
        printf("FAIL: scaled<3> %d\n", hi[5]);
        return 1;
    }
    scaled<2><<<1, 32>>>(di);
    cudaMemcpy(hi, di, 32 * sizeof(int), cudaMemcpyDeviceToHost);
    if (hi[5] != 10) {
        printf("FAIL: scaled<2> %d\n", hi[5]);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
