// MocCUDA runtime: the last error, and the names and descriptions of error codes.
//
// As in CUDA, the last error belongs to the calling host thread: a failing call records it,
// cudaGetLastError returns and clears it, cudaPeekAtLastError only returns it.  A sticky error
// (a failing device assert) belongs to the whole context and is never cleared but by
// cudaDeviceReset.
#include "internal.h"

#include <atomic>
#include <cstdio>

namespace moccuda {
namespace runtime {

namespace {
thread_local cudaError_t last_error = cudaSuccess;
std::atomic<cudaError_t> sticky{cudaSuccess};
}

cudaError_t fail(cudaError_t status)
{
    if (status != cudaSuccess)
        last_error = status;
    return status;
}

KeepLastError::KeepLastError() : saved_(last_error) {}

KeepLastError::~KeepLastError() { last_error = saved_; }

cudaError_t sticky_error() { return sticky.load(std::memory_order_relaxed); }

void clear_sticky_error() { sticky.store(cudaSuccess); }

}  // namespace runtime
}  // namespace moccuda

// Every error code with its description.  The switches below have no default case, so the
// library is built with -Werror=switch to make a code missing here a build failure.
// The commonest descriptions are CUDA's own words, which programs and people search for.
#define MOCCUDA_ERRORS(X)                                                                            \
    X(cudaSuccess, "no error")                                                                      \
    X(cudaErrorInvalidValue, "invalid argument")                                                    \
    X(cudaErrorMemoryAllocation, "out of memory")                                                   \
    X(cudaErrorInitializationError, "initialization error")                                         \
    X(cudaErrorCudartUnloading, "driver shutting down")                                             \
    X(cudaErrorProfilerDisabled, "profiler disabled")                                               \
    X(cudaErrorProfilerNotInitialized, "profiler not initialized")                                  \
    X(cudaErrorProfilerAlreadyStarted, "profiler already started")                                  \
    X(cudaErrorProfilerAlreadyStopped, "profiler already stopped")                                  \
    X(cudaErrorInvalidConfiguration, "invalid configuration argument")                              \
    X(cudaErrorInvalidPitchValue, "invalid pitch argument")                                         \
    X(cudaErrorInvalidSymbol, "invalid device symbol")                                              \
    X(cudaErrorInvalidHostPointer, "invalid host pointer")                                          \
    X(cudaErrorInvalidDevicePointer, "invalid device pointer")                                      \
    X(cudaErrorInvalidTexture, "invalid texture reference")                                         \
    X(cudaErrorInvalidTextureBinding, "invalid texture binding")                                    \
    X(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor")                              \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")                         \
    X(cudaErrorAddressOfConstant, "address of a constant variable requested")                       \
    X(cudaErrorTextureFetchFailed, "texture fetch failed")                                          \
    X(cudaErrorTextureNotBound, "texture not bound")                                                \
    X(cudaErrorSynchronizationError, "synchronization error")                                       \
    X(cudaErrorInvalidFilterSetting, "invalid filter setting")                                      \
    X(cudaErrorInvalidNormSetting, "invalid normalization setting")                                 \
    X(cudaErrorMixedDeviceExecution, "mixed device execution")                                      \
    X(cudaErrorNotYetImplemented, "feature not yet implemented")                                    \
    X(cudaErrorMemoryValueTooLarge, "memory value too large")                                       \
    X(cudaErrorStubLibrary, "CUDA driver is a stub library")                                        \
    X(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version")  \
    X(cudaErrorCallRequiresNewerDriver, "call requires a newer driver")                             \
    X(cudaErrorInvalidSurface, "invalid surface reference")                                         \
    X(cudaErrorDuplicateVariableName, "duplicate variable name")                                    \
    X(cudaErrorDuplicateTextureName, "duplicate texture name")                                      \
    X(cudaErrorDuplicateSurfaceName, "duplicate surface name")                                      \
    X(cudaErrorDevicesUnavailable, "CUDA-capable device(s) is/are busy or unavailable")             \
    X(cudaErrorIncompatibleDriverContext, "incompatible driver context")                            \
    X(cudaErrorMissingConfiguration, "__global__ function call is not configured")                  \
    X(cudaErrorPriorLaunchFailure, "prior launch failure")                                          \
    X(cudaErrorLaunchMaxDepthExceeded, "maximum depth of nested launches exceeded")                 \
    X(cudaErrorLaunchFileScopedTex, "launch uses file-scoped textures")                             \
    X(cudaErrorLaunchFileScopedSurf, "launch uses file-scoped surfaces")                            \
    X(cudaErrorSyncDepthExceeded, "synchronization depth exceeded")                                 \
    X(cudaErrorLaunchPendingCountExceeded, "pending launch count exceeded")                         \
    X(cudaErrorInvalidDeviceFunction, "invalid device function")                                    \
    X(cudaErrorNoDevice, "no CUDA-capable device is detected")                                      \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                             \
    X(cudaErrorDeviceNotLicensed, "device not licensed")                                            \
    X(cudaErrorSoftwareValidityNotEstablished, "software validity not established")                 \
    X(cudaErrorStartupFailure, "startup failure in cuda runtime")                                   \
    X(cudaErrorInvalidKernelImage, "device kernel image is invalid")                                \
    X(cudaErrorDeviceUninitialized, "invalid device context")                                       \
    X(cudaErrorMapBufferObjectFailed, "mapping of buffer object failed")                            \
    X(cudaErrorUnmapBufferObjectFailed, "unmapping of buffer object failed")                        \
    X(cudaErrorArrayIsMapped, "array is mapped")                                                    \
    X(cudaErrorAlreadyMapped, "resource already mapped")                                            \
    X(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device")  \
    X(cudaErrorAlreadyAcquired, "resource already acquired")                                        \
    X(cudaErrorNotMapped, "resource not mapped")                                                    \
    X(cudaErrorNotMappedAsArray, "resource not mapped as array")                                    \
    X(cudaErrorNotMappedAsPointer, "resource not mapped as pointer")                                \
    X(cudaErrorECCUncorrectable, "uncorrectable ECC error encountered")                             \
    X(cudaErrorUnsupportedLimit, "limit is not supported on this architecture")                     \
    X(cudaErrorDeviceAlreadyInUse, "device already in use")                                         \
    X(cudaErrorPeerAccessUnsupported, "peer access is not supported between these two devices")    \
    X(cudaErrorInvalidPtx, "PTX JIT compilation failed")                                            \
    X(cudaErrorInvalidGraphicsContext, "invalid graphics context")                                  \
    X(cudaErrorNvlinkUncorrectable, "uncorrectable NVLink error")                                   \
    X(cudaErrorJitCompilerNotFound, "PTX JIT compiler not found")                                   \
    X(cudaErrorUnsupportedPtxVersion, "unsupported PTX version")                                    \
    X(cudaErrorJitCompilationDisabled, "PTX JIT compilation disabled")                              \
    X(cudaErrorUnsupportedExecAffinity, "unsupported execution affinity")                           \
    X(cudaErrorUnsupportedDevSideSync, "device-side synchronization not supported")                 \
    X(cudaErrorContained, "contained error")                                                        \
    X(cudaErrorInvalidSource, "invalid source")                                                     \
    X(cudaErrorFileNotFound, "file not found")                                                      \
    X(cudaErrorSharedObjectSymbolNotFound, "shared object symbol not found")                        \
    X(cudaErrorSharedObjectInitFailed, "shared object initialization failed")                       \
    X(cudaErrorOperatingSystem, "OS call failed or operation not supported on this OS")             \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")                                    \
    X(cudaErrorIllegalState, "operation not valid in the current state")                            \
    X(cudaErrorLossyQuery, "lossy query")                                                           \
    X(cudaErrorSymbolNotFound, "named symbol not found")                                            \
    X(cudaErrorNotReady, "device not ready")                                                        \
    X(cudaErrorIllegalAddress, "an illegal memory access was encountered")                          \
    X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")                     \
    X(cudaErrorLaunchTimeout, "the launch timed out and was terminated")                            \
    X(cudaErrorLaunchIncompatibleTexturing, "launch uses incompatible texturing mode")              \
    X(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled")                          \
    X(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled")                            \
    X(cudaErrorSetOnActiveProcess, "cannot set while device is active in this process")             \
    X(cudaErrorContextIsDestroyed, "context is destroyed")                                          \
    X(cudaErrorAssert, "device-side assert triggered")                                              \
    X(cudaErrorTooManyPeers, "too many peers")                                                      \
    X(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped") \
    X(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region") \
    X(cudaErrorHardwareStackError, "hardware stack error")                                          \
    X(cudaErrorIllegalInstruction, "an illegal instruction was encountered")                        \
    X(cudaErrorMisalignedAddress, "misaligned address")                                             \
    X(cudaErrorInvalidAddressSpace, "invalid address space")                                        \
    X(cudaErrorInvalidPc, "invalid program counter")                                                \
    X(cudaErrorLaunchFailure, "unspecified launch failure")                                         \
    X(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch")                  \
    X(cudaErrorTensorMemoryLeak, "tensor memory leak")                                              \
    X(cudaErrorNotPermitted, "operation not permitted")                                             \
    X(cudaErrorNotSupported, "operation not supported")                                             \
    X(cudaErrorSystemNotReady, "system not yet initialized")                                        \
    X(cudaErrorSystemDriverMismatch, "system driver mismatch")                                      \
    X(cudaErrorCompatNotSupportedOnDevice, "forward compatibility not supported on this device")    \
    X(cudaErrorMpsConnectionFailed, "MPS connection failed")                                        \
    X(cudaErrorMpsRpcFailure, "MPS remote procedure call failed")                                   \
    X(cudaErrorMpsServerNotReady, "MPS server not ready")                                           \
    X(cudaErrorMpsMaxClientsReached, "MPS client limit reached")                                    \
    X(cudaErrorMpsMaxConnectionsReached, "MPS connection limit reached")                            \
    X(cudaErrorMpsClientTerminated, "MPS client terminated")                                        \
    X(cudaErrorCdpNotSupported, "dynamic parallelism not supported")                                \
    X(cudaErrorCdpVersionMismatch, "dynamic parallelism version mismatch")                          \
    X(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing")        \
    X(cudaErrorStreamCaptureInvalidated, "stream capture invalidated")                              \
    X(cudaErrorStreamCaptureMerge, "stream capture merge")                                          \
    X(cudaErrorStreamCaptureUnmatched, "stream capture unmatched")                                  \
    X(cudaErrorStreamCaptureUnjoined, "stream capture unjoined")                                    \
    X(cudaErrorStreamCaptureIsolation, "stream capture isolation")                                  \
    X(cudaErrorStreamCaptureImplicit, "implicit stream capture")                                    \
    X(cudaErrorCapturedEvent, "operation not permitted on a captured event")                        \
    X(cudaErrorStreamCaptureWrongThread, "stream capture ended by the wrong thread")                \
    X(cudaErrorTimeout, "wait operation timed out")                                                 \
    X(cudaErrorGraphExecUpdateFailure, "graph update failed")                                       \
    X(cudaErrorExternalDevice, "error in an external device")                                       \
    X(cudaErrorInvalidClusterSize, "invalid cluster size")                                          \
    X(cudaErrorFunctionNotLoaded, "function not loaded")                                            \
    X(cudaErrorInvalidResourceType, "invalid resource type")                                        \
    X(cudaErrorInvalidResourceConfiguration, "invalid resource configuration")                      \
    X(cudaErrorUnknown, "unknown error")                                                            \
    X(cudaErrorApiFailureBase, "API failure")

