// MocCUDA runtime: the device, its properties and settings, and kernel launch checks.
//
// There is one device (ordinal 0).  It reports the properties of a Tesla V100-SXM2-16GB
// (compute capability 7.0, 80 multiprocessors, 16 GB), because programs size their grids and
// shared memory from them and these are what such a program was most likely tuned for.  Its
// name says it is MocCUDA.  Settings a GPU would act on (cache preferences, limits, flags) are
// validated and remembered, and change nothing.
#include <cstdio>
#include "internal.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace moccuda {
namespace runtime {
namespace {

thread_local int current_device = 0;  // per host thread, as in CUDA

std::mutex mutex;
unsigned int device_flags = cudaDeviceScheduleAuto;
cudaFuncCache cache_config = cudaFuncCachePreferNone;
cudaSharedMemConfig shared_mem_config = cudaSharedMemBankSizeFourByte;
size_t limits[] = {
    1024,         // cudaLimitStackSize
    1048576,      // cudaLimitPrintfFifoSize
    8388608,      // cudaLimitMallocHeapSize
    2,            // cudaLimitDevRuntimeSyncDepth
    2048,         // cudaLimitDevRuntimePendingLaunchCount
    64,           // cudaLimitMaxL2FetchGranularity
    0,            // cudaLimitPersistingL2CacheSize
};
// Dynamic shared memory limits raised per kernel with cudaFuncSetAttribute, and the largest.
std::unordered_map<const void *, size_t> kernel_shared_limits;
size_t largest_shared_limit = shared_memory_per_block;

bool valid_device(int device) { return device == 0; }

void fill_properties(cudaDeviceProp *p)
{
    memset(p, 0, sizeof *p);
    strncpy(p->name, "MocCUDA (Tesla V100-SXM2-16GB on the CPU)", sizeof p->name - 1);
    memcpy(p->uuid.bytes, "MocCUDA-device-0", sizeof p->uuid.bytes);
    p->totalGlobalMem = total_global_memory;
    p->sharedMemPerBlock = shared_memory_per_block;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 7;
    p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 80;
    p->integrated = 0;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072;
    p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768;
    p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072;
    p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768;
    p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192;
    p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768;
    p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768;
    p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072;
    p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = 16384;
    p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768;
    p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768;
    p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->asyncEngineCount = 6;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 4096;
    p->l2CacheSize = 6291456;
    // Stream access policy windows are accepted (as hints without effect), so a persisting part of
    // L2 is reported as a GPU of this size has one: three quarters of it, windows up to 128 MiB.
    p->persistingL2CacheMaxSize = 4718592;
    p->accessPolicyMaxWindowSize = 134213632;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 98304;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->pageableMemoryAccess = 0;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = shared_memory_per_block_optin;
    p->maxBlocksPerMultiProcessor = 32;
    p->hostRegisterSupported = 1;
    p->memoryPoolsSupported = 1;
    p->deviceNumaId = -1;
    p->hostNumaId = -1;
    // The fields CUDA 13 dropped (kept in the reserved tail, see driver_types.h).
    p->clockRate = MOCCUDA_CLOCK_RATE_KHZ;  // kHz, the rate clock() and clock64() count at
    p->deviceOverlap = 1;
    p->kernelExecTimeoutEnabled = 0;
    p->computeMode = cudaComputeModeDefault;
    p->maxTexture1DLinear = 268435456;
    p->memoryClockRate = 877000;  // kHz
    p->singleToDoublePrecisionPerfRatio = 2;
    p->cooperativeMultiDeviceLaunch = 1;
}

// CUDA 12's cudaDeviceProp, for cudaGetDeviceProperties_v2: CUDA 12 programs call that symbol
// with this layout.  Only the fields up to unifiedFunctionPointers are written: every 12.x
// release has them at these offsets, while the tail varies between releases.
struct DevicePropCuda12 {
    char name[256];
    cudaUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture1DLinear;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    int cooperativeMultiDeviceLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseCudaArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
};

void fill_properties_cuda12(DevicePropCuda12 *out)
{
    cudaDeviceProp p;
    fill_properties(&p);
    DevicePropCuda12 q;
    memset(&q, 0, sizeof q);
#define MOCCUDA_COPY(field) memcpy(&q.field, &p.field, sizeof q.field);
    MOCCUDA_COPY(name) MOCCUDA_COPY(uuid) MOCCUDA_COPY(luid) MOCCUDA_COPY(luidDeviceNodeMask)
    MOCCUDA_COPY(totalGlobalMem) MOCCUDA_COPY(sharedMemPerBlock) MOCCUDA_COPY(regsPerBlock) MOCCUDA_COPY(warpSize)
    MOCCUDA_COPY(memPitch) MOCCUDA_COPY(maxThreadsPerBlock) MOCCUDA_COPY(maxThreadsDim) MOCCUDA_COPY(maxGridSize)
    MOCCUDA_COPY(clockRate) MOCCUDA_COPY(totalConstMem) MOCCUDA_COPY(major) MOCCUDA_COPY(minor)
    MOCCUDA_COPY(textureAlignment) MOCCUDA_COPY(texturePitchAlignment) MOCCUDA_COPY(deviceOverlap)
    MOCCUDA_COPY(multiProcessorCount) MOCCUDA_COPY(kernelExecTimeoutEnabled) MOCCUDA_COPY(integrated)
    MOCCUDA_COPY(canMapHostMemory) MOCCUDA_COPY(computeMode) MOCCUDA_COPY(maxTexture1D)
    MOCCUDA_COPY(maxTexture1DMipmap) MOCCUDA_COPY(maxTexture1DLinear) MOCCUDA_COPY(maxTexture2D)
    MOCCUDA_COPY(maxTexture2DMipmap) MOCCUDA_COPY(maxTexture2DLinear) MOCCUDA_COPY(maxTexture2DGather)
    MOCCUDA_COPY(maxTexture3D) MOCCUDA_COPY(maxTexture3DAlt) MOCCUDA_COPY(maxTextureCubemap)
    MOCCUDA_COPY(maxTexture1DLayered) MOCCUDA_COPY(maxTexture2DLayered) MOCCUDA_COPY(maxTextureCubemapLayered)
    MOCCUDA_COPY(maxSurface1D) MOCCUDA_COPY(maxSurface2D) MOCCUDA_COPY(maxSurface3D)
    MOCCUDA_COPY(maxSurface1DLayered) MOCCUDA_COPY(maxSurface2DLayered) MOCCUDA_COPY(maxSurfaceCubemap)
    MOCCUDA_COPY(maxSurfaceCubemapLayered) MOCCUDA_COPY(surfaceAlignment) MOCCUDA_COPY(concurrentKernels)
    MOCCUDA_COPY(ECCEnabled) MOCCUDA_COPY(pciBusID) MOCCUDA_COPY(pciDeviceID) MOCCUDA_COPY(pciDomainID)
    MOCCUDA_COPY(tccDriver) MOCCUDA_COPY(asyncEngineCount) MOCCUDA_COPY(unifiedAddressing)
    MOCCUDA_COPY(memoryClockRate) MOCCUDA_COPY(memoryBusWidth) MOCCUDA_COPY(l2CacheSize)
    MOCCUDA_COPY(persistingL2CacheMaxSize) MOCCUDA_COPY(maxThreadsPerMultiProcessor)
    MOCCUDA_COPY(streamPrioritiesSupported) MOCCUDA_COPY(globalL1CacheSupported)
    MOCCUDA_COPY(localL1CacheSupported) MOCCUDA_COPY(sharedMemPerMultiprocessor)
    MOCCUDA_COPY(regsPerMultiprocessor) MOCCUDA_COPY(managedMemory) MOCCUDA_COPY(isMultiGpuBoard)
    MOCCUDA_COPY(multiGpuBoardGroupID) MOCCUDA_COPY(hostNativeAtomicSupported)
    MOCCUDA_COPY(singleToDoublePrecisionPerfRatio) MOCCUDA_COPY(pageableMemoryAccess)
    MOCCUDA_COPY(concurrentManagedAccess) MOCCUDA_COPY(computePreemptionSupported)
    MOCCUDA_COPY(canUseHostPointerForRegisteredMem) MOCCUDA_COPY(cooperativeLaunch)
    MOCCUDA_COPY(cooperativeMultiDeviceLaunch) MOCCUDA_COPY(sharedMemPerBlockOptin)
    MOCCUDA_COPY(pageableMemoryAccessUsesHostPageTables) MOCCUDA_COPY(directManagedMemAccessFromHost)
    MOCCUDA_COPY(maxBlocksPerMultiProcessor) MOCCUDA_COPY(accessPolicyMaxWindowSize)
    MOCCUDA_COPY(reservedSharedMemPerBlock) MOCCUDA_COPY(hostRegisterSupported)
    MOCCUDA_COPY(sparseCudaArraySupported) MOCCUDA_COPY(hostRegisterReadOnlySupported)
    MOCCUDA_COPY(timelineSemaphoreInteropSupported) MOCCUDA_COPY(memoryPoolsSupported)
    MOCCUDA_COPY(gpuDirectRDMASupported) MOCCUDA_COPY(gpuDirectRDMAFlushWritesOptions)
    MOCCUDA_COPY(gpuDirectRDMAWritesOrdering) MOCCUDA_COPY(memoryPoolSupportedHandleTypes)
    MOCCUDA_COPY(deferredMappingCudaArraySupported) MOCCUDA_COPY(ipcEventSupported)
    MOCCUDA_COPY(clusterLaunch) MOCCUDA_COPY(unifiedFunctionPointers)
#undef MOCCUDA_COPY
    memcpy(out, &q, sizeof q);
}

}  // namespace
}  // namespace runtime
}  // namespace moccuda

