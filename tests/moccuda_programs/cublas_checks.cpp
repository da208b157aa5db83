// MocCUDA's cuBLAS checked against a naive column-major reference (here, in the test, only).
// Prints PASS, or FAIL with the line and condition of the first check that failed.
#include <cublas_v2.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "check.h"

// C = alpha op(A) op(B) + beta C, column-major, the definition written out.
template <typename T>
static void reference_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T alpha, const T *A,
                           int lda, const T *B, int ldb, T beta, T *C, int ldc)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            T sum = 0;
            for (int p = 0; p < k; ++p) {
                T a = ta == CUBLAS_OP_N ? A[i + p * lda] : A[p + i * lda];
                T b = tb == CUBLAS_OP_N ? B[p + j * ldb] : B[j + p * ldb];
                sum += a * b;
            }
            C[i + j * ldc] = alpha * sum + beta * C[i + j * ldc];
        }
}

template <typename T>
static std::vector<T> filled(size_t count, int seed)
{
    std::vector<T> v(count);
    for (size_t i = 0; i < count; ++i)
        v[i] = (T)((int)((i * 37 + seed * 11) % 19) - 9) / (T)4;
    return v;
}

template <typename T>
static bool close(const std::vector<T> &x, const std::vector<T> &y, double tolerance)
{
    for (size_t i = 0; i < x.size(); ++i)
        if (std::fabs((double)x[i] - (double)y[i]) > tolerance * (1 + std::fabs((double)y[i]))) {
            printf("  element %zu: %g, expected %g\n", i, (double)x[i], (double)y[i]);
            return false;
        }
    return true;
}

// Runs one GEMM of m x n x k with both transposes through `call` and the reference; padded
// leading dimensions, alpha and beta not 0 or 1.
template <typename T, typename Call>
static bool gemm_matches(cublasOperation_t ta, cublasOperation_t tb, Call call, double tolerance)
{
    const int m = 5, n = 3, k = 4;
    const int lda = (ta == CUBLAS_OP_N ? m : k) + 2, ldb = (tb == CUBLAS_OP_N ? k : n) + 1, ldc = m + 3;
    std::vector<T> A = filled<T>(lda * (ta == CUBLAS_OP_N ? k : m), 1);
    std::vector<T> B = filled<T>(ldb * (tb == CUBLAS_OP_N ? n : k), 2);
    std::vector<T> C = filled<T>(ldc * n, 3), expected = C;
    T alpha = (T)1.5, beta = (T)-0.5;
    reference_gemm<T>(ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, expected.data(), ldc);
    if (call(ta, tb, m, n, k, &alpha, A.data(), lda, B.data(), ldb, &beta, C.data(), ldc) != CUBLAS_STATUS_SUCCESS)
        return false;
    return close(C, expected, tolerance);
}

struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool open = false;
    float *target = nullptr;
};

static void fill_when_open(void *data)
{
    Gate *g = static_cast<Gate *>(data);
    std::unique_lock<std::mutex> lock(g->mutex);
    g->changed.wait_for(lock, std::chrono::seconds(30), [g] { return g->open; });
    for (int i = 0; i < 4; ++i)
        g->target[i] = 2.0f;
}

