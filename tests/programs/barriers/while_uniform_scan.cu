// `while (offset < blockDim.x)` loop (uniform condition) containing two barriers: Hillis-Steele
// inclusive scan per block, with a value read before the first barrier and used after it;
// blockDim.x is not a power of two (96 and 200 threads).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void inclusive_scan(const int *in, int *out, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    int offset = 1;
    while (offset < (int)blockDim.x) {
        int add = t >= offset ? s[t - offset] : 0;
        __syncthreads();
        s[t] += add;
        __syncthreads();
        offset *= 2;
    }
    if (i < n)
        out[i] = s[t];
}

static bool run(const std::vector<int> &in, int block)
{
    int n = (int)in.size();
    std::vector<int> out(n);
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    inclusive_scan<<<(n + block - 1) / block, block, block * sizeof(int)>>>(din, dout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        acc = i % block == 0 ? in[i] : acc + in[i];
        if (out[i] != acc) {
            printf("FAIL: block size %d: out[%d] = %d, expected %d\n", block, i, out[i], acc);
            return false;
        }
    }
    return true;
}

int main()
{
    const int n = 100007;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 13) % 21 - 10;
    if (!run(in, 96) || !run(in, 200) || !run(in, 256))
        return 1;
    printf("PASS\n");
    return 0;
}
