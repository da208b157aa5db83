/* MocCUDA: the common part of CUDA's driver API, over the runtime.
 *
 * Programs that mix the runtime API with a few driver calls (device queries, contexts,
 * allocations and copies through CUdeviceptr, error names) get them here; programs that include
 * <cuda.h> only for CUDA_VERSION or the result codes (Rodinia's kmeans checks cudaBindTexture
 * against CUDA_SUCCESS) too.  There is one device (0), the runtime's; every context is a context
 * of it and all share its memory, as a CUdeviceptr is a runtime device pointer.  The driver needs
 * no cuInit before the runtime's calls, and MocCUDA's needs none before its own (CUDA's answers
 * CUDA_ERROR_NOT_INITIALIZED there: a program that works on a GPU works here).
 *
 * Not here: modules, PTX/cubin images and cuLaunchKernel (there is no device code to load: the
 * kernels are compiled into the program; a call is a located error saying so), and the driver's
 * arrays, textures, graphs and virtual memory management (not declared).
 * The result codes, attributes and flags have the driver API's values. */
#ifndef MOCCUDA_CUDA_H
#define MOCCUDA_CUDA_H
/* The include guard of CUDA's own cuda.h, which headers test to see the driver API declared. */
#define __cuda_cuda_h__
#define CUDA_VERSION 13000
#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_PROFILER_DISABLED = 5,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_SOURCE = 300,
  CUDA_ERROR_FILE_NOT_FOUND = 301,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
  CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
  CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_UNKNOWN = 999
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
/* The driver's streams and events are the runtime's. */
typedef cudaStream_t CUstream;
typedef cudaEvent_t CUevent;

typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
  CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
  CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
  CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25,
  CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26,
  CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
  CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = 78,
  CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = 79,
  CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = 80,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
  CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84,
  CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = 85,
  CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 86,
  CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
  CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = 90,
  CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 98,
  CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED = 99,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
  CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
  CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108,
  CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
  CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115
} CUdevice_attribute;

/* Context creation flags: accepted (a scheduling choice at most, with MAP_HOST and
 * LMEM_RESIZE_TO_MAX), as the runtime's device flags are. */
typedef enum CUctx_flags_enum {
  CU_CTX_SCHED_AUTO = 0x00,
  CU_CTX_SCHED_SPIN = 0x01,
  CU_CTX_SCHED_YIELD = 0x02,
  CU_CTX_SCHED_BLOCKING_SYNC = 0x04,
  CU_CTX_BLOCKING_SYNC = 0x04,
  CU_CTX_SCHED_MASK = 0x07,
  CU_CTX_MAP_HOST = 0x08,
  CU_CTX_LMEM_RESIZE_TO_MAX = 0x10,
  CU_CTX_FLAGS_MASK = 0x1f
} CUctx_flags;

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *driver_version);
CUresult cuGetErrorName(CUresult error, const char **name);
CUresult cuGetErrorString(CUresult error, const char **description);

CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGetName(char *name, int length, CUdevice device);
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device);
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device);
CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice device);

/* CUDA 13's context creation (cuCtxCreate_v4): the parameters' execution affinity and CIG
 * settings are CUDA_ERROR_NOT_SUPPORTED; zero-initialized parameters or none are a context. */
typedef struct CUctxCreateParams_st {
  struct CUexecAffinityParam_st *execAffinityParams;
  int numExecAffinityParams;
  struct CUctxCigParam_st *cigParams;
} CUctxCreateParams;
CUresult cuCtxCreate(CUcontext *context, CUctxCreateParams *parameters, unsigned int flags, CUdevice device);
CUresult cuCtxDestroy(CUcontext context);
CUresult cuCtxGetCurrent(CUcontext *context);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxPushCurrent(CUcontext context);
CUresult cuCtxPopCurrent(CUcontext *context);
CUresult cuCtxGetDevice(CUdevice *device);
CUresult cuCtxSynchronize(void);
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device);
CUresult cuDevicePrimaryCtxRelease(CUdevice device);

CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes);
CUresult cuMemFree(CUdeviceptr pointer);
CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes);
CUresult cuMemcpyHtoD(CUdeviceptr destination, const void *source, size_t bytes);
CUresult cuMemcpyDtoH(void *destination, CUdeviceptr source, size_t bytes);
CUresult cuMemcpyDtoD(CUdeviceptr destination, CUdeviceptr source, size_t bytes);
CUresult cuMemsetD8(CUdeviceptr destination, unsigned char value, size_t count);
CUresult cuMemsetD32(CUdeviceptr destination, unsigned int value, size_t count);

/* Device code loaded at run time (modules of PTX, cubin or fatbin images, kernels launched by handle,
 * JIT linking): a CPU has no such code to load, the kernels are compiled into the program.  Their
 * handle types are declared; a call of these is a located error of cuda2cpu's parse. */
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlinkState_st *CUlinkState;
typedef enum CUjit_option_enum { CU_JIT_MAX_REGISTERS = 0 } CUjit_option;
#ifdef __CUDA2CPU_PARSE__
#define MOCCUDA_NO_MODULES(WHAT)                                                                       \
  __attribute__((unavailable(WHAT " loads or launches device code at run time (a PTX, cubin or fatbin " \
                             "image), which MocCUDA cannot run: the CPU has no such code; launch the "  \
                             "kernels of the .cu file with <<<...>>> or cudaLaunchKernel")))
CUresult cuModuleLoad(CUmodule *, const char *) MOCCUDA_NO_MODULES("cuModuleLoad");
CUresult cuModuleLoadData(CUmodule *, const void *) MOCCUDA_NO_MODULES("cuModuleLoadData");
CUresult cuModuleLoadDataEx(CUmodule *, const void *, unsigned int, CUjit_option *, void **)
    MOCCUDA_NO_MODULES("cuModuleLoadDataEx");
CUresult cuModuleLoadFatBinary(CUmodule *, const void *) MOCCUDA_NO_MODULES("cuModuleLoadFatBinary");
CUresult cuModuleUnload(CUmodule) MOCCUDA_NO_MODULES("cuModuleUnload");
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *) MOCCUDA_NO_MODULES("cuModuleGetFunction");
CUresult cuModuleGetGlobal(CUdeviceptr *, size_t *, CUmodule, const char *) MOCCUDA_NO_MODULES("cuModuleGetGlobal");
CUresult cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                        unsigned int, CUstream, void **, void **) MOCCUDA_NO_MODULES("cuLaunchKernel");
CUresult cuLinkCreate(unsigned int, CUjit_option *, void **, CUlinkState *) MOCCUDA_NO_MODULES("cuLinkCreate");
#undef MOCCUDA_NO_MODULES
#endif

#ifdef __cplusplus
}  /* extern "C" */

/* The context creation of CUDA 12 and before, without parameters (C++ only: C has CUDA 13's). */
inline CUresult cuCtxCreate(CUcontext *context, unsigned int flags, CUdevice device)
{
  return cuCtxCreate(context, (CUctxCreateParams *)0, flags, device);
}
#endif
#endif
