// Stream-ordered allocation through the device's memory pool: the default pool is found, its
// release threshold set (a hint: freed memory may stay cached) and read back, and memory from
// cudaMallocAsync in a non-blocking stream holds what the stream's copies and kernels put there.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * in[i];
}

int main()
{
    const int n = 5000;
    int supported = 0;
    bool ok = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && supported;
    cudaMemPool_t pool = nullptr, again = nullptr;
    ok = ok && cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess && pool != nullptr;
    ok = ok && cudaDeviceGetMemPool(&again, 0) == cudaSuccess && again == pool;
    uint64_t threshold = UINT64_MAX, back = 0;
    ok = ok && cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess;
    ok = ok && cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back) == cudaSuccess &&
         back == UINT64_MAX;
    cudaMemPool_t none = nullptr;
    ok = ok && cudaDeviceGetDefaultMemPool(&none, 99) == cudaErrorInvalidDevice;
    cudaGetLastError();

    static float host_in[n], host_out[n];
    for (int i = 0; i < n; ++i)
        host_in[i] = (float)i;
    cudaStream_t stream;
    ok = ok && cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess;
    for (int round = 1; ok && round <= 3; ++round) {
        float *in = nullptr, *out = nullptr;
        ok = cudaMallocAsync(&in, n * sizeof(float), stream) == cudaSuccess &&
             cudaMallocAsync(&out, n * sizeof(float), stream) == cudaSuccess;
        ok = ok && cudaMemcpyAsync(in, host_in, sizeof host_in, cudaMemcpyHostToDevice, stream) == cudaSuccess;
        scale<<<(n + 127) / 128, 128, 0, stream>>>(in, out, (float)round, n);
        ok = ok && cudaMemcpyAsync(host_out, out, sizeof host_out, cudaMemcpyDeviceToHost, stream) == cudaSuccess;
        ok = ok && cudaFreeAsync(in, stream) == cudaSuccess && cudaFreeAsync(out, stream) == cudaSuccess;
        ok = ok && cudaStreamSynchronize(stream) == cudaSuccess;
        for (int i = 0; ok && i < n; ++i)
            ok = host_out[i] == round * (float)i;
    }
    ok = ok && cudaMemPoolTrimTo(pool, 0) == cudaSuccess;
    cudaStreamDestroy(stream);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