int main()
{
    cublasHandle_t handle;
    CHECK(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
    const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T};

    cublasHandle_t h = handle;
    auto sgemm = [h](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
                     const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc) {
        return cublasSgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    };
    auto dgemm = [h](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double *alpha,
                     const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc) {
        return cublasDgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    };
    auto sgemm_ex = [h](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
                        const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc) {
        return cublasGemmEx(h, ta, tb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, beta, C, CUDA_R_32F,
                            ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    auto dgemm_ex = [h](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double *alpha,
                        const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc) {
        return cublasGemmEx(h, ta, tb, m, n, k, alpha, A, CUDA_R_64F, lda, B, CUDA_R_64F, ldb, beta, C, CUDA_R_64F,
                            ldc, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
    };
    for (cublasOperation_t ta : ops)
        for (cublasOperation_t tb : ops) {
            CHECK(gemm_matches<float>(ta, tb, sgemm, 1e-5));
            CHECK(gemm_matches<double>(ta, tb, dgemm, 1e-12));
            CHECK(gemm_matches<float>(ta, tb, sgemm_ex, 1e-5));
            CHECK(gemm_matches<double>(ta, tb, dgemm_ex, 1e-12));
        }

    // Strided batches: three independent 4x2x3 products.
    {
        const int m = 4, n = 2, k = 3, batches = 3;
        const long long sa = m * k + 1, sb = k * n + 2, sc = m * n + 3;
        std::vector<float> A = filled<float>(sa * batches, 4), B = filled<float>(sb * batches, 5);
        std::vector<float> C = filled<float>(sc * batches, 6), expected = C;
        float alpha = 2.0f, beta = 0.25f;
        for (int b = 0; b < batches; ++b)
            reference_gemm<float>(CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, alpha, &A[b * sa], m, &B[b * sb], n, beta,
                                  &expected[b * sc], m);
        CHECK(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, A.data(), m, sa, B.data(),
                                        n, sb, &beta, C.data(), m, sc, batches) == CUBLAS_STATUS_SUCCESS);
        CHECK(close(C, expected, 1e-5));
    }

    // Level 1 and 2.
    {
        const int m = 3, n = 2;
        std::vector<float> A = {1, 2, 3, 4, 5, 6};  // [[1 4] [2 5] [3 6]]
        std::vector<float> x = {1, -1}, y = {1, 1, 1};
        float alpha = 2, beta = 3;
        CHECK(cublasSgemv(handle, CUBLAS_OP_N, m, n, &alpha, A.data(), m, x.data(), 1, &beta, y.data(), 1) ==
              CUBLAS_STATUS_SUCCESS);
        CHECK((y == std::vector<float>{-3, -3, -3}));  // 2 * (1-4, 2-5, 3-6) + 3
        std::vector<float> xt = {1, 0, 1}, yt = {0, 0};
        float one = 1, zero = 0;
        CHECK(cublasSgemv(handle, CUBLAS_OP_T, m, n, &one, A.data(), m, xt.data(), 1, &zero, yt.data(), 1) ==
              CUBLAS_STATUS_SUCCESS);
        CHECK((yt == std::vector<float>{4, 10}));
        std::vector<double> Ad = {1, 2, 3, 4, 5, 6}, xd = {1, -1}, yd = {1, 1, 1}, xdt = {1, 0, 1}, ydt = {0, 0};
        double alphad = 2, betad = 3, oned = 1, zerod = 0;
        CHECK(cublasDgemv(handle, CUBLAS_OP_N, m, n, &alphad, Ad.data(), m, xd.data(), 1, &betad, yd.data(), 1) ==
              CUBLAS_STATUS_SUCCESS);
        CHECK((yd == std::vector<double>{-3, -3, -3}));
        CHECK(cublasDgemv(handle, CUBLAS_OP_T, m, n, &oned, Ad.data(), m, xdt.data(), 1, &zerod, ydt.data(), 1) ==
              CUBLAS_STATUS_SUCCESS);
        CHECK((ydt == std::vector<double>{4, 10}));
        std::vector<float> u = {1, 2, 3, 4}, v = {10, 20, 30, 40};
        float a = 0.5f, result = 0;
        CHECK(cublasSaxpy(handle, 4, &a, u.data(), 1, v.data(), 1) == CUBLAS_STATUS_SUCCESS);
        CHECK((v == std::vector<float>{10.5f, 21, 31.5f, 42}));
        CHECK(cublasSdot(handle, 2, u.data(), 2, u.data(), 2, &result) == CUBLAS_STATUS_SUCCESS && result == 10);
        std::vector<float> w = {3, 4};
        CHECK(cublasSnrm2(handle, 2, w.data(), 1, &result) == CUBLAS_STATUS_SUCCESS && std::fabs(result - 5) < 1e-6);
        CHECK(cublasSscal(handle, 2, &a, w.data(), 1) == CUBLAS_STATUS_SUCCESS);
        CHECK((w == std::vector<float>{1.5f, 2}));
        // Device pointer mode: the scalars live in "device" memory, which is host memory here.
        float *scalars = nullptr;
        CHECK(cudaMalloc((void **)&scalars, 2 * sizeof(float)) == cudaSuccess);
        scalars[0] = 2;
        CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE) == CUBLAS_STATUS_SUCCESS);
        cublasPointerMode_t mode;
        CHECK(cublasGetPointerMode(handle, &mode) == CUBLAS_STATUS_SUCCESS && mode == CUBLAS_POINTER_MODE_DEVICE);
        CHECK(cublasSscal(handle, 2, scalars, w.data(), 1) == CUBLAS_STATUS_SUCCESS);
        CHECK(cublasSdot(handle, 2, w.data(), 1, w.data(), 1, scalars + 1) == CUBLAS_STATUS_SUCCESS);
        CHECK((w == std::vector<float>{3, 4}) && scalars[1] == 25);
        CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST) == CUBLAS_STATUS_SUCCESS);
        CHECK(cudaFree(scalars) == cudaSuccess);
    }

    // Modes, versions and statuses.
    {
        cublasMath_t math;
        CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH) == CUBLAS_STATUS_SUCCESS);
        CHECK(cublasGetMathMode(handle, &math) == CUBLAS_STATUS_SUCCESS && math == CUBLAS_TF32_TENSOR_OP_MATH);
        CHECK(cublasSetMathMode(handle, (cublasMath_t)9) == CUBLAS_STATUS_INVALID_VALUE);
        int version = 0;
        CHECK(cublasGetVersion(handle, &version) == CUBLAS_STATUS_SUCCESS && version >= 130000);
        CHECK(strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
        float f = 1;
        CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &f, &f, 3, &f, 4, &f, &f, 4) ==
              CUBLAS_STATUS_INVALID_VALUE);  // lda < m
        CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &f, &f, 4, &f, 4, &f, &f, 4) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(handle, (cublasOperation_t)7, CUBLAS_OP_N, 1, 1, 1, &f, &f, 1, &f, 1, &f, &f, 1) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &f, &f, 1, &f, 1, &f, &f, 1) ==
              CUBLAS_STATUS_NOT_INITIALIZED);
        CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &f, &f, CUDA_R_32F, 1, &f, CUDA_R_64F, 1, &f, &f,
                           CUDA_R_32F, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
    }

    // The handle's stream: the GEMM waits for a host function queued before it on that stream,
    // which fills A only once a helper thread opens its gate.
    {
        cudaStream_t stream, got = nullptr;
        CHECK(cudaStreamCreate(&stream) == cudaSuccess);
        CHECK(cublasSetStream(handle, stream) == CUBLAS_STATUS_SUCCESS);
        CHECK(cublasGetStream(handle, &got) == CUBLAS_STATUS_SUCCESS && got == stream);
        std::vector<float> A(4, 0), B = {1, 0, 0, 1}, C(4, -1);
        Gate gate;
        gate.target = A.data();
        CHECK(cudaLaunchHostFunc(stream, fill_when_open, &gate) == cudaSuccess);
        std::thread opener([&gate] {
            {
                std::lock_guard<std::mutex> guard(gate.mutex);
                gate.open = true;
            }
            gate.changed.notify_all();
        });
        float one = 1, zero = 0;
        CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A.data(), 2, B.data(), 2, &zero, C.data(),
                          2) == CUBLAS_STATUS_SUCCESS);
        opener.join();
        CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK((C == std::vector<float>{2, 2, 2, 2}));
        CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    }

    CHECK(cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
    printf("PASS\n");
    return 0;
}
