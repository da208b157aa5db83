// C++ in kernels that the front end used to reject or mistranslate: local typedef and using
// declarations (also dependent ones, pointers to them, sizeof of them, the same name meaning
// different types in two kernels) and T(x) conversions on a template parameter, which lost their
// operand.  The host checks with the same arithmetic in plain C++.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

template <class T>
struct Traits {
    typedef T value_type;
};

template <class T>
__global__ void reverse_scaled(const T *in, T *out)
{
    typedef typename Traits<T>::value_type V;
    using Acc = double;
    typedef V *VPtr;
    __shared__ V tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    __syncthreads();
    Acc a = (Acc)tile[63 - t] + sizeof(V) + static_cast<Acc>(V(2)) + T(3);
    VPtr p = &out[t];
    *p = (V)a;
}

__global__ void other_alias(int *out)
{
    typedef float V;  // another V than reverse_scaled's
    V x = 0.5f;
    out[threadIdx.x] = (int)(x * 4) + (int)sizeof(V);
}

int main()
{
    float h[64], r[64], *din, *dout;
    double hd[64], rd[64], *ddin, *ddout;
    int ri[4], *di;
    for (int i = 0; i < 64; ++i) { h[i] = i * 0.5f; hd[i] = i * 0.25; }
    cudaMalloc(&din, sizeof h); cudaMalloc(&dout, sizeof r);
    cudaMalloc(&ddin, sizeof hd); cudaMalloc(&ddout, sizeof rd);
    cudaMalloc(&di, sizeof ri);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(ddin, hd, sizeof hd, cudaMemcpyHostToDevice);
    reverse_scaled<float><<<1, 64>>>(din, dout);
    reverse_scaled<double><<<1, 64>>>(ddin, ddout);
    other_alias<<<1, 4>>>(di);
    cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost);
    cudaMemcpy(rd, ddout, sizeof rd, cudaMemcpyDeviceToHost);
    cudaMemcpy(ri, di, sizeof ri, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; ++t) {
        CHECK(r[t] == (float)((double)h[63 - t] + 4 + 2.0 + 3.0f), "float %d: %g", t, r[t]);
        CHECK(rd[t] == hd[63 - t] + 8 + 2.0 + 3.0, "double %d: %g", t, rd[t]);
    }
    for (int t = 0; t < 4; ++t) CHECK(ri[t] == 2 + 4, "other_alias %d: %d", t, ri[t]);
    printf("PASS\n");
    return 0;
}
