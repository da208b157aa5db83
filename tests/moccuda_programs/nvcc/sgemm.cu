// Built with nvcc -cudart shared against MocCUDA's cublas_v2.h and libcublas.so.13; run under
// `moccuda run` with the kernel library `cuda2cpu --emit=kernel-library` builds from this file:
// SGEMM with a transpose, alpha and beta, on cudaMalloc'd memory that a kernel fills, checked here.
#include <cstdio>
#include <cublas_v2.h>

// values[i] = (i % period) * step + first
__global__ void fill(float *values, int count, int period, float step, float first)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        values[i] = (float)(i % period) * step + first;
}

int main()
{
    const int m = 3, n = 2, k = 4;
    float A[k * m], B[k * n], C[m * n], R[m * n];  // A stored k x m (used transposed), B k x n
    for (int i = 0; i < k * m; ++i)
        A[i] = (float)(i % 5) - 2;
    for (int i = 0; i < k * n; ++i)
        B[i] = (float)(i % 3) + 0.5f;
    for (int i = 0; i < m * n; ++i)
        C[i] = R[i] = (float)i;
    const float alpha = 2, beta = -1;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            float sum = 0;
            for (int p = 0; p < k; ++p)
                sum += A[p + i * k] * B[p + j * k];
            R[i + j * m] = alpha * sum + beta * R[i + j * m];
        }
    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof A);
    cudaMalloc(&dB, sizeof B);
    cudaMalloc(&dC, sizeof C);
    fill<<<1, 32>>>(dA, k * m, 5, 1.0f, -2.0f);   // the A and B above, made on the device
    fill<<<1, 32>>>(dB, k * n, 3, 1.0f, 0.5f);
    cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
    cublasHandle_t handle;
    cublasStatus_t created = cublasCreate(&handle);
    cublasStatus_t status = cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, k, dB, k, &beta, dC, m);
    cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < m * n; ++i)
        wrong += C[i] != R[i];
    cudaError_t filled = cudaGetLastError();
    printf("fill %s, create %d sgemm %d, %d wrong\n%s\n", cudaGetErrorName(filled), (int)created, (int)status, wrong,
           filled == cudaSuccess && created == 0 && status == 0 && wrong == 0 ? "PASS" : "FAIL");
    cublasDestroy(handle);
    return 0;
}
