// Template kernels whose operands have dependent types while overloaded operators are in scope
// (as in PyTorch extensions: c10::Half's operators, accessor member calls): libclang leaves the
// operator calls unresolved and the member names unspelled; the translation must keep them.
#include <cstdio>

struct Half {
    float v;
};
__host__ __device__ Half operator*(Half a, Half b) { return Half{a.v * b.v}; }
__host__ __device__ Half operator-(Half a) { return Half{-a.v}; }

template <typename T>
struct Rows {
    T *data;
    int columns, count;
    __host__ __device__ T *operator[](int i) const { return data + i * columns; }
    __host__ __device__ int size(int d) const { return d == 0 ? count : columns; }
};

template <typename T, typename A>
__global__ void neg_scaled(Rows<T> in, A *out, A w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < in.size(0))
        out[i] = -static_cast<A>(in[i][1]) * w;
}

template <typename T>
__global__ void counters(T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T a = out[i];
    T b = a++;
    T c = ++a;
    out[i] = b * c - a;  // a0 * (a0 + 2) - (a0 + 2)
}

int main()
{
    const int n = 40, columns = 3;
    float *data, *out;
    int *ints;
    cudaMallocManaged(&data, n * columns * sizeof(float));
    cudaMallocManaged(&out, n * sizeof(float));
    cudaMallocManaged(&ints, n * sizeof(int));
    for (int i = 0; i < n * columns; ++i)
        data[i] = 0.5f * i;
    for (int i = 0; i < n; ++i)
        ints[i] = i;
    neg_scaled<float, float><<<2, 32>>>(Rows<float>{data, columns, n}, out, 3.0f);
    counters<int><<<2, 32>>>(ints, n);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; ++i) {
        if (out[i] != -0.5f * (i * columns + 1) * 3.0f || ints[i] != i * (i + 2) - (i + 2)) {
            printf("FAIL at %d: %g %d\n", i, out[i], ints[i]);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
