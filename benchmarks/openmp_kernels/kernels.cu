// Issue 5's benchmark kernels, written as CUDA programmers write them, timed against hand-written
// CPU baselines (baselines.cpp) in the same process.  Prints one JSON object per measurement.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define TILE 16

// Tiled matrix multiply through shared memory (n a multiple of TILE).
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// 256-thread tree reduction in shared memory: each block sums 512 consecutive elements.
__global__ void reduce256(const float *in, float *partial, int n)
{
    __shared__ float s[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 512 + tid;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + 256 < n) v += in[i + 256];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

// The CUDA SDK's shared-memory tree reduction (sequential addressing), as issue 20 quotes it: 256
// threads, one element per thread, the load guarded by `i < unsigned(n)`, the tree over
// blockDim.x, one partial sum per block.  Integer data so that every order of summation gives
// the same total and the check below compares it exactly with the OpenMP reduction's.
__global__ void reduce_sdk(const int *g_idata, int *g_odata, int n)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < unsigned(n)) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void empty_kernel() {}

// Baselines (baselines.cpp): plain C++ with OpenMP.
void matmul_mcuda_style(const float *A, const float *B, float *C, int n);
void matmul_mcuda_independent(const float *A, const float *B, float *C, int n);
void matmul_openmp_blocked(const float *A, const float *B, float *C, int n);
float reduce_openmp(const float *in, int n);
float reduce_tree_by_hand(const float *in, float *partial, int n);
long long reduce_openmp_int(const int *in, int n);
void triad_openmp(float *a, const float *b, const float *c, float scalar, int n);
void empty_parallel_for(int iterations);

// One way of computing a benchmark's result: it runs once and returns a value to check.
struct Variant {
    const char *name;
    std::function<double()> run;
};

static void report(const char *bench, const char *variant, double seconds, double check)
{
    printf("{\"bench\": \"%s\", \"variant\": \"%s\", \"seconds\": %.6g, \"check\": %.9g}\n", bench, variant, seconds, check);
    fflush(stdout);
}

