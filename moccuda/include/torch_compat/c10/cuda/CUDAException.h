/* MocCUDA torch compat: c10's CUDA error checks, over MocCUDA's runtime.
 *
 * A failed CUDA call throws c10::Error (a RuntimeError in Python) whose message starts "CUDA
 * error: " and the runtime's error string, as PyTorch's does.
 */
#pragma once

#include <cuda_runtime_api.h>
#include <c10/util/Exception.h>

namespace c10 {
namespace cuda {

/* Throws for any status but cudaSuccess; clears the runtime's sticky last error as CUDA does
 * when the error is read. */
inline void moccuda_check(cudaError_t status, const char *file, int line)
{
    if (status == cudaSuccess)
        return;
    (void)cudaGetLastError();
    TORCH_CHECK(false, "CUDA error: ", cudaGetErrorString(status), " (", cudaGetErrorName(status), ") at ", file,
                ":", line);
}

}  // namespace cuda
}  // namespace c10

#define C10_CUDA_CHECK(EXPR) ::c10::cuda::moccuda_check((EXPR), __FILE__, __LINE__)
#define C10_CUDA_CHECK_WARN(EXPR)                                                      \
    do {                                                                               \
        cudaError_t moccuda_status_ = (EXPR);                                          \
        if (moccuda_status_ != cudaSuccess) {                                          \
            (void)cudaGetLastError();                                                  \
            TORCH_WARN("CUDA warning: ", cudaGetErrorString(moccuda_status_));         \
        }                                                                              \
    } while (0)
#define C10_CUDA_IGNORE_ERROR(EXPR)       \
    do {                                  \
        if ((EXPR) != cudaSuccess)        \
            (void)cudaGetLastError();     \
    } while (0)
#define C10_CUDA_CLEAR_ERROR() ((void)cudaGetLastError())
/* After a kernel launch: a bad configuration is recorded as the last error. */
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define C10_CUDA_ERROR_HANDLED(EXPR) (EXPR)
