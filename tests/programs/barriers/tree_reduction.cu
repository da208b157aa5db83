// Classic shared-memory tree reduction: `for (s = blockDim.x/2; s > 0; s >>= 1) { if (tid < s)
// ...; __syncthreads(); }`, dynamic shared memory, a templated kernel (int and float), and
// repeated launches from a host loop until one value is left.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <typename T>
__global__ void reduce(const T *in, T *out, int n)
{
    extern __shared__ unsigned char smem_raw[];
    T *s = reinterpret_cast<T *>(smem_raw);
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + tid;
    T v = T(0);
    if (i < (unsigned)n)
        v = in[i];
    if (i + blockDim.x < (unsigned)n)
        v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

// Reduces `n` elements on the device: each pass shrinks the array by 2*block.
template <typename T>
static T device_sum(const std::vector<T> &h, int block)
{
    int n = (int)h.size();
    T *a, *b;
    cudaMalloc(&a, n * sizeof(T));
    cudaMalloc(&b, n * sizeof(T));
    cudaMemcpy(a, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    while (n > 1) {
        int blocks = (n + 2 * block - 1) / (2 * block);
        reduce<T><<<blocks, block, block * sizeof(T)>>>(a, b, n);
        T *t = a;
        a = b;
        b = t;
        n = blocks;
    }
    T result;
    cudaMemcpy(&result, a, sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(a);
    cudaFree(b);
    return result;
}

int main()
{
    const int n = 1000003;
    std::vector<int> vi(n);
    std::vector<float> vf(n);
    long long ei = 0;
    double ef = 0;
    for (int i = 0; i < n; ++i) {
        vi[i] = (i * 7) % 19 - 9;
        vf[i] = (float)((i * 3) % 11) * 0.25f;
        ei += vi[i];
        ef += vf[i];
    }
    int gi = device_sum(vi, 256);
    int gi2 = device_sum(vi, 64);
    float gf = device_sum(vf, 128);
    if (gi != ei || gi2 != ei) {
        printf("FAIL: int sum %d / %d, expected %lld\n", gi, gi2, ei);
        return 1;
    }
    if (std::fabs(gf - ef) > 1e-5 * std::fabs(ef)) {
        printf("FAIL: float sum %g, expected %g\n", gf, ef);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