using moccuda::runtime::fail;
using moccuda::runtime::valid_device;

extern "C" {

// Not declared in the headers: what CUDA 12's headers turn cudaGetDeviceProperties into.
cudaError_t cudaGetDeviceProperties_v2(void *prop, int device);

// ---- device selection and properties ----

cudaError_t cudaGetDeviceCount(int *count)
{
    if (count == nullptr)
        return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (!valid_device(device))
        return fail(cudaErrorInvalidDevice);
    moccuda::runtime::current_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (device == nullptr)
        return fail(cudaErrorInvalidValue);
    *device = moccuda::runtime::current_device;
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int)
{
    return valid_device(device) ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop)
{
    if (device == nullptr || prop == nullptr)
        return fail(cudaErrorInvalidValue);
    *device = 0;  // the only one
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
    if (prop == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!valid_device(device))
        return fail(cudaErrorInvalidDevice);
    moccuda::runtime::fill_properties(prop);
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties_v2(void *prop, int device)
{
    if (prop == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!valid_device(device))
        return fail(cudaErrorInvalidDevice);
    moccuda::runtime::fill_properties_cuda12(static_cast<moccuda::runtime::DevicePropCuda12 *>(prop));
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    if (value == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!valid_device(device))
        return fail(cudaErrorInvalidDevice);
    cudaDeviceProp p;
    moccuda::runtime::fill_properties(&p);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxPitch: *value = (int)p.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrTextureAlignment: *value = (int)p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: *value = p.deviceOverlap; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = p.computeMode; break;
    case cudaDevAttrMaxTexture1DWidth: *value = p.maxTexture1D; break;
    case cudaDevAttrMaxTexture2DWidth: *value = p.maxTexture2D[0]; break;
    case cudaDevAttrMaxTexture2DHeight: *value = p.maxTexture2D[1]; break;
    case cudaDevAttrMaxTexture3DWidth: *value = p.maxTexture3D[0]; break;
    case cudaDevAttrMaxTexture3DHeight: *value = p.maxTexture3D[1]; break;
    case cudaDevAttrMaxTexture3DDepth: *value = p.maxTexture3D[2]; break;
    case cudaDevAttrSurfaceAlignment: *value = (int)p.surfaceAlignment; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrTccDriver: *value = p.tccDriver; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrPciDomainId: *value = p.pciDomainID; break;
    case cudaDevAttrTexturePitchAlignment: *value = (int)p.texturePitchAlignment; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
    case cudaDevAttrMultiGpuBoardGroupID: *value = p.multiGpuBoardGroupID; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = p.singleToDoublePrecisionPerfRatio; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = p.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: *value = 0; break;
    case cudaDevAttrHostRegisterSupported: *value = p.hostRegisterSupported; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *value = p.pageableMemoryAccessUsesHostPageTables; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)p.reservedSharedMemPerBlock; break;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (version == nullptr)
        return fail(cudaErrorInvalidValue);
    *version = moccuda::runtime::runtime_version;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
    if (version == nullptr)
        return fail(cudaErrorInvalidValue);
    *version = moccuda::runtime::runtime_version;
    return cudaSuccess;
}

// ---- device-wide state ----

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    using namespace moccuda::runtime;
    // One scheduling choice at most, plus the two other flags.
    unsigned int schedule = flags & cudaDeviceScheduleMask;
    bool one_schedule = schedule == 0 || schedule == 1 || schedule == 2 || schedule == 4;
    if (!one_schedule || (flags & ~(cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax)))
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    device_flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    using namespace moccuda::runtime;
    if (flags == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    *flags = device_flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    moccuda::runtime::synchronize_all();
    return moccuda::runtime::fail(moccuda::runtime::sticky_error());
}
cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

cudaError_t cudaDeviceReset(void)
{
    using namespace moccuda::runtime;
    release_all_memory();
    release_all_streams_and_events();
    clear_sticky_error();
    std::lock_guard<std::mutex> guard(mutex);
    device_flags = cudaDeviceScheduleAuto;
    cache_config = cudaFuncCachePreferNone;
    shared_mem_config = cudaSharedMemBankSizeFourByte;
    kernel_shared_limits.clear();
    largest_shared_limit = shared_memory_per_block;
    return cudaSuccess;
}

cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config)
{
    using namespace moccuda::runtime;
    if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    cache_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config)
{
    using namespace moccuda::runtime;
    if (config == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    *config = cache_config;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config)
{
    using namespace moccuda::runtime;
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    shared_mem_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *config)
{
    using namespace moccuda::runtime;
    if (config == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    *config = shared_mem_config;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value)
{
    using namespace moccuda::runtime;
    if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
        return fail(cudaErrorUnsupportedLimit);
    std::lock_guard<std::mutex> guard(mutex);
    limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit)
{
    using namespace moccuda::runtime;
    if (value == nullptr)
        return fail(cudaErrorInvalidValue);
    if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
        return fail(cudaErrorUnsupportedLimit);
    std::lock_guard<std::mutex> guard(mutex);
    *value = limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer_device)
{
    if (can_access == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!valid_device(device) || !valid_device(peer_device))
        return fail(cudaErrorInvalidDevice);
    *can_access = 0;  // a device is not its own peer
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int)
{
    return fail(cudaErrorInvalidDevice);  // the only device cannot be a peer of itself
}

// ---- kernels ----

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config)
{
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction);
    if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual)
        return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig config)
{
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction);
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value)
{
    using namespace moccuda::runtime;
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction);
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
        if (value < 0 || (size_t)value > shared_memory_per_block_optin)
            return fail(cudaErrorInvalidValue);
        std::lock_guard<std::mutex> guard(mutex);
        size_t limit = (size_t)value > shared_memory_per_block ? (size_t)value : shared_memory_per_block;
        kernel_shared_limits[func] = limit;
        if (limit > largest_shared_limit)
            largest_shared_limit = limit;
        return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        return value >= -1 && value <= 100 ? cudaSuccess : fail(cudaErrorInvalidValue);
    case cudaFuncAttributeClusterDimMustBeSet:
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        return fail(cudaErrorNotSupported);  // clusters need compute capability 9.0
    case cudaFuncAttributeMax:
        break;
    }
    return fail(cudaErrorInvalidValue);
}