namespace {
const char *const unrecognized = "unrecognized error code";
}

extern "C" {

cudaError_t cudaGetLastError(void)
{
    if (cudaError_t sticky = moccuda::runtime::sticky_error())
        return sticky;
    cudaError_t status = moccuda::runtime::last_error;
    moccuda::runtime::last_error = cudaSuccess;
    return status;
}

cudaError_t cudaPeekAtLastError(void)
{
    if (cudaError_t sticky = moccuda::runtime::sticky_error())
        return sticky;
    return moccuda::runtime::last_error;
}

void moccuda_device_assert(const char *expression, const char *file, unsigned line, const char *function,
                           uint3 block, uint3 thread)
{
    // CUDA's words, so that what programs and people search for is found.
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, function,
            block.x, block.y, block.z, thread.x, thread.y, thread.z, expression);
    cudaError_t none = cudaSuccess;
    moccuda::runtime::sticky.compare_exchange_strong(none, cudaErrorAssert);
}

int moccuda_kernel_trapped(void) { return moccuda::runtime::sticky_error() != cudaSuccess; }

cudaError_t moccuda_set_error(cudaError_t error) { return moccuda::runtime::fail(error); }

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define MOCCUDA_NAME(code, text) \
    case code:                   \
        return #code;
        MOCCUDA_ERRORS(MOCCUDA_NAME)
#undef MOCCUDA_NAME
    }
    return unrecognized;
}

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
#define MOCCUDA_TEXT(code, text) \
    case code:                   \
        return text;
        MOCCUDA_ERRORS(MOCCUDA_TEXT)
#undef MOCCUDA_TEXT
    }
    return unrecognized;
}

}  // extern "C"
