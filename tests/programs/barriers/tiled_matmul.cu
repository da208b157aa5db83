// Tiled matrix multiply C = A * B with 16x16 shared tiles: a loop over tiles with two barriers
// inside it (after loading, after using); sizes not multiples of 16, so loads are guarded.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = row < M && ak < K ? A[row * K + ak] : 0.0f;
        Bs[ty][tx] = bk < K && col < N ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

int main()
{
    const int M = 250, N = 260, K = 270;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (int i = 0; i < M * K; ++i)
        A[i] = (float)(i % 7 - 3) * 0.5f;
    for (int i = 0; i < K * N; ++i)
        B[i] = (float)((i * 5) % 9 - 4) * 0.25f;
    float *dA, *dB, *dC;
    cudaMalloc(&dA, M * K * sizeof(float));
    cudaMalloc(&dB, K * N * sizeof(float));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemcpy(dA, A.data(), M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), K * N * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaDeviceSynchronize();
    cudaMemcpy(C.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            double e = 0;
            for (int k = 0; k < K; ++k)
                e += (double)A[r * K + k] * B[k * N + c];
            if (std::fabs(C[r * N + c] - e) > 1e-5 * (1 + std::fabs(e))) {
                printf("FAIL: C[%d][%d] = %g, expected %g\n", r, c, C[r * N + c], e);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
