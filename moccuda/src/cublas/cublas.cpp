// MocCUDA's cuBLAS: the common subset of the v2 API, computed by OpenBLAS.
//
// cuBLAS and CBLAS in column-major order agree on every argument (sizes, leading dimensions,
// increments are 32-bit in both), so each call checks its arguments as cuBLAS does, waits for the
// handle's stream, and hands the operation to the matching scipy_cblas_* function of the
// scipy-openblas32 build of OpenBLAS.  Built apart from libmoccuda (moccuda/build.py: "cublas").
#include <cublas_v2.h>

#include <algorithm>
#include <new>

namespace {

// The CBLAS functions used, declared here so that only the library is needed to build.
enum Order { col_major = 102 };
enum Transpose { no_trans = 111, trans = 112, conj_trans = 113 };

}  // namespace

extern "C" {
void scipy_cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha, const float *A, int lda,
                       const float *B, int ldb, float beta, float *C, int ldc);
void scipy_cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha, const double *A,
                       int lda, const double *B, int ldb, double beta, double *C, int ldc);
void scipy_cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *A, int lda, const float *x,
                       int incx, float beta, float *y, int incy);
void scipy_cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *A, int lda, const double *x,
                       int incx, double beta, double *y, int incy);
void scipy_cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy);
float scipy_cblas_sdot(int n, const float *x, int incx, const float *y, int incy);
float scipy_cblas_snrm2(int n, const float *x, int incx);
void scipy_cblas_sscal(int n, float alpha, float *x, int incx);

// From the CUDA runtime the program uses (libmoccuda, linked statically or shared).  Weak, so
// that the library loads beside any runtime; without one there is no stream to wait for.
cudaError_t cudaStreamSynchronize(cudaStream_t stream) __attribute__((weak));
}

struct cublasContext {
    cudaStream_t stream = nullptr;
    cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
    cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
};

