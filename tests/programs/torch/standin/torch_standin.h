// A stand-in for PyTorch's tensor and device types (test_torch_host.py puts this directory on
// the system include path, where PyTorch's headers are for real extensions).
#pragma once

namespace c10 {
enum class DeviceType { CPU, CUDA };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
struct Device {
    DeviceType t;
    bool is_cuda() const { return t == DeviceType::CUDA; }
    bool is_cpu() const { return t == DeviceType::CPU; }
    DeviceType type() const { return t; }
};
}  // namespace c10
namespace torch {
using c10::kCPU;
using c10::kCUDA;
struct Tensor {
    float *data;
    int n;
    c10::Device dev{c10::kCPU};
    bool is_cuda() const { return dev.is_cuda(); }
    bool is_cpu() const { return dev.is_cpu(); }
    c10::Device device() const { return dev; }
};
}  // namespace torch
