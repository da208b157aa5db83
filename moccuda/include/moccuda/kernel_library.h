/* MocCUDA: what a kernel library made by `cuda2cpu --emit=kernel-library` exports.
 *
 * A program built by nvcc launches a kernel through libcudart's __cudaLaunchKernel with nvcc's
 * argument array (args[i] points to the i-th argument).  MocCUDA's libcudart.so.13 stand-in finds
 * the kernel's CPU implementation by the mangled name nvcc registered (__cudaRegisterFunction):
 *
 *     extern "C" void moccuda_kernel_<mangled name>(dim3 grid, dim3 block, void **args,
 *                                                   size_t shared_bytes, cudaStream_t stream);
 *
 * and a __device__/__constant__ variable's storage by the name nvcc registered (__cudaRegisterVar):
 *
 *     extern "C" void *const moccuda_variable_<registered name>;   // the variable's address
 *
 * MOCCUDA_KERNEL_ENTRY defines the first for a translated kernel: it unpacks the arguments with the
 * kernel's own parameter types and calls it with the launch configuration, so the launch runs as
 * one in a program cuda2cpu built (checks, dynamic shared memory, the stream's order, errors).
 * MOCCUDA_DEVICE_VARIABLE defines the second.  Everything else in a kernel library is compiled
 * with hidden visibility, so two libraries never share a variable by accident.
 */
#ifndef MOCCUDA_KERNEL_LIBRARY_H
#define MOCCUDA_KERNEL_LIBRARY_H

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace moccuda {
namespace kernel_library {

template <class... Params, std::size_t... I>
inline void call(void (*kernel)(LaunchConfig, Params...), const LaunchConfig &launch, void **args,
                 std::index_sequence<I...>)
{
    (void)args;  // unused by a kernel without parameters
    kernel(launch, *static_cast<typename std::remove_reference<Params>::type *>(args[I])...);
}

/* Runs `kernel` for a launch of an nvcc-built program: `args` is nvcc's argument array. */
template <class... Params>
inline void run(void (*kernel)(LaunchConfig, Params...), dim3 grid, dim3 block, void **args,
                std::size_t shared_bytes, cudaStream_t stream)
{
    call(kernel, LaunchConfig(grid, block, shared_bytes, stream), args, std::index_sequence_for<Params...>{});
}

}  // namespace kernel_library
}  // namespace moccuda

#define MOCCUDA_EXPORT __attribute__((visibility("default")))

#define MOCCUDA_KERNEL_ENTRY(mangled, kernel)                                                      \
    extern "C" MOCCUDA_EXPORT void moccuda_kernel_##mangled(dim3 grid, dim3 block, void **args,     \
                                                            std::size_t shared_bytes,              \
                                                            cudaStream_t stream)                   \
    {                                                                                              \
        moccuda::kernel_library::run(kernel, grid, block, args, shared_bytes, stream);             \
    }

#define MOCCUDA_DEVICE_VARIABLE(registered, variable)                                              \
    extern "C" MOCCUDA_EXPORT void *const moccuda_variable_##registered = (void *)&(variable);

#endif
