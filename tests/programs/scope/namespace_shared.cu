// __shared__ variables declared at namespace scope, as NVIDIA's samples write them: each is one
// copy per block (like a __shared__ local), in every kernel and __device__ function that uses it.
// Blocks run concurrently on several OpenMP threads; a single copy would let them overwrite each
// other's data between the barrier and the reads.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BLOCK 256
#define ROUNDS 400

namespace tiles {
__shared__ float tile[BLOCK];
}
static __shared__ int counts[4];
extern __shared__ float window[];

// Uses the namespace-scope array without reading threadIdx itself.
__device__ void put(int i, float v) { tiles::tile[i] = v; }
__device__ float get(int i) { return tiles::tile[i]; }

// Each round a block stores its values, waits, and reads another thread's: any other block's
// store in between shows up as a wrong value.
__global__ void rotate(const float *in, float *out)
{
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    float v = in[base + t];
    for (int r = 0; r < ROUNDS; ++r) {
        put(t, v);
        __syncthreads();
        v = get((t + 1) % BLOCK) + 1.0f;
        __syncthreads();
    }
    out[base + t] = v;
}

__global__ void histogram4(const int *in, int *out)
{
    int t = threadIdx.x;
    for (int r = 0; r < ROUNDS; ++r) {
        if (t < 4)
            counts[t] = 0;
        __syncthreads();
        atomicAdd(&counts[(in[blockIdx.x * blockDim.x + t] + r) & 3], 1);
        __syncthreads();
        if (t < 4)
            atomicAdd(&out[blockIdx.x * 4 + t], counts[t]);
        __syncthreads();
    }
}

__global__ void reverse_window(const float *in, float *out)
{
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    float v = in[base + t];
    for (int r = 0; r < ROUNDS; ++r) {
        window[t] = v;
        __syncthreads();
        v = window[blockDim.x - 1 - t];
        __syncthreads();
    }
    out[base + t] = v;
}

int main()
{
    const int blocks = 64;
    const int n = blocks * BLOCK;
    std::vector<float> in(n), out(n);
    std::vector<int> keys(n), hist(blocks * 4);
    for (int i = 0; i < n; ++i) {
        in[i] = (float)(i % 1000);
        keys[i] = (i * 7) % 13;
    }
    float *din, *dout;
    int *dkeys, *dhist;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMalloc(&dkeys, n * sizeof(int));
    cudaMalloc(&dhist, blocks * 4 * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dkeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(dhist, 0, blocks * 4 * sizeof(int));

    rotate<<<blocks, BLOCK>>>(din, dout);
    cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            float expected = in[b * BLOCK + (t + ROUNDS) % BLOCK] + ROUNDS;
            if (out[b * BLOCK + t] != expected) {
                printf("FAIL: rotate block %d thread %d: %g, expected %g\n", b, t, out[b * BLOCK + t], expected);
                return 1;
            }
        }

    histogram4<<<blocks, BLOCK>>>(dkeys, dhist);
    cudaMemcpy(hist.data(), dhist, blocks * 4 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
        for (int k = 0; k < 4; ++k) {
            int expected = 0;
            for (int r = 0; r < ROUNDS; ++r)
                for (int t = 0; t < BLOCK; ++t)
                    expected += ((keys[b * BLOCK + t] + r) & 3) == k;
            if (hist[b * 4 + k] != expected) {
                printf("FAIL: histogram4 block %d bin %d: %d, expected %d\n", b, k, hist[b * 4 + k], expected);
                return 1;
            }
        }

    const int threads = 64;
    reverse_window<<<n / threads, threads, threads * sizeof(float)>>>(din, dout);
    cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        int b = i / threads, t = i % threads;
        float expected = in[b * threads + (ROUNDS % 2 ? threads - 1 - t : t)];
        if (out[i] != expected) {
            printf("FAIL: reverse_window[%d] = %g, expected %g\n", i, out[i], expected);
            return 1;
        }
    }
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dkeys);
    cudaFree(dhist);
    printf("PASS\n");
    return 0;
}
