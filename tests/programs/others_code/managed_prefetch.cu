// Managed memory prefetched and advised with CUDA 13's cudaMemLocation forms (as HeCBench's
// prefetch writes them) and CUDA 12's device-id forms: the kernel reads and writes the memory in
// between, and the calls check their arguments as CUDA does.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] + y[i];
}

int main()
{
    const int n = 3000;
    float *x = nullptr, *y = nullptr, *plain = nullptr;
    bool ok = cudaMallocManaged(&x, n * sizeof(float)) == cudaSuccess &&
              cudaMallocManaged(&y, n * sizeof(float)) == cudaSuccess &&
              cudaMalloc(&plain, n * sizeof(float)) == cudaSuccess;
    for (int i = 0; ok && i < n; ++i) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    cudaStream_t stream;
    ok = ok && cudaStreamCreate(&stream) == cudaSuccess;

    cudaMemLocation device;
    device.type = cudaMemLocationTypeDevice;
    device.id = 0;
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    ok = ok && cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, device) == cudaSuccess;
    ok = ok && cudaMemAdvise(y, n * sizeof(float), cudaMemAdviseSetPreferredLocation, device) == cudaSuccess;
    ok = ok && cudaMemPrefetchAsync(x, n * sizeof(float), device, 0, stream) == cudaSuccess;
    ok = ok && cudaMemPrefetchAsync_v2(y, n * sizeof(float), device, 0, stream) == cudaSuccess;
    add<<<(n + 255) / 256, 256, 0, stream>>>(n, x, y);
    ok = ok && cudaMemPrefetchAsync(y, n * sizeof(float), host, 0, stream) == cudaSuccess;
    ok = ok && cudaStreamSynchronize(stream) == cudaSuccess;
    for (int i = 0; ok && i < n; ++i)
        ok = y[i] == (float)i + 1.0f;

    // CUDA 12's forms: a device id, cudaCpuDeviceId for the host.
    ok = ok && cudaMemPrefetchAsync(y, n * sizeof(float), 0) == cudaSuccess;
    add<<<(n + 255) / 256, 256>>>(n, x, y);
    ok = ok && cudaMemPrefetchAsync(y, n * sizeof(float), cudaCpuDeviceId, 0) == cudaSuccess;
    ok = ok && cudaMemAdvise(y, n * sizeof(float), cudaMemAdviseSetAccessedBy, cudaCpuDeviceId) == cudaSuccess;
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    for (int i = 0; ok && i < n; ++i)
        ok = y[i] == 2.0f * (float)i + 1.0f;

    // What CUDA refuses: another device, an unset location, memory that is not managed, a range
    // past the allocation's end.
    cudaMemLocation elsewhere = {cudaMemLocationTypeDevice, 3}, unset = {cudaMemLocationTypeInvalid, 0};
    ok = ok && cudaMemPrefetchAsync(x, n * sizeof(float), elsewhere, 0, stream) == cudaErrorInvalidDevice;
    ok = ok && cudaMemPrefetchAsync(x, n * sizeof(float), unset, 0, stream) == cudaErrorInvalidValue;
    ok = ok && cudaMemPrefetchAsync(plain, n * sizeof(float), device, 0, stream) == cudaErrorInvalidValue;
    ok = ok && cudaMemPrefetchAsync(x, (n + 1) * sizeof(float), device, 0, stream) == cudaErrorInvalidValue;
    ok = ok && cudaMemAdvise(plain, n * sizeof(float), cudaMemAdviseSetReadMostly, device) == cudaErrorInvalidValue;
    ok = ok && cudaGetLastError() == cudaErrorInvalidValue && cudaGetLastError() == cudaSuccess;

    cudaStreamDestroy(stream);
    cudaFree(x);
    cudaFree(y);
    cudaFree(plain);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