// Times the variants in turns (each runs once per repetition, in the order given) and reports
// the median of each, divided by `per_run`.  In turns, not one variant's repetitions after the
// other's: the second would otherwise run in the cache and clock state the first left behind.
// Returns the last value each variant computed.
static std::vector<double> time_in_turns(const char *bench, int repeat, const std::vector<Variant> &variants,
                                         double per_run = 1.0)
{
    std::vector<std::vector<double>> times(variants.size());
    std::vector<double> checks(variants.size());
    for (int r = 0; r < repeat; ++r) {
        for (size_t v = 0; v < variants.size(); ++v) {
            auto t0 = std::chrono::steady_clock::now();
            checks[v] = variants[v].run();
            cudaDeviceSynchronize();
            times[v].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    }
    for (size_t v = 0; v < variants.size(); ++v) {
        std::sort(times[v].begin(), times[v].end());
        report(bench, variants[v].name, times[v][times[v].size() / 2] / per_run, checks[v]);
    }
    return checks;
}

int main(int argc, char **argv)
{
    const int n_mat = argc > 1 ? atoi(argv[1]) : 512;
    const int n_vec = argc > 2 ? atoi(argv[2]) : (1 << 24);
    const int repeat = argc > 3 ? atoi(argv[3]) : 7;
    const char *only = argc > 4 ? argv[4] : "all";  // "all", "translated" (kernels only)
    const bool baselines = std::string(only) == "all";
    // The translated variant, and the baselines after it where they are wanted.
    auto variants = [&](std::vector<Variant> all) {
        if (!baselines)
            all.resize(1);
        return all;
    };

    // Matrix multiply.
    std::vector<float> A((size_t)n_mat * n_mat), B(A.size()), C(A.size()), R(A.size());
    for (size_t i = 0; i < A.size(); ++i) {
        A[i] = (float)((i * 7) % 13) - 6.0f;
        B[i] = (float)((i * 5) % 11) - 5.0f;
    }
    dim3 block(TILE, TILE), grid(n_mat / TILE, n_mat / TILE);
    const size_t probe = (size_t)n_mat * n_mat / 2 + 3;
    time_in_turns("matmul", repeat, variants({
        {"translated", [&] { matmul_tiled<<<grid, block>>>(A.data(), B.data(), C.data(), n_mat);
                             cudaDeviceSynchronize(); return (double)C[probe]; }},
        {"mcuda_style", [&] { matmul_mcuda_style(A.data(), B.data(), R.data(), n_mat); return (double)R[probe]; }},
        {"mcuda_independent", [&] { matmul_mcuda_independent(A.data(), B.data(), R.data(), n_mat); return (double)R[probe]; }},
        {"openmp", [&] { matmul_openmp_blocked(A.data(), B.data(), R.data(), n_mat); return (double)R[probe]; }},
    }));

    // Reduction.
    std::vector<float> in(n_vec);
    for (int i = 0; i < n_vec; ++i) in[i] = (float)(i % 17) * 0.25f;
    const int blocks = (n_vec + 511) / 512;
    std::vector<float> partial(blocks);
    time_in_turns("reduction", repeat, variants({
        {"translated", [&] {
             reduce256<<<blocks, 256>>>(in.data(), partial.data(), n_vec);
             cudaDeviceSynchronize();
             double s = 0.0;
             for (int b = 0; b < blocks; ++b) s += partial[b];
             return s; }},
        {"openmp", [&] { return (double)reduce_openmp(in.data(), n_vec); }},
        {"tree_by_hand", [&] { return (double)reduce_tree_by_hand(in.data(), partial.data(), n_vec); }},
    }));

    // The SDK reduction over integers: exact, so the translated sum must equal the serial one and
    // the OpenMP reduction's bit for bit.
    std::vector<int> in_int(n_vec);
    long long expected = 0;
    for (int i = 0; i < n_vec; ++i) {
        in_int[i] = (i * 7) % 19 - 5;
        expected += in_int[i];
    }
    const int sdk_blocks = (n_vec + 255) / 256;
    std::vector<int> partial_int(sdk_blocks);
    std::vector<double> sums = time_in_turns("reduction_sdk", repeat, variants({
        {"translated", [&] {
             reduce_sdk<<<sdk_blocks, 256>>>(in_int.data(), partial_int.data(), n_vec);
             cudaDeviceSynchronize();
             long long s = 0;
             for (int b = 0; b < sdk_blocks; ++b) s += partial_int[b];
             return (double)s; }},
        {"openmp", [&] { return (double)reduce_openmp_int(in_int.data(), n_vec); }},
    }));
    for (double s : sums) {
        if (s != (double)expected) {
            fprintf(stderr, "reduction_sdk: sum %.17g, expected %lld\n", s, expected);
            return 1;
        }
    }

    // Vector add against a STREAM-style triad over arrays of the same size.
    std::vector<float> a(n_vec, 1.0f), b(n_vec, 2.0f), c(n_vec, 0.0f);
    time_in_turns("vecadd", repeat, variants({
        {"translated", [&] { vecadd<<<(n_vec + 255) / 256, 256>>>(a.data(), b.data(), c.data(), n_vec);
                             cudaDeviceSynchronize(); return (double)c[n_vec / 3]; }},
        {"triad", [&] { triad_openmp(c.data(), a.data(), b.data(), 3.0f, n_vec); return (double)c[n_vec / 3]; }},
    }));

    // Launch overhead: 1,000 launches of an empty 1x1 kernel against 1,000 empty parallel loops.
    time_in_turns("launch", repeat, variants({
        {"translated", [&] { for (int r = 0; r < 1000; ++r) empty_kernel<<<1, 1>>>(); return 0.0; }},
        {"omp_parallel_for", [&] { for (int r = 0; r < 1000; ++r) empty_parallel_for(1); return 0.0; }},
    }), 1000.0);
    return 0;
}
