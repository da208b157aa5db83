// MocCUDA runtime: the launch path of programs compiled by nvcc.
//
// nvcc's host code registers each kernel at start-up (__cudaRegisterFunction: the host stub's
// address and the kernel's mangled name) and launches it through __cudaPushCallConfiguration,
// __cudaPopCallConfiguration, __cudaGetKernel and __cudaLaunchKernel (cudaLaunchKernel under
// __NV_LEGACY_LAUNCH).  The device code in the fat binary is never looked at.  Instead each kernel
// runs a CPU implementation found by its mangled name: the function
//
//     extern "C" void moccuda_kernel_<mangled name>(dim3 grid, dim3 block, void **args,
//                                                   size_t shared_bytes, cudaStream_t stream);
//
// looked up first in the libraries named by $MOCCUDA_KERNELS (colon-separated paths, opened with
// dlopen on the first launch), then in the process.  `args` is nvcc's array of pointers to the
// arguments.  The implementation runs on the calling thread after the stream's earlier work.  A
// kernel without one fails its launch with cudaErrorInvalidDeviceFunction and a message naming it.
#include "internal.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace moccuda {
namespace runtime {
namespace {

using KernelEntry = void (*)(dim3, dim3, void **, size_t, cudaStream_t);

struct Kernel {
    const void *host_stub;
    std::string name;  // mangled
    KernelEntry entry = nullptr;
    bool looked_up = false;
};

std::mutex mutex;
std::unordered_map<const void *, Kernel *> kernels;  // by host stub; never freed (handles stay valid)
std::vector<void *> kernel_libraries;
std::unordered_map<std::string, void *> variables;  // __device__/__constant__ by name: their host shadow
bool libraries_opened = false;

struct CallConfiguration {
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
};
thread_local std::vector<CallConfiguration> configurations;

// Opens the libraries of $MOCCUDA_KERNELS once (the caller holds the mutex).
void open_kernel_libraries()
{
    if (libraries_opened)
        return;
    libraries_opened = true;
    const char *paths = getenv("MOCCUDA_KERNELS");
    std::string list = paths != nullptr ? paths : "";
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(':', start);
        if (end == std::string::npos)
            end = list.size();
        std::string path = list.substr(start, end - start);
        if (!path.empty()) {
            void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
            if (library != nullptr)
                kernel_libraries.push_back(library);
            else
                fprintf(stderr, "moccuda: cannot load kernel library %s: %s\n", path.c_str(), dlerror());
        }
        start = end + 1;
    }
}

// The kernel's CPU implementation, or null (the caller holds the mutex).
KernelEntry resolve(Kernel *kernel)
{
    if (kernel->looked_up)
        return kernel->entry;
    kernel->looked_up = true;
    open_kernel_libraries();
    std::string symbol = "moccuda_kernel_" + kernel->name;
    for (void *library : kernel_libraries)
        if (void *found = dlsym(library, symbol.c_str()))
            return kernel->entry = reinterpret_cast<KernelEntry>(found);
    if (void *found = dlsym(RTLD_DEFAULT, symbol.c_str()))
        kernel->entry = reinterpret_cast<KernelEntry>(found);
    return kernel->entry;
}

Kernel *find_kernel(const void *host_stub)
{
    std::lock_guard<std::mutex> guard(mutex);
    auto found = kernels.find(host_stub);
    return found != kernels.end() ? found->second : nullptr;
}

cudaError_t launch(Kernel *kernel, dim3 grid, dim3 block, void **args, size_t shared_bytes, cudaStream_t stream)
{
    if (kernel == nullptr)
        return fail(cudaErrorInvalidDeviceFunction);
    KernelEntry entry;
    {
        std::lock_guard<std::mutex> guard(mutex);
        entry = resolve(kernel);
    }
    if (entry == nullptr) {
        const char *paths = getenv("MOCCUDA_KERNELS");
        fprintf(stderr, "moccuda: kernel %s has no CPU implementation (no moccuda_kernel_%s in %s)\n",
                kernel->name.c_str(), kernel->name.c_str(),
                paths != nullptr && *paths ? paths : "the process; set MOCCUDA_KERNELS");
        return fail(cudaErrorInvalidDeviceFunction);
    }
    cudaError_t status = moccuda_launch_check(grid, block, shared_bytes, stream, kernel->host_stub);
    if (status != cudaSuccess)
        return status;  // recorded already; also waited for the stream when it succeeded
    entry(grid, block, args, shared_bytes, stream);
    return cudaSuccess;
}

}  // namespace
}  // namespace runtime
}  // namespace moccuda

using moccuda::runtime::fail;

