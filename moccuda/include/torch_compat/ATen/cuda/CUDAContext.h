/* MocCUDA torch compat: ATen's CUDA context (streams, device properties) over MocCUDA.
 *
 * What a PyTorch CUDA extension reaches through this header: the current and pooled streams
 * (c10/cuda/CUDAStream.h), the device properties (MocCUDA's cudaGetDeviceProperties, cached per
 * device as PyTorch caches them), the warp size, and AT_CUDA_CHECK.
 */
#pragma once

#include <cuda_runtime.h>
#include <ATen/Context.h>
#include <ATen/cuda/Exceptions.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <mutex>
#include <vector>

namespace at {
namespace cuda {

using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromExternal;
using c10::cuda::getStreamFromPool;
using c10::cuda::setCurrentCUDAStream;

inline int64_t getNumGPUs() { return c10::cuda::device_count(); }
inline bool is_available() { return c10::cuda::device_count() > 0; }
inline c10::DeviceIndex current_device() { return c10::cuda::current_device(); }

inline cudaDeviceProp *getDeviceProperties(c10::DeviceIndex device)
{
    static std::mutex lock;
    static std::vector<std::unique_ptr<cudaDeviceProp>> cache(16);
    device = c10::cuda::moccuda_resolve(device);
    TORCH_CHECK(device >= 0 && device < c10::cuda::device_count(), "device=", static_cast<int>(device),
                ", num_gpus=", static_cast<int>(c10::cuda::device_count()));
    std::lock_guard<std::mutex> hold(lock);
    std::unique_ptr<cudaDeviceProp> &entry = cache[static_cast<size_t>(device)];
    if (!entry) {
        auto prop = std::make_unique<cudaDeviceProp>();
        AT_CUDA_CHECK(cudaGetDeviceProperties(prop.get(), device));
        entry = std::move(prop);
    }
    return entry.get();
}

inline cudaDeviceProp *getCurrentDeviceProperties() { return getDeviceProperties(current_device()); }

inline int warp_size() { return getCurrentDeviceProperties()->warpSize; }

inline bool canDeviceAccessPeer(c10::DeviceIndex device, c10::DeviceIndex peer)
{
    int can = 0;
    AT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
    return can != 0;
}

}  // namespace cuda
}  // namespace at