namespace {

constexpr int cublas_version = 130000;  // 13.0.0, the CUDA 13 cuBLAS

// Waits for the work issued to the handle's stream, so that the call runs in its order.
void enter(cublasHandle_t handle)
{
    if (cudaStreamSynchronize != nullptr)
        cudaStreamSynchronize(handle->stream);
}

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

int cblas_op(cublasOperation_t op)
{
    return op == CUBLAS_OP_N ? no_trans : op == CUBLAS_OP_T ? trans : conj_trans;
}

// cuBLAS's checks of a GEMM's arguments: known operations, no negative size, and leading
// dimensions at least the rows each operand has as stored.
cublasStatus_t check_gemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                          int k, int lda, int ldb, int ldc)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid_op(transa) || !valid_op(transb) || m < 0 || n < 0 || k < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    int rows_a = transa == CUBLAS_OP_N ? m : k;
    int rows_b = transb == CUBLAS_OP_N ? k : n;
    if (lda < std::max(1, rows_a) || ldb < std::max(1, rows_b) || ldc < std::max(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

template <typename T>
void gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, T alpha, const T *A, int lda,
          const T *B, int ldb, T beta, T *C, int ldc);

template <>
void gemm<float>(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    scipy_cblas_sgemm(col_major, cblas_op(transa), cblas_op(transb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void gemm<double>(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, double alpha,
                  const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    scipy_cblas_dgemm(col_major, cblas_op(transa), cblas_op(transb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <typename T>
cublasStatus_t gemm_batched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const T *alpha, const T *A, int lda, long long stride_a, const T *B, int ldb,
                            long long stride_b, const T *beta, T *C, int ldc, long long stride_c, int batches)
{
    cublasStatus_t status = check_gemm(handle, transa, transb, m, n, k, lda, ldb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS)
        return status;
    if (batches < 0 || alpha == nullptr || beta == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0 || batches == 0)
        return CUBLAS_STATUS_SUCCESS;
    enter(handle);
    for (int i = 0; i < batches; ++i)
        gemm<T>(transa, transb, m, n, k, *alpha, A + i * stride_a, lda, B + i * stride_b, ldb, *beta, C + i * stride_c,
                ldc);
    return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

// ---- handles ----

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    *handle = new (std::nothrow) cublasContext;
    return *handle != nullptr ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int *version)
{
    if (version == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = cublas_version;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *stream)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (stream == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;  // both read through the pointer: device memory is host memory
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

// Math modes are accepted and reported back; OpenBLAS computes in full precision under all.
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    unsigned int base = static_cast<unsigned int>(mode) & ~16u;
    if (base > CUBLAS_TF32_TENSOR_OP_MATH)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "license error";
    }
    return "unknown error";
}

// ---- level 3 ----

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                              const float *beta, float *C, int ldc)
{
    return gemm_batched<float>(handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const double *alpha, const double *A, int lda, const double *B, int ldb,
                              const double *beta, double *C, int ldc)
{
    return gemm_batched<double>(handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb, long long strideB,
                                         const float *beta, float *C, int ldc, long long strideC, int batchCount)
{
    return gemm_batched<float>(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
                               strideC, batchCount);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const double *alpha, const double *A, int lda,
                                         long long strideA, const double *B, int ldb, long long strideB,
                                         const double *beta, double *C, int ldc, long long strideC, int batchCount)
{
    return gemm_batched<double>(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C,
                                ldc, strideC, batchCount);
}

// Real single and double precision only: all three types the same and a compute type that
// computes in it (CUDA's older cudaDataType compute types are accepted too).
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (Atype != Btype || Atype != Ctype)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    int compute = static_cast<int>(computeType);
    if (Atype == CUDA_R_32F &&
        (compute == CUDA_R_32F || compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
         compute == CUBLAS_COMPUTE_32F_FAST_16F || compute == CUBLAS_COMPUTE_32F_FAST_16BF ||
         compute == CUBLAS_COMPUTE_32F_FAST_TF32))
        return cublasSgemm_v2(handle, transa, transb, m, n, k, static_cast<const float *>(alpha),
                              static_cast<const float *>(A), lda, static_cast<const float *>(B), ldb,
                              static_cast<const float *>(beta), static_cast<float *>(C), ldc);
    if (Atype == CUDA_R_64F &&
        (compute == CUDA_R_64F || compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC))
        return cublasDgemm_v2(handle, transa, transb, m, n, k, static_cast<const double *>(alpha),
                              static_cast<const double *>(A), lda, static_cast<const double *>(B), ldb,
                              static_cast<const double *>(beta), static_cast<double *>(C), ldc);
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

// ---- levels 1 and 2 ----

// y = alpha op(A) x + beta y with CBLAS's ?gemv (`cblas_gemv`), after cuBLAS's argument checks.
extern "C++" {  // a template, inside the extern "C" block of the API
template <typename T, typename CblasGemv>
static cublasStatus_t gemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T *alpha, const T *A,
                           int lda, const T *x, int incx, const T *beta, T *y, int incy, CblasGemv cblas_gemv)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid_op(trans) || m < 0 || n < 0 || lda < std::max(1, m) || incx == 0 || incy == 0 || alpha == nullptr ||
        beta == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    enter(handle);
    cblas_gemv(col_major, cblas_op(trans), m, n, *alpha, A, lda, x, incx, *beta, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}
}

cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float *alpha,
                              const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy)
{
    return gemv(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, scipy_cblas_sgemv);
}

cublasStatus_t cublasDgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const double *alpha,
                              const double *A, int lda, const double *x, int incx, const double *beta, double *y,
                              int incy)
{
    return gemv(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, scipy_cblas_dgemv);
}

cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float *alpha, const float *x, int incx, float *y,
                              int incy)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (alpha == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    enter(handle);
    scipy_cblas_saxpy(n, *alpha, x, incx, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float *x, int incx, const float *y, int incy,
                             float *result)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (result == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    enter(handle);
    *result = n <= 0 ? 0.0f : scipy_cblas_sdot(n, x, incx, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSnrm2_v2(cublasHandle_t handle, int n, const float *x, int incx, float *result)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (result == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    enter(handle);
    *result = n <= 0 || incx <= 0 ? 0.0f : scipy_cblas_snrm2(n, x, incx);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSscal_v2(cublasHandle_t handle, int n, const float *alpha, float *x, int incx)
{
    if (handle == nullptr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (alpha == nullptr)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0 || incx <= 0)
        return CUBLAS_STATUS_SUCCESS;
    enter(handle);
    scipy_cblas_sscal(n, *alpha, x, incx);
    return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
