// Hand-written CPU baselines for benchmarks/openmp_kernels (plain C++ with OpenMP).
#include <cstddef>
#include <vector>

#define TILE 16

// The tiled matrix multiply as MCUDA (Stratton et al., 2008) translates it: an outer parallel
// loop over blocks, every barrier a split into thread loops, every value live across a barrier
// expanded into a per-thread array, nothing recomputed.
void matmul_mcuda_style(const float *A, const float *B, float *C, int n)
{
    const int blocks = n / TILE;
#pragma omp parallel for collapse(2) schedule(static)
    for (int by = 0; by < blocks; ++by)
        for (int bx = 0; bx < blocks; ++bx) {
            float As[TILE][TILE], Bs[TILE][TILE];
            int tx_[TILE * TILE], ty_[TILE * TILE], row_[TILE * TILE], col_[TILE * TILE];
            float acc_[TILE * TILE];
            for (int ty = 0; ty < TILE; ++ty)
                for (int tx = 0; tx < TILE; ++tx) {
                    int tid = ty * TILE + tx;
                    tx_[tid] = tx;
                    ty_[tid] = ty;
                    row_[tid] = by * TILE + ty;
                    col_[tid] = bx * TILE + tx;
                    acc_[tid] = 0.0f;
                }
            for (int k0 = 0; k0 < n; k0 += TILE) {
                for (int tid = 0; tid < TILE * TILE; ++tid) {
                    As[ty_[tid]][tx_[tid]] = A[row_[tid] * n + k0 + tx_[tid]];
                    Bs[ty_[tid]][tx_[tid]] = B[(k0 + ty_[tid]) * n + col_[tid]];
                }
                for (int tid = 0; tid < TILE * TILE; ++tid)
                    for (int k = 0; k < TILE; ++k)
                        acc_[tid] += As[ty_[tid]][k] * Bs[k][tx_[tid]];
            }
            for (int tid = 0; tid < TILE * TILE; ++tid)
                C[row_[tid] * n + col_[tid]] = acc_[tid];
        }
}

// The same tiled multiply translated by hand the way the MCUDA paper (Stratton et al., 2008)
// describes, written without reference to cuda2cpu's output: the blocks are an OpenMP loop, the
// block's threads a serial loop nest over (ty, tx) in each region between barriers, threadIdx
// the loop indices themselves (so row and col are recomputed, not stored), and only `acc`, the
// one value live across a barrier, expanded into a per-thread array.
void matmul_mcuda_independent(const float *A, const float *B, float *C, int n)
{
    const int grid = n / TILE;
#pragma omp parallel for collapse(2) schedule(static)
    for (int by = 0; by < grid; ++by)
        for (int bx = 0; bx < grid; ++bx) {
            float As[TILE][TILE], Bs[TILE][TILE];
            float acc[TILE][TILE];
            for (int ty = 0; ty < TILE; ++ty)
                for (int tx = 0; tx < TILE; ++tx)
                    acc[ty][tx] = 0.0f;
            for (int k0 = 0; k0 < n; k0 += TILE) {
                // Region 1: every thread loads one element of each tile.
                for (int ty = 0; ty < TILE; ++ty)
                    for (int tx = 0; tx < TILE; ++tx) {
                        const int row = by * TILE + ty, col = bx * TILE + tx;
                        As[ty][tx] = A[row * n + k0 + tx];
                        Bs[ty][tx] = B[(k0 + ty) * n + col];
                    }
                // __syncthreads(); region 2: every thread accumulates its dot product.
                for (int ty = 0; ty < TILE; ++ty)
                    for (int tx = 0; tx < TILE; ++tx)
                        for (int k = 0; k < TILE; ++k)
                            acc[ty][tx] += As[ty][k] * Bs[k][tx];
                // __syncthreads(): the next iteration's loads start a new region.
            }
            for (int ty = 0; ty < TILE; ++ty)
                for (int tx = 0; tx < TILE; ++tx)
                    C[(by * TILE + ty) * n + bx * TILE + tx] = acc[ty][tx];
        }
}

// A blocked matrix multiply as an OpenMP programmer writes it: parallel over row blocks, the
// j loop innermost and SIMD.
void matmul_openmp_blocked(const float *A, const float *B, float *C, int n)
{
    const int BS = 64;
#pragma omp parallel for schedule(static)
    for (int ii = 0; ii < n; ii += BS) {
        for (int i = ii; i < ii + BS && i < n; ++i)
            for (int j = 0; j < n; ++j)
                C[(size_t)i * n + j] = 0.0f;
        for (int kk = 0; kk < n; kk += BS)
            for (int i = ii; i < ii + BS && i < n; ++i)
                for (int k = kk; k < kk + BS && k < n; ++k) {
                    const float a = A[(size_t)i * n + k];
                    float *__restrict c = C + (size_t)i * n;
                    const float *__restrict b = B + (size_t)k * n;
#pragma omp simd
                    for (int j = 0; j < n; ++j)
                        c[j] += a * b[j];
                }
    }
}

// The CUDA kernel's own algorithm written by hand for a CPU: blocks of 512 elements, the first
// add while loading, then the same tree over a 256-float local array (same sums, same order).
// It separates what the algorithm costs on a CPU from what the translation adds.
float reduce_tree_by_hand(const float *in, float *partial, int n)
{
    const int blocks = (n + 511) / 512;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) {
        float s[256];
        const std::size_t first = (std::size_t)b * 512;
        if (first + 512 <= (std::size_t)n) {
#pragma omp simd
            for (int t = 0; t < 256; ++t)
                s[t] = in[first + t] + in[first + t + 256];
        } else {
            for (int t = 0; t < 256; ++t) {
                float v = first + t < (std::size_t)n ? in[first + t] : 0.0f;
                s[t] = first + t + 256 < (std::size_t)n ? v + in[first + t + 256] : v;
            }
        }
        for (int stride = 128; stride > 0; stride >>= 1) {
#pragma omp simd
            for (int t = 0; t < stride; ++t)
                s[t] += s[t + stride];
        }
        partial[b] = s[0];
    }
    double sum = 0.0;
    for (int b = 0; b < blocks; ++b)
        sum += partial[b];
    return (float)sum;
}

float reduce_openmp(const float *in, int n)
{
    float sum = 0.0f;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
    for (int i = 0; i < n; ++i)
        sum += in[i];
    return sum;
}

// What an OpenMP programmer writes for the sum reduce_sdk computes.
long long reduce_openmp_int(const int *in, int n)
{
    int sum = 0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
    for (int i = 0; i < n; ++i)
        sum += in[i];
    return sum;
}

void triad_openmp(float *a, const float *b, const float *c, float scalar, int n)
{
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        a[i] = b[i] + scalar * c[i];
}

static volatile int empty_sink;

void empty_parallel_for(int iterations)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < iterations; ++i)
        empty_sink = i;
}
