// Stream attributes as the L2-persistence samples set them: the device reports a persisting part
// of L2 (else they waive), an access policy window on a stream (a caching hint, without effect on
// a CPU) is accepted, read back as set, and the kernels in that stream compute the same results.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_one(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += 1;
}

int main()
{
    const int n = 1000;
    int *data = nullptr;
    cudaStream_t stream;
    bool ok = cudaMalloc(&data, n * sizeof(int)) == cudaSuccess && cudaStreamCreate(&stream) == cudaSuccess;
    ok = ok && cudaMemset(data, 0, n * sizeof(int)) == cudaSuccess;
    cudaDeviceProp prop;
    ok = ok && cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
    ok = ok && prop.persistingL2CacheMaxSize > 0 && prop.accessPolicyMaxWindowSize >= n * (int)sizeof(int);
    ok = ok && cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize) == cudaSuccess;

    cudaStreamAttrValue value = {};
    value.accessPolicyWindow.base_ptr = data;
    value.accessPolicyWindow.num_bytes = n * sizeof(int);
    value.accessPolicyWindow.hitRatio = 0.5f;
    value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamAttrID id = cudaStreamAttributeAccessPolicyWindow;
    ok = ok && cudaStreamSetAttribute(stream, id, &value) == cudaSuccess;
    for (int round = 0; round < 3; ++round)
        add_one<<<(n + 255) / 256, 256, 0, stream>>>(data, n);

    cudaStreamAttrValue back = {};
    ok = ok && cudaStreamGetAttribute(stream, id, &back) == cudaSuccess;
    ok = ok && back.accessPolicyWindow.base_ptr == data && back.accessPolicyWindow.num_bytes == n * sizeof(int) &&
         back.accessPolicyWindow.hitRatio == 0.5f && back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
         back.accessPolicyWindow.missProp == cudaAccessPropertyStreaming;

    value.accessPolicyWindow.num_bytes = 0;  // how the samples take the window off again
    ok = ok && cudaStreamSetAttribute(stream, id, &value) == cudaSuccess;
    ok = ok && cudaCtxResetPersistingL2Cache() == cudaSuccess;
    ok = ok && cudaStreamSetAttribute(stream, id, nullptr) == cudaErrorInvalidValue;
    cudaGetLastError();

    int host[n];
    ok = ok && cudaMemcpyAsync(host, data, sizeof host, cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
         cudaStreamSynchronize(stream) == cudaSuccess;
    for (int i = 0; ok && i < n; ++i)
        ok = host[i] == 3;
    cudaStreamDestroy(stream);
    cudaFree(data);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
