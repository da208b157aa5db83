// Early guard `if (i >= n) return;` at the top of a kernel with no barriers, followed by
// several statements and a second output array.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void map_two(const int *in, int *square, int *parity, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    square[i] = v * v;
    if (v & 1)
        parity[i] = -1;
    else
        parity[i] = 1;
}

int main()
{
    const int n = 300001;
    const int block = 256;
    std::vector<int> in(n), sq(n), par(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 13) % 2001 - 1000;
    int *din, *dsq, *dpar;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dsq, n * sizeof(int));
    cudaMalloc(&dpar, n * sizeof(int));
    cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    map_two<<<(n + block - 1) / block, block>>>(din, dsq, dpar, n);
    cudaDeviceSynchronize();
    cudaMemcpy(sq.data(), dsq, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(par.data(), dpar, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dsq);
    cudaFree(dpar);
    for (int i = 0; i < n; ++i) {
        int p = (in[i] & 1) ? -1 : 1;
        if (sq[i] != in[i] * in[i] || par[i] != p) {
            printf("FAIL: index %d: got (%d, %d), expected (%d, %d)\n", i, sq[i], par[i], in[i] * in[i], p);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
