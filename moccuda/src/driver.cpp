// MocCUDA runtime: the common part of CUDA's driver API (cuda.h), over the runtime.
//
// One device, the runtime's.  A context is a handle of that device; contexts share its memory, its
// streams and its settings, so switching contexts changes nothing but what cuCtxGetCurrent answers.
// The primary context (cuDevicePrimaryCtxRetain) is one handle, current where no other was made
// current, as the runtime's calls make it current in CUDA.  The driver's calls leave the runtime's
// last error alone (KeepLastError).
#include "internal.h"

#include <cuda.h>

#include <cstring>
#include <mutex>
#include <set>
#include <vector>

struct CUctx_st {
    CUdevice device;
};

namespace moccuda {
namespace runtime {
namespace {

CUctx_st primary_context{0};

std::mutex contexts_mutex;
std::set<CUcontext> created_contexts;  // by cuCtxCreate, until cuCtxDestroy

// Each host thread's context stack, the current context last; empty: the primary context.
thread_local std::vector<CUcontext> context_stack;

bool valid_context(CUcontext context)
{
    if (context == &primary_context)
        return true;
    std::lock_guard<std::mutex> guard(contexts_mutex);
    return created_contexts.count(context) != 0;
}

// A runtime result as the driver's: the codes of the same meaning share their numbers (below 100
// and from 100 on, as CUDA numbers them) where both APIs have them.
CUresult driver_result(cudaError_t status)
{
    switch (status) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInitializationError: return CUDA_ERROR_NOT_INITIALIZED;
    case cudaErrorInvalidDevice: return CUDA_ERROR_INVALID_DEVICE;
    case cudaErrorAssert: return CUDA_ERROR_ASSERT;
    case cudaErrorLaunchFailure: return CUDA_ERROR_LAUNCH_FAILED;
    case cudaErrorNotReady: return CUDA_ERROR_NOT_READY;
    case cudaErrorInvalidResourceHandle: return CUDA_ERROR_INVALID_HANDLE;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

// Every result code with its name and CUDA's description.
struct ResultText {
    CUresult code;
    const char *name;
    const char *description;
};

#define MOCCUDA_RESULT(code, text) {code, #code, text}
const ResultText result_texts[] = {
    MOCCUDA_RESULT(CUDA_SUCCESS, "no error"),
    MOCCUDA_RESULT(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    MOCCUDA_RESULT(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    MOCCUDA_RESULT(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    MOCCUDA_RESULT(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    MOCCUDA_RESULT(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled while using external profiling tool"),
    MOCCUDA_RESULT(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    MOCCUDA_RESULT(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    MOCCUDA_RESULT(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    MOCCUDA_RESULT(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    MOCCUDA_RESULT(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"),
    MOCCUDA_RESULT(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid"),
    MOCCUDA_RESULT(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
    MOCCUDA_RESULT(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    MOCCUDA_RESULT(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    MOCCUDA_RESULT(CUDA_ERROR_NOT_READY, "device not ready"),
    MOCCUDA_RESULT(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    MOCCUDA_RESULT(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
    MOCCUDA_RESULT(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"),
    MOCCUDA_RESULT(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
    MOCCUDA_RESULT(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    MOCCUDA_RESULT(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "cannot set while device is active in this process"),
    MOCCUDA_RESULT(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    MOCCUDA_RESULT(CUDA_ERROR_ASSERT, "device-side assert triggered"),
    MOCCUDA_RESULT(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
    MOCCUDA_RESULT(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    MOCCUDA_RESULT(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    MOCCUDA_RESULT(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef MOCCUDA_RESULT

const ResultText *result_text(CUresult code)
{
    for (const ResultText &text : result_texts)
        if (text.code == code)
            return &text;
    return nullptr;
}

void *address(CUdeviceptr pointer) { return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)); }

}  // namespace
}  // namespace runtime
}  // namespace moccuda

using moccuda::runtime::driver_result;
using moccuda::runtime::KeepLastError;

extern "C" {

CUresult cuInit(unsigned int flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

CUresult cuDriverGetVersion(int *driver_version)
{
    if (driver_version == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    *driver_version = moccuda::runtime::runtime_version;
    return CUDA_SUCCESS;
}

// Unknown codes: CUDA_ERROR_INVALID_VALUE and a null string, as CUDA answers.
CUresult cuGetErrorName(CUresult error, const char **name)
{
    if (name == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    const moccuda::runtime::ResultText *text = moccuda::runtime::result_text(error);
    *name = text ? text->name : nullptr;
    return text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **description)
{
    if (description == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    const moccuda::runtime::ResultText *text = moccuda::runtime::result_text(error);
    *description = text ? text->description : nullptr;
    return text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// ---- the device ----

CUresult cuDeviceGetCount(int *count)
{
    KeepLastError keep;
    return driver_result(cudaGetDeviceCount(count));
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    if (device == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int length, CUdevice device)
{
    if (name == nullptr || length <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    KeepLastError keep;
    cudaDeviceProp properties;
    if (cudaError_t status = cudaGetDeviceProperties(&properties, device))
        return driver_result(status);
    strncpy(name, properties.name, (size_t)length - 1);
    name[length - 1] = '\0';
    return CUDA_SUCCESS;
}

// The attributes have the runtime's numbers (cudaDevAttr*), as in CUDA.
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device)
{
    KeepLastError keep;
    return driver_result(cudaDeviceGetAttribute(value, static_cast<cudaDeviceAttr>(attribute), device));
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device)
{
    if (bytes == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    if (device != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = moccuda::runtime::total_global_memory;
    return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice device)
{
    if (major == nullptr || minor == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    KeepLastError keep;
    if (cudaError_t status = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, device))
        return driver_result(status);
    return driver_result(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, device));
}

// ---- contexts ----

CUresult cuCtxCreate(CUcontext *context, CUctxCreateParams *parameters, unsigned int flags, CUdevice device)
{
    using namespace moccuda::runtime;
    if (context == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    if (parameters != nullptr && (parameters->numExecAffinityParams != 0 || parameters->cigParams != nullptr))
        return CUDA_ERROR_NOT_SUPPORTED;
    unsigned int schedule = flags & CU_CTX_SCHED_MASK;
    if ((flags & ~CU_CTX_FLAGS_MASK) || !(schedule == 0 || schedule == 1 || schedule == 2 || schedule == 4))
        return CUDA_ERROR_INVALID_VALUE;
    if (device != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    CUcontext made = new CUctx_st{device};
    {
        std::lock_guard<std::mutex> guard(contexts_mutex);
        created_contexts.insert(made);
    }
    context_stack.push_back(made);  // current for the calling thread
    *context = made;
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext context)
{
    using namespace moccuda::runtime;
    {
        std::lock_guard<std::mutex> guard(contexts_mutex);
        if (created_contexts.erase(context) == 0)
            return CUDA_ERROR_INVALID_CONTEXT;
    }
    // Off this thread's stack; another thread's stack keeps the handle, which then fails as invalid.
    if (!context_stack.empty() && context_stack.back() == context)
        context_stack.pop_back();
    KeepLastError keep;
    cudaDeviceSynchronize();  // CUDA waits for the context's work before destroying it
    delete context;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *context)
{
    using namespace moccuda::runtime;
    if (context == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    *context = context_stack.empty() ? &primary_context : context_stack.back();
    return CUDA_SUCCESS;
}

// Replaces the current context (the top of the stack); a null context leaves none pushed.
CUresult cuCtxSetCurrent(CUcontext context)
{
    using namespace moccuda::runtime;
    if (context != nullptr && !valid_context(context))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!context_stack.empty())
        context_stack.pop_back();
    if (context != nullptr)
        context_stack.push_back(context);
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext context)
{
    using namespace moccuda::runtime;
    if (!valid_context(context))
        return CUDA_ERROR_INVALID_CONTEXT;
    context_stack.push_back(context);
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *context)
{
    using namespace moccuda::runtime;
    if (context_stack.empty())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (context != nullptr)
        *context = context_stack.back();
    context_stack.pop_back();
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device)
{
    if (device == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    KeepLastError keep;
    return driver_result(cudaDeviceSynchronize());
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device)
{
    if (context == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    if (device != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *context = &moccuda::runtime::primary_context;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice device) { return device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

// ---- memory ----

CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes)
{
    if (pointer == nullptr || bytes == 0)  // CUDA refuses an empty allocation here
        return CUDA_ERROR_INVALID_VALUE;
    KeepLastError keep;
    void *allocated = nullptr;
    if (cudaError_t status = cudaMalloc(&allocated, bytes))
        return driver_result(status);
    *pointer = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(allocated));
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr pointer)
{
    KeepLastError keep;
    return driver_result(cudaFree(moccuda::runtime::address(pointer)));
}

CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    KeepLastError keep;
    return driver_result(cudaMemGetInfo(free_bytes, total_bytes));
}

CUresult cuMemcpyHtoD(CUdeviceptr destination, const void *source, size_t bytes)
{
    KeepLastError keep;
    return driver_result(cudaMemcpy(moccuda::runtime::address(destination), source, bytes, cudaMemcpyHostToDevice));
}

CUresult cuMemcpyDtoH(void *destination, CUdeviceptr source, size_t bytes)
{
    KeepLastError keep;
    return driver_result(cudaMemcpy(destination, moccuda::runtime::address(source), bytes, cudaMemcpyDeviceToHost));
}

CUresult cuMemcpyDtoD(CUdeviceptr destination, CUdeviceptr source, size_t bytes)
{
    KeepLastError keep;
    return driver_result(cudaMemcpy(moccuda::runtime::address(destination), moccuda::runtime::address(source), bytes,
                                    cudaMemcpyDeviceToDevice));
}

CUresult cuMemsetD8(CUdeviceptr destination, unsigned char value, size_t count)
{
    KeepLastError keep;
    return driver_result(cudaMemset(moccuda::runtime::address(destination), value, count));
}

CUresult cuMemsetD32(CUdeviceptr destination, unsigned int value, size_t count)
{
    if (count == 0)
        return CUDA_SUCCESS;
    if (destination == 0 || destination % 4 != 0)  // CUDA asks for 4-byte alignment
        return CUDA_ERROR_INVALID_VALUE;
    KeepLastError keep;
    if (cudaError_t status = moccuda::runtime::wait_for_stream(nullptr))  // the legacy default stream's order
        return driver_result(status);
    unsigned int *words = static_cast<unsigned int *>(moccuda::runtime::address(destination));
    for (size_t i = 0; i < count; i++)
        words[i] = value;
    return CUDA_SUCCESS;
}

}  // extern "C"
