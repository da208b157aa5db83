// SAXPY with a templated kernel instantiated for float and double, grid-stride loop.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// y = alpha * x + y.  A grid-stride loop: any grid size covers any n.
template <typename T>
__global__ void axpy(int n, T alpha, const T *x, T *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i] + y[i];
}

// Runs axpy<T> on the device and compares with the host result (relative tolerance).
template <typename T>
bool check(int n, T alpha)
{
    std::vector<T> x(n), y(n), expected(n);
    for (int i = 0; i < n; ++i) {
        x[i] = T(i % 17) / 4;
        y[i] = T(i % 5);
        expected[i] = alpha * x[i] + y[i];
    }
    T *dx, *dy;
    cudaMalloc(&dx, n * sizeof(T));
    cudaMalloc(&dy, n * sizeof(T));
    cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    axpy<T><<<64, 128>>>(n, alpha, dx, dy);  // a small fixed grid: each thread does many elements
    cudaDeviceSynchronize();
    cudaMemcpy(y.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    for (int i = 0; i < n; ++i)
        if (std::fabs(y[i] - expected[i]) > 1e-5 * (1 + std::fabs(expected[i])))
            return false;
    return true;
}

int main()
{
    // Two instantiations of the same kernel template.
    if (!check<float>(500000, 2.5f) || !check<double>(300001, -1.25)) {
        printf("FAIL: saxpy mismatch\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
