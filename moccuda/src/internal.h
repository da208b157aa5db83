// MocCUDA runtime: what the source files share.
#ifndef MOCCUDA_SRC_INTERNAL_H
#define MOCCUDA_SRC_INTERNAL_H

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

namespace moccuda {
namespace runtime {

// Records a failure as the calling thread's last error; returns `status` either way, so that an
// API function can `return fail(...)`.
cudaError_t fail(cudaError_t status);

// The driver API's calls (driver.cpp) run the runtime's but leave its last error as it was, as
// in CUDA, where a failing driver call is not the runtime's last error.
class KeepLastError {
  public:
    KeepLastError();
    ~KeepLastError();
    KeepLastError(const KeepLastError &) = delete;
    KeepLastError &operator=(const KeepLastError &) = delete;

  private:
    cudaError_t saved_;
};

// The context's sticky error (cudaErrorAssert after a failing device assert), or cudaSuccess.
// As on a GPU the context is then unusable: synchronizations, copies, allocations and launches
// fail with it, cudaGetLastError returns it without clearing it, until cudaDeviceReset.
cudaError_t sticky_error();
void clear_sticky_error();

// The device MocCUDA reports: a Tesla V100-SXM2-16GB.
constexpr size_t total_global_memory = 16945512448ull;
constexpr size_t shared_memory_per_block = 48 * 1024;         // without opting in
constexpr size_t shared_memory_per_block_optin = 96 * 1024;   // cudaFuncAttributeMaxDynamicSharedMemorySize
constexpr int runtime_version = 13000;

// True for the default streams and for streams created and not yet destroyed.
bool valid_stream(cudaStream_t stream);

// Waits until the work issued to `stream` so far has finished; for the legacy default stream, until
// every blocking stream has drained.  Work that runs on the calling thread (kernels, copies) calls
// this first, so that it stays in its stream's order.  A bad handle is an error, as usual.
cudaError_t wait_for_stream(cudaStream_t stream);

// Queues `work` on `stream` (run by the stream's worker after the earlier work), or, on a default
// stream, runs it now on the calling thread after wait_for_stream.
cudaError_t enqueue(cudaStream_t stream, std::function<void()> work);

// Stream capture (graphs.cpp).  Whether `stream` is being captured into a graph now.
bool capturing(cudaStream_t stream);

// Records `work` in the graph that `stream` is being captured into, after the stream's captured
// work so far (the caller checked that it is capturing and checked the work's arguments).
cudaError_t capture(cudaStream_t stream, cudaGraphNodeType type, std::function<void()> work);

// An event recorded into a capture marks the stream's captured work so far; a stream that waits
// on it joins the capture, after that work.  Each returns false when capture is not involved
// (neither the stream nor, for a wait, the event's last record), and the caller goes on as usual.
bool capture_event_record(cudaEvent_t event, cudaStream_t stream);
bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t *status);

// A stream or event destroyed: whatever capture state it had is dropped.
void forget_captured_stream(cudaStream_t stream);
void forget_captured_event(cudaEvent_t event);

// Ends the capture of `stream` as invalid (an operation a capture cannot hold was issued to it):
// cudaStreamEndCapture then fails with cudaErrorStreamCaptureInvalidated, as in CUDA.
void invalidate_capture(cudaStream_t stream);

// The storage behind `symbol`: for the host shadow of a __device__/__constant__ variable that an
// nvcc-built program registered, the kernel library's variable (else the shadow), with its size
// in *bytes; any other address is its own storage (bytes untouched).
void *device_symbol(const void *symbol, size_t *bytes);

// Waits until every stream has drained (cudaDeviceSynchronize).
void synchronize_all();

// What cudaDeviceReset destroys besides device state: allocations, streams and events.
void release_all_memory();
void release_all_streams_and_events();

}  // namespace runtime
}  // namespace moccuda

#endif