// Plausible answers for any kernel: no static shared, constant or local memory is known here
// (a translated kernel keeps them in host memory), 32 registers, compute capability 7.0, and the
// dynamic shared memory limit raised for it with cudaFuncSetAttribute.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attributes, const void *func)
{
    using namespace moccuda::runtime;
    if (attributes == nullptr)
        return fail(cudaErrorInvalidValue);
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction);
    memset(attributes, 0, sizeof *attributes);
    attributes->maxThreadsPerBlock = 1024;
    attributes->numRegs = 32;
    attributes->ptxVersion = 70;
    attributes->binaryVersion = 70;
    attributes->preferredShmemCarveout = -1;
    std::lock_guard<std::mutex> guard(mutex);
    auto raised = kernel_shared_limits.find(func);
    attributes->maxDynamicSharedSizeBytes =
        (int)(raised != kernel_shared_limits.end() ? raised->second : shared_memory_per_block);
    return cudaSuccess;
}

cudaError_t cudaThreadSetLimit(cudaLimit limit, size_t value) { return cudaDeviceSetLimit(limit, value); }
cudaError_t cudaThreadGetLimit(size_t *value, cudaLimit limit) { return cudaDeviceGetLimit(value, limit); }

// Resident blocks per multiprocessor, as limited by threads (2048 per multiprocessor, whole
// warps), blocks (32) and shared memory (96 KiB).  Registers are not modelled.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t dynamic_shared_bytes)
{
    if (blocks == nullptr || block_size <= 0)
        return fail(cudaErrorInvalidValue);
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction);
    if (block_size > 1024) {
        *blocks = 0;
        return cudaSuccess;
    }
    int warps = (block_size + 31) / 32;
    int count = 2048 / (warps * 32);
    if (count > 32)
        count = 32;
    if (dynamic_shared_bytes > 0) {
        size_t by_shared = moccuda::runtime::shared_memory_per_block_optin / dynamic_shared_bytes;
        if (by_shared < (size_t)count)
            count = (int)by_shared;
    }
    *blocks = count;
    return cudaSuccess;
}

