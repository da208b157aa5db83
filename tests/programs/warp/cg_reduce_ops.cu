// cg::reduce with operators other than a named cooperative-groups one written out: an operator
// whose type is a template template parameter (Op<T>()), cg::plus<T> with T a template parameter,
// a functor passed to the kernel (with state), a functor constructed in place, and lambdas
// without captures.  Tiles of 8 and 16; block sizes 32, 48, 100 and 1024 (partial tiles at the
// end of a block).  The host combines the values of each tile's existing threads.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

struct CappedSum {  // state travels with the functor
    int cap;
    __device__ int operator()(int a, int b) const { return a + b < cap ? a + b : cap; }
};

template <typename T, template <class> class Op>
__global__ void reduce_dependent(const T *in, T *out)
{
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    T v = in[g];
    out[2 * g] = cg::reduce(tile, v, Op<T>());
    out[2 * g + 1] = cg::reduce(tile, v, cg::plus<T>());
}

template <typename F>
__global__ void reduce_functor(const int *in, int *out, F f)
{
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    out[4 * g] = cg::reduce(tile, v, f);
    out[4 * g + 1] = cg::reduce(tile, v, MaxOp());
    out[4 * g + 2] = cg::reduce(tile, v, [](int a, int b) { return a ^ b; });
    long long wide = cg::reduce(tile, (long long)v << 33, [](long long a, long long b) { return a < b ? a : b; });
    out[4 * g + 3] = (int)(wide >> 33);
}

template <class T, class Combine>
static T tile_result(const T *in, int g, int size, int n, Combine combine)
{
    int t = g % size, first = g - t + t / n * n;  // the tile's first thread
    T acc = in[first];
    for (int i = first + 1; i < first + n && i - (g - t) < size; ++i)
        acc = combine(acc, in[i]);
    return acc;
}

int main()
{
    const int sizes[] = {32, 48, 100, 1024};
    const int blocks = 3, most = blocks * 1024;
    int *in, *out;
    float *fin, *fout;
    cudaMallocManaged(&in, most * sizeof(int));
    cudaMallocManaged(&out, 4 * most * sizeof(int));
    cudaMallocManaged(&fin, most * sizeof(float));
    cudaMallocManaged(&fout, 2 * most * sizeof(float));
    for (int i = 0; i < most; ++i) {
        in[i] = (i * 29) % 53 - 20;
        fin[i] = 0.25f * (float)((i * 11) % 37);
    }
    const int cap = 100;
    int bad = 0;
    auto report = [&](int size, int g, const char *what, double got, double want) {
        if (got != want && bad++ < 8)
            printf("size %d thread %d %s: %g, want %g\n", size, g, what, got, want);
    };
    for (int size : sizes) {
        reduce_dependent<int, cg::less><<<blocks, size>>>(in, out);
        reduce_dependent<float, cg::greater><<<blocks, size>>>(fin, fout);
        cudaDeviceSynchronize();
        for (int g = 0; g < blocks * size; ++g) {
            report(size, g, "less<int>", out[2 * g], tile_result(in, g, size, 8, [](int a, int b) { return b < a ? b : a; }));
            report(size, g, "plus<int>", out[2 * g + 1], tile_result(in, g, size, 8, [](int a, int b) { return a + b; }));
            report(size, g, "greater<float>", fout[2 * g],
                   tile_result(fin, g, size, 8, [](float a, float b) { return a < b ? b : a; }));
            report(size, g, "plus<float>", fout[2 * g + 1],
                   tile_result(fin, g, size, 8, [](float a, float b) { return a + b; }));
        }
        reduce_functor<<<blocks, size>>>(in, out, CappedSum{cap});
        cudaDeviceSynchronize();
        for (int g = 0; g < blocks * size; ++g) {
            report(size, g, "functor argument", out[4 * g],
                   tile_result(in, g, size, 16, [&](int a, int b) { return a + b < cap ? a + b : cap; }));
            report(size, g, "functor", out[4 * g + 1], tile_result(in, g, size, 16, [](int a, int b) { return a > b ? a : b; }));
            report(size, g, "lambda", out[4 * g + 2], tile_result(in, g, size, 16, [](int a, int b) { return a ^ b; }));
            report(size, g, "lambda on long long", out[4 * g + 3],
                   tile_result(in, g, size, 16, [](int a, int b) { return a < b ? a : b; }));
        }
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return 0;
}
