/* MocCUDA torch compat: c10::cuda::CUDAStream over MocCUDA's streams.
 *
 * The current stream is per thread (and per device), the default stream is CUDA's legacy default
 * stream (0), and the pool hands out MocCUDA streams created on first use.  Kernels launched on a
 * stream run after the stream's earlier work, on MocCUDA's terms.
 */
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <ostream>

#include <c10/core/Device.h>
#include <c10/core/Stream.h>
#include <c10/cuda/CUDAFunctions.h>

namespace c10 {
namespace cuda {

class CUDAStream {
public:
    enum Unchecked { UNCHECKED };

    explicit CUDAStream(cudaStream_t stream, DeviceIndex device = 0) : stream_(stream), device_(device) {}

    operator cudaStream_t() const { return stream_; }
    cudaStream_t stream() const { return stream_; }
    DeviceIndex device_index() const { return device_; }
    Device device() const { return Device(DeviceType::CUDA, device_); }
    DeviceType device_type() const { return DeviceType::CUDA; }
    StreamId id() const { return static_cast<StreamId>(reinterpret_cast<intptr_t>(stream_)); }
    int priority() const { return 0; }
    bool query() const { return cudaStreamQuery(stream_) == cudaSuccess; }
    void synchronize() const { C10_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    Stream unwrap() const { return Stream(Stream::UNSAFE, device(), id()); }
    operator Stream() const { return unwrap(); }
    bool operator==(const CUDAStream &other) const { return stream_ == other.stream_ && device_ == other.device_; }
    bool operator!=(const CUDAStream &other) const { return !(*this == other); }

private:
    cudaStream_t stream_;
    DeviceIndex device_;
};

inline std::ostream &operator<<(std::ostream &out, const CUDAStream &s)
{
    return out << "stream " << s.id() << " on device cuda:" << static_cast<int>(s.device_index());
}

namespace moccuda_detail {
/* The current stream of this thread for each device MocCUDA might report. */
inline cudaStream_t &current_stream(DeviceIndex device)
{
    thread_local std::array<cudaStream_t, 16> current{};
    return current[static_cast<size_t>(device) % current.size()];
}
}  // namespace moccuda_detail

inline DeviceIndex moccuda_resolve(DeviceIndex device) { return device < 0 ? current_device() : device; }

inline CUDAStream getDefaultCUDAStream(DeviceIndex device = -1) { return CUDAStream(nullptr, moccuda_resolve(device)); }

inline CUDAStream getCurrentCUDAStream(DeviceIndex device = -1)
{
    device = moccuda_resolve(device);
    return CUDAStream(moccuda_detail::current_stream(device), device);
}

inline void setCurrentCUDAStream(CUDAStream stream)
{
    moccuda_detail::current_stream(stream.device_index()) = stream.stream();
}

/* A stream from a fixed pool, round robin, as PyTorch's pool; created on first use, never freed
 * (PyTorch's pool streams live as long as the process too). */
inline CUDAStream getStreamFromPool(bool /*high_priority*/ = false, DeviceIndex device = -1)
{
    constexpr size_t kPoolSize = 8;
    static std::array<std::atomic<cudaStream_t>, kPoolSize> pool{};
    static std::atomic<size_t> next{0};
    std::atomic<cudaStream_t> &slot = pool[next++ % kPoolSize];
    cudaStream_t stream = slot.load();
    if (stream == nullptr) {
        cudaStream_t created = nullptr;
        C10_CUDA_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
        if (slot.compare_exchange_strong(stream, created))
            stream = created;
        else
            cudaStreamDestroy(created);  // another thread filled the slot first
    }
    return CUDAStream(stream, moccuda_resolve(device));
}

inline CUDAStream getStreamFromPool(int /*priority*/, DeviceIndex device = -1) { return getStreamFromPool(false, device); }

inline CUDAStream getStreamFromExternal(cudaStream_t stream, DeviceIndex device) { return CUDAStream(stream, device); }

}  // namespace cuda
}  // namespace c10