cudaError_t moccuda_launch_check(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream, const void *kernel)
{
    using namespace moccuda::runtime;
    if (cudaError_t sticky = sticky_error())
        return fail(sticky);
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
        return fail(cudaErrorInvalidConfiguration);
    if (block.x > 1024 || block.y > 1024 || block.z > 64 || threads > 1024)
        return fail(cudaErrorInvalidConfiguration);
    if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
        return fail(cudaErrorInvalidConfiguration);
    // Translated kernels tell the C++ compiler that blockIdx * blockDim + threadIdx fits an int
    // along each dimension (MOCCUDA_ASSUME_CHECKED_LAUNCH: it is what lets gcc vectorize them),
    // so a grid where it would not is refused here rather than miscomputed.
    const unsigned long long index_limit = MOCCUDA_THREAD_INDEX_LIMIT;
    if ((unsigned long long)grid.x * block.x > index_limit || (unsigned long long)grid.y * block.y > index_limit
        || (unsigned long long)grid.z * block.z > index_limit) {
        fprintf(stderr, "MocCUDA: a grid of more than %llu threads along one dimension is not supported "
                        "(translated kernels index threads with int arithmetic)\n", index_limit);
        return fail(cudaErrorInvalidConfiguration);
    }
    if (shared_bytes > shared_memory_per_block) {
        // More than the default needs a limit raised with cudaFuncSetAttribute: for this kernel,
        // or, when the kernel is not known, for any kernel.
        std::lock_guard<std::mutex> guard(mutex);
        size_t limit = largest_shared_limit;
        if (kernel != nullptr) {
            auto found = kernel_shared_limits.find(kernel);
            limit = found != kernel_shared_limits.end() ? found->second : shared_memory_per_block;
        }
        if (shared_bytes > limit)
            return fail(cudaErrorInvalidConfiguration);
    }
    // The kernel runs on the calling thread, after the work issued to its stream before it.
    return wait_for_stream(stream);
}

}  // extern "C"
