/* MocCUDA torch compat: c10's CUDA device functions, answered by MocCUDA (one device). */
#pragma once

#include <c10/core/Device.h>
#include <c10/cuda/CUDAException.h>

namespace c10 {
namespace cuda {

inline DeviceIndex device_count() noexcept
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? static_cast<DeviceIndex>(count) : 0;
}

inline DeviceIndex current_device()
{
    int device = 0;
    C10_CUDA_CHECK(cudaGetDevice(&device));
    return static_cast<DeviceIndex>(device);
}

inline void set_device(DeviceIndex device) { C10_CUDA_CHECK(cudaSetDevice(device)); }

inline void device_synchronize() { C10_CUDA_CHECK(cudaDeviceSynchronize()); }

/* The MocCUDA device a tensor's device stands for: a CPU device (PyTorch's CPU build has no CUDA
 * tensors) is the current device; a CUDA device is its own index. */
inline DeviceIndex moccuda_device_index(Device device)
{
    if (device.is_cuda() && device.has_index())
        return device.index();
    return current_device();
}

}  // namespace cuda
}  // namespace c10