extern "C" {

void **__cudaRegisterFatBinary(void *fat_cubin)
{
    // The handle only has to be unique and stable; the device code is never read.
    static std::mutex handles_mutex;
    std::lock_guard<std::mutex> guard(handles_mutex);
    return new void *(fat_cubin);
}

void __cudaRegisterFatBinaryEnd(void **) {}

void __cudaUnregisterFatBinary(void **handle) { delete handle; }

char __cudaInitModule(void **) { return 1; }

void __cudaRegisterFunction(void **, const char *host_fun, char *, const char *device_name, int, uint3 *, uint3 *,
                            dim3 *, dim3 *, int *)
{
    using namespace moccuda::runtime;
    if (host_fun == nullptr || device_name == nullptr)
        return;
    std::lock_guard<std::mutex> guard(mutex);
    Kernel *&slot = kernels[host_fun];
    if (slot == nullptr)
        slot = new Kernel{host_fun, device_name};
}

// A __device__ or __constant__ variable: its host shadow is the variable itself, since device
// memory is host memory, so cudaMemcpyToSymbol(shadow, ...) already works.  Kernel libraries find
// it by name with moccuda_device_variable.
void __cudaRegisterVar(void **, char *host_var, char *, const char *device_name, int, size_t, int, int)
{
    using namespace moccuda::runtime;
    if (host_var == nullptr || device_name == nullptr)
        return;
    std::lock_guard<std::mutex> guard(mutex);
    variables[device_name] = host_var;
}

// The storage of the registered __device__ or __constant__ variable `name` (as nvcc registers it:
// the source name, or the mangled one for a variable in a namespace), or null.
void *moccuda_device_variable(const char *name)
{
    using namespace moccuda::runtime;
    if (name == nullptr)
        return nullptr;
    std::lock_guard<std::mutex> guard(mutex);
    auto found = variables.find(name);
    return found != variables.end() ? found->second : nullptr;
}

void *moccuda_symbol_by_name(const char *name)
{
    if (name == nullptr)
        return nullptr;
    void *registered = moccuda_device_variable(name);
    return registered != nullptr ? registered : dlsym(RTLD_DEFAULT, name);
}

void __cudaRegisterManagedVar(void **, void **, char *, const char *, int, size_t, int, int) {}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes, void *stream)
{
    moccuda::runtime::configurations.push_back({grid, block, shared_bytes, static_cast<cudaStream_t>(stream)});
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared_bytes, void *stream)
{
    auto &stack = moccuda::runtime::configurations;
    if (stack.empty())
        return fail(cudaErrorMissingConfiguration);
    const auto &top = stack.back();
    *grid = top.grid;
    *block = top.block;
    *shared_bytes = top.shared_bytes;
    *static_cast<cudaStream_t *>(stream) = top.stream;
    stack.pop_back();
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(void **kernel, const void *host_stub)
{
    if (kernel == nullptr)
        return fail(cudaErrorInvalidValue);
    *kernel = moccuda::runtime::find_kernel(host_stub);
    return *kernel != nullptr ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t __cudaLaunchKernel(void *kernel, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                               cudaStream_t stream)
{
    return moccuda::runtime::launch(static_cast<moccuda::runtime::Kernel *>(kernel), grid, block, args, shared_bytes,
                                    stream);
}

cudaError_t __cudaLaunchKernel_ptsz(void *kernel, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                                    cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream == nullptr ? cudaStreamPerThread : stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                             cudaStream_t stream)
{
    return moccuda::runtime::launch(moccuda::runtime::find_kernel(func), grid, block, args, shared_bytes, stream);
}

// A cooperative launch needs every block resident at once: at most as many blocks as the
// device holds (occupancy per multiprocessor times multiprocessors), as CUDA checks.  The
// kernel then runs as any other (grid-wide synchronization is the translator's business).
cudaError_t moccuda_cooperative_check(const void *func, dim3 grid, dim3 block, size_t shared_bytes)
{
    int per_sm = 0, sms = 0;
    cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)(block.x * block.y * block.z),
                                                                        shared_bytes);
    if (status != cudaSuccess)
        return status;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    return blocks <= (unsigned long long)per_sm * sms ? cudaSuccess : fail(cudaErrorCooperativeLaunchTooLarge);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                                        cudaStream_t stream)
{
    cudaError_t status = moccuda_cooperative_check(func, grid, block, shared_bytes);
    return status != cudaSuccess ? status : cudaLaunchKernel(func, grid, block, args, shared_bytes, stream);
}

// The C entry point behind CUDA 12's cudaLaunchKernelEx: the configuration's grid, block,
// dynamic shared memory and stream; attributes change nothing on the CPU.
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    if (config == nullptr || (config->numAttrs > 0 && config->attrs == nullptr))
        return fail(cudaErrorInvalidValue);
    return cudaLaunchKernel(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shared_bytes,
                                  cudaStream_t stream)
{
    return cudaLaunchKernel(func, grid, block, args, shared_bytes, stream == nullptr ? cudaStreamPerThread : stream);
}

}  // extern "C"
