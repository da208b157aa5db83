/* MocCUDA torch compat: c10's CUDA device and stream guards over MocCUDA.
 *
 * A guard makes a device current for its scope and restores the previous one.  PyTorch's CPU
 * build has no CUDA tensors: the CPU tensors that stand in for them carry a CPU device, which
 * stands for MocCUDA's current device (see moccuda_device_index).
 */
#pragma once

#include <c10/core/Device.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <optional>

namespace c10 {
namespace cuda {

class CUDAGuard {
public:
    explicit CUDAGuard(DeviceIndex device) : original_(c10::cuda::current_device()) { set_index(device); }
    explicit CUDAGuard(Device device) : original_(c10::cuda::current_device()) { set_device(device); }
    CUDAGuard(const CUDAGuard &) = delete;
    CUDAGuard &operator=(const CUDAGuard &) = delete;
    ~CUDAGuard() { C10_CUDA_IGNORE_ERROR(cudaSetDevice(original_)); }

    void set_device(Device device) { set_index(moccuda_device_index(device)); }
    void reset_device(Device device) { set_device(device); }
    void set_index(DeviceIndex device)
    {
        C10_CUDA_CHECK(cudaSetDevice(device));
        current_ = device;
    }
    Device original_device() const { return Device(DeviceType::CUDA, original_); }
    Device current_device() const { return Device(DeviceType::CUDA, current_); }

private:
    DeviceIndex original_;
    DeviceIndex current_ = 0;
};

class OptionalCUDAGuard {
public:
    OptionalCUDAGuard() = default;
    explicit OptionalCUDAGuard(std::optional<Device> device)
    {
        if (device.has_value())
            set_device(*device);
    }
    explicit OptionalCUDAGuard(std::optional<DeviceIndex> device)
    {
        if (device.has_value())
            set_index(*device);
    }
    OptionalCUDAGuard(const OptionalCUDAGuard &) = delete;
    OptionalCUDAGuard &operator=(const OptionalCUDAGuard &) = delete;
    ~OptionalCUDAGuard() { reset(); }

    void set_device(Device device) { set_index(moccuda_device_index(device)); }
    void reset_device(Device device) { set_device(device); }
    void set_index(DeviceIndex device)
    {
        if (!original_.has_value())
            original_ = c10::cuda::current_device();
        C10_CUDA_CHECK(cudaSetDevice(device));
        current_ = device;
    }
    std::optional<Device> original_device() const
    {
        return original_.has_value() ? std::optional<Device>(Device(DeviceType::CUDA, *original_)) : std::nullopt;
    }
    std::optional<Device> current_device() const
    {
        return current_.has_value() ? std::optional<Device>(Device(DeviceType::CUDA, *current_)) : std::nullopt;
    }
    void reset()
    {
        if (original_.has_value())
            C10_CUDA_IGNORE_ERROR(cudaSetDevice(*original_));
        original_.reset();
        current_.reset();
    }

private:
    std::optional<DeviceIndex> original_;
    std::optional<DeviceIndex> current_;
};

/* Makes a stream current (and its device) for the scope. */
class CUDAStreamGuard {
public:
    explicit CUDAStreamGuard(CUDAStream stream)
        : device_(stream.device_index()), original_(getCurrentCUDAStream(stream.device_index()))
    {
        setCurrentCUDAStream(stream);
    }
    CUDAStreamGuard(const CUDAStreamGuard &) = delete;
    CUDAStreamGuard &operator=(const CUDAStreamGuard &) = delete;
    ~CUDAStreamGuard() { setCurrentCUDAStream(original_); }
    CUDAStream original_stream() const { return original_; }
    CUDAStream current_stream() const { return getCurrentCUDAStream(device_.current_device().index()); }

private:
    CUDAGuard device_;
    CUDAStream original_;
};

class OptionalCUDAStreamGuard {
public:
    OptionalCUDAStreamGuard() = default;
    explicit OptionalCUDAStreamGuard(std::optional<CUDAStream> stream)
    {
        if (stream.has_value())
            reset_stream(*stream);
    }
    ~OptionalCUDAStreamGuard() { reset(); }
    void reset_stream(CUDAStream stream)
    {
        reset();
        original_ = getCurrentCUDAStream(stream.device_index());
        setCurrentCUDAStream(stream);
    }
    std::optional<CUDAStream> original_stream() const { return original_; }
    void reset()
    {
        if (original_.has_value())
            setCurrentCUDAStream(*original_);
        original_.reset();
    }

private:
    std::optional<CUDAStream> original_;
};

}  // namespace cuda
}  // namespace c10

namespace at {
namespace cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::OptionalCUDAStreamGuard;
}  // namespace cuda
}  // namespace at
