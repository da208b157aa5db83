// A kernel templated on `int BLOCK` (static shared array sized by the template parameter) and on
// the element type; instantiated for 64/128/256 threads and int/float; top-level barriers only.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// Each thread outputs the sum of its element and the next WINDOW-1 elements of the same block
// (wrapping around inside the block), read from the staged shared copy.
template <int BLOCK, typename T>
__global__ void window_sum(const T *in, T *out, int n)
{
    __shared__ T s[BLOCK];
    const int WINDOW = 4;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    T acc = T(0);
    for (int k = 0; k < WINDOW; ++k)
        acc += s[(threadIdx.x + k) % BLOCK];
    if (i < n)
        out[i] = acc;
}

template <int BLOCK, typename T>
static bool run(int n)
{
    std::vector<T> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = T((i * 17) % 23) - T(11);
    T *din, *dout;
    cudaMalloc(&din, n * sizeof(T));
    cudaMalloc(&dout, n * sizeof(T));
    cudaMemcpy(din, in.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    window_sum<BLOCK, T><<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int i = 0; i < n; ++i) {
        int start = i / BLOCK * BLOCK;
        T e = T(0);
        for (int k = 0; k < 4; ++k) {
            int j = start + (i - start + k) % BLOCK;
            e += j < n ? in[j] : T(0);
        }
        if (std::fabs((double)(out[i] - e)) > 1e-6) {
            printf("FAIL: BLOCK=%d out[%d] = %g, expected %g\n", BLOCK, i, (double)out[i], (double)e);
            return false;
        }
    }
    return true;
}

int main()
{
    if (!run<64, int>(10007) || !run<128, float>(20011) || !run<256, int>(70001) || !run<256, double>(999))
        return 1;
    printf("PASS\n");
    return 0;
}
