// Built with nvcc -cudart shared against MocCUDA's cublas_v2.h and libcublas.so.13; run under
// `moccuda run`: SGEMM with a transpose, alpha and beta, on cudaMalloc'd memory, checked here.
#include <cstdio>
#include <cublas_v2.h>

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
    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
    cublasHandle_t handle;
    cublasStatus_t created = cublasCreate(&handle);
    cublasStatus_t status = cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, k, dB, k, &beta, dC, m);
    cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < m * n; ++i)
        wrong += C[i] != R[i];
    printf("create %d sgemm %d, %d wrong\n%s\n", (int)created, (int)status, wrong,
           created == 0 && status == 0 && wrong == 0 ? "PASS" : "FAIL");
    cublasDestroy(handle);
    return 0;
}
