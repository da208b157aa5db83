// MocCUDA runtime: streams and events.
//
// Streams are synchronous: every operation runs to completion when it is issued.  So a stream is
// always idle, waiting on an event never blocks, and an event records the host's steady clock at
// cudaEventRecord, which makes elapsed times between events the real time the work between them
// took.  Handles are checked against the live ones, so a destroyed or made-up handle is
// cudaErrorInvalidResourceHandle rather than a crash.
#include "internal.h"

#include <chrono>
#include <mutex>
#include <unordered_set>

struct CUstream_st {
    unsigned int flags;
    int priority;
};

struct CUevent_st {
    unsigned int flags;
    bool recorded;
    std::chrono::steady_clock::time_point when;
};

namespace moccuda {
namespace runtime {
namespace {

// Stream priorities: lower is more urgent; V100 offers two levels.
constexpr int least_priority = 0;
constexpr int greatest_priority = -1;

std::mutex mutex;
std::unordered_set<CUstream_st *> streams;
std::unordered_set<CUevent_st *> events;

bool is_default_stream(cudaStream_t stream)
{
    return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

// Whether `stream` is usable (the caller holds the mutex).
bool live_stream(cudaStream_t stream) { return is_default_stream(stream) || streams.count(stream) != 0; }

}  // namespace

bool valid_stream(cudaStream_t stream)
{
    if (is_default_stream(stream))
        return true;
    std::lock_guard<std::mutex> guard(mutex);
    return streams.count(stream) != 0;
}

void release_all_streams_and_events()
{
    std::lock_guard<std::mutex> guard(mutex);
    for (CUstream_st *stream : streams)
        delete stream;
    for (CUevent_st *event : events)
        delete event;
    streams.clear();
    events.clear();
}

}  // namespace runtime
}  // namespace moccuda

using moccuda::runtime::fail;

extern "C" {

// ---- streams ----

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    using namespace moccuda::runtime;
    if (stream == nullptr || (flags & ~static_cast<unsigned int>(cudaStreamNonBlocking)))
        return fail(cudaErrorInvalidValue);
    // As CUDA does, a priority outside the range is clamped to it.
    if (priority > least_priority)
        priority = least_priority;
    if (priority < greatest_priority)
        priority = greatest_priority;
    CUstream_st *created = new CUstream_st{flags, priority};
    std::lock_guard<std::mutex> guard(mutex);
    streams.insert(created);
    *stream = created;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(stream, flags, moccuda::runtime::least_priority);
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    if (streams.erase(stream) == 0)  // also refuses the default streams
        return fail(cudaErrorInvalidResourceHandle);
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return moccuda::runtime::valid_stream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return moccuda::runtime::valid_stream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    if (!live_stream(stream) || events.count(event) == 0)
        return fail(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)
        return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags)
{
    using namespace moccuda::runtime;
    if (flags == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    if (!live_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    *flags = is_default_stream(stream) ? cudaStreamDefault : stream->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority)
{
    using namespace moccuda::runtime;
    if (priority == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    if (!live_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    *priority = is_default_stream(stream) ? least_priority : stream->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *user_data,
                                  unsigned int flags)
{
    if (callback == nullptr || flags != 0)
        return fail(cudaErrorInvalidValue);
    if (!moccuda::runtime::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    callback(stream, cudaSuccess, user_data);  // everything before it in the stream is done
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data)
{
    if (fn == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!moccuda::runtime::valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    fn(user_data);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    if (least != nullptr)
        *least = moccuda::runtime::least_priority;
    if (greatest != nullptr)
        *greatest = moccuda::runtime::greatest_priority;
    return cudaSuccess;
}

// ---- events ----

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    using namespace moccuda::runtime;
    const unsigned int known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (event == nullptr || (flags & ~known))
        return fail(cudaErrorInvalidValue);
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return fail(cudaErrorInvalidValue);  // CUDA requires interprocess events to be untimed
    CUevent_st *created = new CUevent_st{flags, false, {}};
    std::lock_guard<std::mutex> guard(mutex);
    events.insert(created);
    *event = created;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    using namespace moccuda::runtime;
    if (flags & ~static_cast<unsigned int>(cudaEventRecordExternal))
        return fail(cudaErrorInvalidValue);
    auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> guard(mutex);
    if (events.count(event) == 0 || !live_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    event->when = now;
    event->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault);
}

// An event is complete once recorded work is done (immediately here), and also before it is
// ever recorded.
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    return events.count(event) != 0 ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    using namespace moccuda::runtime;
    if (ms == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    if (events.count(start) == 0 || events.count(end) == 0)
        return fail(cudaErrorInvalidResourceHandle);
    // An untimed event, or one never recorded, has no time to compare (CUDA's answer).
    if (((start->flags | end->flags) & cudaEventDisableTiming) || !start->recorded || !end->recorded)
        return fail(cudaErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    if (events.erase(event) == 0)
        return fail(cudaErrorInvalidResourceHandle);
    delete event;
    return cudaSuccess;
}

}  // extern "C"
