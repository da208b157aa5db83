// extern __shared__ arrays declared in member functions: the SharedMemory<T> idiom of NVIDIA's
// samples (a class template whose conversion to T* names the launch's dynamic shared memory),
// with an explicit specialization, used by a kernel template with a tree reduction.
#include <cstdio>
#include <cuda_runtime.h>

template <class T>
struct SharedMemory {
    __device__ inline operator T *()
    {
        extern __shared__ int words[];
        return (T *)words;
    }
};

template <>
struct SharedMemory<double> {
    __device__ inline operator double *()
    {
        extern __shared__ double doubles[];
        return doubles;
    }
};

template <class T>
__global__ void block_sums(const T *in, T *out, unsigned n)
{
    T *sdata = SharedMemory<T>();
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

template <class T>
bool check(unsigned threads)
{
    const unsigned n = 50000, blocks = (n + threads - 1) / threads;
    T *h = new T[n], *r = new T[blocks], *din, *dout;
    for (unsigned i = 0; i < n; ++i)
        h[i] = (T)(i % 7);
    cudaMalloc(&din, n * sizeof(T));
    cudaMalloc(&dout, blocks * sizeof(T));
    cudaMemcpy(din, h, n * sizeof(T), cudaMemcpyHostToDevice);
    block_sums<T><<<blocks, threads, threads * sizeof(T)>>>(din, dout, n);
    cudaMemcpy(r, dout, blocks * sizeof(T), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (unsigned b = 0; b < blocks && ok; ++b) {
        T expected = 0;
        for (unsigned i = b * threads; i < n && i < (b + 1) * threads; ++i)
            expected += h[i];
        if (r[b] != expected) {
            printf("FAIL: block %u of %u threads: %g, expected %g\n", b, threads, (double)r[b], (double)expected);
            ok = false;
        }
    }
    cudaFree(din);
    cudaFree(dout);
    delete[] h;
    delete[] r;
    return ok;
}

int main()
{
    if (!check<int>(256) || !check<float>(128) || !check<double>(512) || !check<int>(1024))
        return 1;
    printf("PASS\n");
    return 0;
}
