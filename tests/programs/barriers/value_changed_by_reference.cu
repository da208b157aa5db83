// Values a function changes through a non-const reference parameter, with no assignment in the
// kernel itself: a local initialized with a constant and then set by a function template (the
// shape of the bisection in cuda-samples' eigenvalues, whose midpoint stayed 0 after the barrier
// and whose loop never converged), and a kernel parameter a function changes (each thread has its
// own parameters in CUDA).  Both are used after a barrier.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 64

template <class T>
__device__ void midpoint(const T *lo, const T *hi, unsigned t, float &mid)
{
    mid = 0.5f * (float)(lo[t] + hi[t]);
}

__device__ void halve(int &n) { n /= 2; }

__global__ void midpoints(const int *lo, const int *hi, float *out)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const int base = blockIdx.x * BLOCK;
    float mid = 0.0f;
    midpoint(lo + base, hi + base, t, mid);
    s[t] = mid;
    __syncthreads();
    out[base + t] = mid + s[BLOCK - 1 - t];
}

__global__ void halves(int n, int *out)
{
    __shared__ int s[BLOCK];
    const unsigned t = threadIdx.x;
    halve(n);
    s[t] = (int)t;
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = n + s[BLOCK - 1 - t];
}

int main()
{
    const int blocks = 3, count = blocks * BLOCK;
    std::vector<int> lo(count), hi(count), halved(count);
    std::vector<float> out(count);
    for (int i = 0; i < count; ++i) {
        lo[i] = (i * 7) % 23;
        hi[i] = lo[i] + 1 + (i * 5) % 11;
    }
    int *dlo, *dhi, *dhalved;
    float *dout;
    cudaMalloc(&dlo, count * sizeof(int));
    cudaMalloc(&dhi, count * sizeof(int));
    cudaMalloc(&dhalved, count * sizeof(int));
    cudaMalloc(&dout, count * sizeof(float));
    cudaMemcpy(dlo, lo.data(), count * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dhi, hi.data(), count * sizeof(int), cudaMemcpyHostToDevice);
    midpoints<<<blocks, BLOCK>>>(dlo, dhi, dout);
    halves<<<blocks, BLOCK>>>(1000, dhalved);
    cudaMemcpy(out.data(), dout, count * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(halved.data(), dhalved, count * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            const int i = b * BLOCK + t, j = b * BLOCK + BLOCK - 1 - t;
            const float want = 0.5f * (float)(lo[i] + hi[i]) + 0.5f * (float)(lo[j] + hi[j]);
            if (out[i] != want) {
                printf("FAIL: midpoints out[%d] = %g, expected %g\n", i, out[i], want);
                return 1;
            }
            if (halved[i] != 500 + BLOCK - 1 - t) {
                printf("FAIL: halves out[%d] = %d, expected %d\n", i, halved[i], 500 + BLOCK - 1 - t);
                return 1;
            }
        }
    cudaFree(dlo);
    cudaFree(dhi);
    cudaFree(dhalved);
    cudaFree(dout);
    printf("PASS\n");
    return 0;
}
