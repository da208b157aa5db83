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
// dlopen on the first launch or symbol access), then in the process.  `args` is nvcc's array of
// pointers to the arguments.  The implementation runs on the calling thread after the stream's
// earlier work.  A kernel without one fails its launch with cudaErrorInvalidDeviceFunction and a
// message naming it.  `cuda2cpu --emit=kernel-library` builds such libraries
// (moccuda/kernel_library.h).
//
// A registered __device__/__constant__ variable is, as on a GPU, storage apart from the host shadow
// nvcc registers: the kernel library's own variable, exported as `moccuda_variable_<registered
// name>` (a pointer to it), so that its initializer and the kernels' accesses are the ones
// cudaMemcpyToSymbol & co. see.  Without one, the shadow itself is the storage.
//
// nvcc names an anonymous namespace after the file (`_GLOBAL__N__29faf03c_8_app_cu_...`), g++ and
// clang `_GLOBAL__N_1`; a name not found as registered is looked up again in the second form.
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
struct Variable {
    std::string name;  // as registered
    void *shadow;
    size_t bytes;
    void *storage = nullptr;
    bool looked_up = false;
};
std::unordered_map<std::string, Variable *> variables;          // by registered name; never freed
std::unordered_map<const void *, Variable *> variables_by_shadow;
// __managed__ variables: the program reads them through a pointer nvcc's code keeps (registered
// by its address), which __cudaInitModule points at their storage.
std::vector<std::pair<Variable *, void **>> managed;
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
            // RTLD_LOCAL: each library's symbols stay its own (two may define the same entry).
            void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (library != nullptr)
                kernel_libraries.push_back(library);
            else
                fprintf(stderr, "moccuda: cannot load kernel library %s: %s\n", path.c_str(), dlerror());
        }
        start = end + 1;
    }
}

// `name` with each anonymous namespace spelled as g++ and clang mangle it (`12_GLOBAL__N_1`).
std::string portable_name(const std::string &name)
{
    static const std::string anonymous = "_GLOBAL__N_";
    std::string out;
    size_t at = 0;
    while (at < name.size()) {
        size_t digits = at;
        while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9')
            ++digits;
        if (digits > at && name.compare(digits, anonymous.size(), anonymous) == 0) {
            // A source name <length><identifier>: take the shortest length suffix that fits.
            for (size_t from = at; from < digits; ++from) {
                size_t length = std::stoul(name.substr(from, digits - from));
                if (name[from] != '0' && length >= anonymous.size() && digits + length <= name.size()) {
                    out += name.substr(at, from - at) + "12_GLOBAL__N_1";
                    at = digits + length;
                    break;
                }
            }
            if (at >= digits)
                continue;
        }
        out += name[at++];
    }
    return out;
}

// The symbol `prefix + name` (or its portable form) in the kernel libraries, then in the process
// (the caller holds the mutex).
void *find_symbol(const std::string &prefix, const std::string &name)
{
    open_kernel_libraries();
    const std::string portable = portable_name(name);
    for (const std::string *form : {&name, &portable}) {
        std::string symbol = prefix + *form;
        for (void *library : kernel_libraries)
            if (void *found = dlsym(library, symbol.c_str()))
                return found;
        if (void *found = dlsym(RTLD_DEFAULT, symbol.c_str()))
            return found;
        if (portable == name)
            break;
    }
    return nullptr;
}

// The kernel's CPU implementation, or null (the caller holds the mutex).
KernelEntry resolve(Kernel *kernel)
{
    if (!kernel->looked_up) {
        kernel->looked_up = true;
        kernel->entry = reinterpret_cast<KernelEntry>(find_symbol("moccuda_kernel_", kernel->name));
    }
    return kernel->entry;
}

// The variable's storage (the caller holds the mutex).
void *storage(Variable *variable)
{
    if (!variable->looked_up) {
        variable->looked_up = true;
        void *found = find_symbol("moccuda_variable_", variable->name);
        variable->storage = found != nullptr ? *static_cast<void **>(found) : variable->shadow;
    }
    return variable->storage;
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

void *device_symbol(const void *symbol, size_t *bytes)
{
    std::lock_guard<std::mutex> guard(mutex);
    auto found = variables_by_shadow.find(symbol);
    if (found == variables_by_shadow.end())
        return const_cast<void *>(symbol);
    if (bytes != nullptr)
        *bytes = found->second->bytes;
    return storage(found->second);
}

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

// Called by nvcc's code before the host first touches a __managed__ variable: point each one's
// host pointer at its storage (the kernel library's variable, else zeroed memory of its size).
char __cudaInitModule(void **)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    for (auto &entry : managed) {
        if (*entry.second != nullptr)
            continue;
        void *found = storage(entry.first);
        if (found == entry.first->shadow)  // no kernel library has it
            found = entry.first->storage = calloc(1, entry.first->bytes > 0 ? entry.first->bytes : 1);
        *entry.second = found;
    }
    return 1;
}

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

// A __device__ or __constant__ variable: the symbol APIs take its host shadow and reach its
// storage (device_symbol), the kernel library's variable when one exports it.
void __cudaRegisterVar(void **, char *host_var, char *, const char *device_name, int, size_t bytes, int, int)
{
    using namespace moccuda::runtime;
    if (host_var == nullptr || device_name == nullptr)
        return;
    std::lock_guard<std::mutex> guard(mutex);
    Variable *&slot = variables[device_name];
    if (slot == nullptr)
        slot = new Variable{device_name, host_var, bytes};
    variables_by_shadow[host_var] = slot;
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
    return found != variables.end() ? storage(found->second) : nullptr;
}

void *moccuda_symbol_by_name(const char *name)
{
    if (name == nullptr)
        return nullptr;
    void *registered = moccuda_device_variable(name);
    return registered != nullptr ? registered : dlsym(RTLD_DEFAULT, name);
}

void __cudaRegisterManagedVar(void **, void **host_pointer, char *, const char *device_name, int, size_t bytes, int,
                              int)
{
    using namespace moccuda::runtime;
    if (host_pointer == nullptr || device_name == nullptr)
        return;
    std::lock_guard<std::mutex> guard(mutex);
    Variable *&slot = variables[device_name];
    if (slot == nullptr)
        slot = new Variable{device_name, host_pointer, bytes};
    managed.emplace_back(slot, host_pointer);
}

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
