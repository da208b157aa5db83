// MocCUDA runtime: streams and events.
//
// Each created stream is an in-order queue of work served by its own worker thread, so work on
// different streams overlaps.  What is queued: host functions (cudaLaunchHostFunc), stream
// callbacks, event records and event waits (cudaStreamWaitEvent).  Everything else issued to a
// stream (kernels, copies, fills) runs on the calling thread once the stream's earlier work has
// finished (`wait_for_stream`), which keeps each stream's order without copying the caller's
// buffers.  The default stream has CUDA's legacy semantics: work issued to it first waits for
// every blocking stream (those not created with cudaStreamNonBlocking) to drain, and then runs on
// the calling thread, so later work on a blocking stream finds it done.  cudaStreamPerThread runs
// its work on the calling thread with no implicit synchronization.
//
// An event record is a queued marker: the event is complete once the marker has run, and it then
// holds the host's steady clock at that moment, so elapsed times between events are the real
// times between the work.  Handles are checked against the live ones, so a destroyed or made-up
// handle is cudaErrorInvalidResourceHandle rather than a crash.  Event state is shared with the
// markers and waits that refer to it, so destroying an event with work pending is safe (as CUDA
// allows).
#include "internal.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

struct CUstream_st {
    unsigned int flags;
    int priority;
    cudaAccessPolicyWindow access_policy{};  // kept for cudaStreamGetAttribute; a CPU takes no such hint
    cudaSynchronizationPolicy synchronization_policy = cudaSyncPolicyAuto;
    std::mutex mutex;
    std::condition_variable changed;  // work queued, work finished, or stopping
    std::deque<std::function<void()>> queue;
    bool busy = false;                // the worker is running an item it has taken off the queue
    bool stopping = false;
    std::thread worker;

    CUstream_st(unsigned int f, int p) : flags(f), priority(p) { worker = std::thread([this] { serve(); }); }

    ~CUstream_st()
    {
        {
            std::lock_guard<std::mutex> guard(mutex);
            stopping = true;
        }
        changed.notify_all();
        worker.join();  // the worker finishes the queue first
    }

    void serve()
    {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            changed.wait(lock, [this] { return stopping || !queue.empty(); });
            if (queue.empty())
                return;  // stopping, and nothing left to do
            std::function<void()> work = std::move(queue.front());
            queue.pop_front();
            busy = true;
            lock.unlock();
            work();
            lock.lock();
            busy = false;
            changed.notify_all();
        }
    }

    void push(std::function<void()> work)
    {
        {
            std::lock_guard<std::mutex> guard(mutex);
            queue.push_back(std::move(work));
        }
        changed.notify_all();
    }

    void drain()
    {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [this] { return queue.empty() && !busy; });
    }

    bool idle()
    {
        std::lock_guard<std::mutex> guard(mutex);
        return queue.empty() && !busy;
    }
};

namespace {

// What an event's markers and waits share.  `recorded` counts cudaEventRecord calls, `completed`
// is the count of the last marker that ran; the event is complete when they are equal.
struct EventState {
    unsigned long long recorded = 0;
    unsigned long long completed = 0;
    std::chrono::steady_clock::time_point when;
};

std::mutex event_mutex;                 // guards every EventState
std::condition_variable event_changed;  // a marker ran

}  // namespace

struct CUevent_st {
    unsigned int flags;
    std::shared_ptr<EventState> state;
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

bool is_legacy_stream(cudaStream_t stream) { return stream == nullptr || stream == cudaStreamLegacy; }

// Whether `stream` is usable (the caller holds the mutex).
bool live_stream(cudaStream_t stream) { return is_default_stream(stream) || streams.count(stream) != 0; }

// The created streams, all or only the blocking ones, as they are now.
std::vector<CUstream_st *> snapshot(bool blocking_only)
{
    std::lock_guard<std::mutex> guard(mutex);
    std::vector<CUstream_st *> found;
    for (CUstream_st *stream : streams)
        if (!blocking_only || !(stream->flags & cudaStreamNonBlocking))
            found.push_back(stream);
    return found;
}

}  // namespace

bool valid_stream(cudaStream_t stream)
{
    if (is_default_stream(stream))
        return true;
    std::lock_guard<std::mutex> guard(mutex);
    return streams.count(stream) != 0;
}

cudaError_t wait_for_stream(cudaStream_t stream)
{
    if (!valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    if (capturing(stream)) {
        // Work issued to it now is recorded, not run: there is nothing for it to wait for.
    } else if (is_legacy_stream(stream)) {
        for (CUstream_st *blocking : snapshot(true))
            blocking->drain();
    } else if (stream != cudaStreamPerThread) {
        stream->drain();
    }
    return fail(sticky_error());
}

cudaError_t enqueue(cudaStream_t stream, std::function<void()> work)
{
    if (!valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    if (capturing(stream))
        return capture(stream, cudaGraphNodeTypeHost, std::move(work));
    if (is_default_stream(stream)) {
        wait_for_stream(stream);
        work();
    } else {
        stream->push(std::move(work));
    }
    return cudaSuccess;
}

void synchronize_all()
{
    for (CUstream_st *stream : snapshot(false))
        stream->drain();
}

void release_all_streams_and_events()
{
    std::unordered_set<CUstream_st *> doomed;
    {
        std::lock_guard<std::mutex> guard(mutex);
        doomed.swap(streams);
        for (CUevent_st *event : events)
            delete event;
        events.clear();
    }
    for (CUstream_st *stream : doomed)
        delete stream;  // finishes its queue, then stops its worker
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
    CUstream_st *created = new CUstream_st(flags, priority);
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

// CUDA returns at once and lets queued work finish; here the call waits for it, which a caller
// cannot tell apart (the handle is dead either way).
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    using namespace moccuda::runtime;
    {
        std::lock_guard<std::mutex> guard(mutex);
        if (streams.erase(stream) == 0)  // also refuses the default streams
            return fail(cudaErrorInvalidResourceHandle);
    }
    forget_captured_stream(stream);
    delete stream;
    return cudaSuccess;
}

// Waiting for a stream under capture is not allowed (its work has not run, and will not until the
// graph is launched): as CUDA, the call fails and the capture is invalidated.
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    using namespace moccuda::runtime;
    if (capturing(stream)) {
        invalidate_capture(stream);
        return fail(cudaErrorStreamCaptureUnsupported);
    }
    return wait_for_stream(stream);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    using namespace moccuda::runtime;
    if (!valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    if (capturing(stream)) {
        invalidate_capture(stream);
        return fail(cudaErrorStreamCaptureUnsupported);
    }
    if (is_default_stream(stream))
        return cudaSuccess;  // its work ran when it was issued
    return stream->idle() ? cudaSuccess : cudaErrorNotReady;  // not an error: not recorded
}

// The stream's later work waits until the event's most recent record (as of this call) is done.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    using namespace moccuda::runtime;
    std::shared_ptr<EventState> state;
    {
        std::lock_guard<std::mutex> guard(mutex);
        if (!live_stream(stream) || events.count(event) == 0)
            return fail(cudaErrorInvalidResourceHandle);
        if (flags & ~1u)
            return fail(cudaErrorInvalidValue);
        state = event->state;
    }
    cudaError_t captured;
    if (capture_event_wait(stream, event, &captured))
        return captured;
    unsigned long long target;
    {
        std::lock_guard<std::mutex> guard(event_mutex);
        target = state->recorded;
    }
    return enqueue(stream, [state, target] {
        std::unique_lock<std::mutex> lock(event_mutex);
        event_changed.wait(lock, [&] { return state->completed >= target; });
    });
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

// The attributes of the default stream, which has no CUstream_st of its own.
static cudaAccessPolicyWindow default_stream_access_policy{};
static cudaSynchronizationPolicy default_stream_synchronization_policy = cudaSyncPolicyAuto;

// Stream attributes are hints about caching and waiting: kept so that cudaStreamGetAttribute
// returns them, and otherwise without effect (the results never depend on them).
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value)
{
    using namespace moccuda::runtime;
    if (value == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    if (!live_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    bool is_default = is_default_stream(stream);
    switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow:
        (is_default ? default_stream_access_policy : stream->access_policy) = value->accessPolicyWindow;
        return cudaSuccess;
    case cudaLaunchAttributeSynchronizationPolicy:
        (is_default ? default_stream_synchronization_policy : stream->synchronization_policy) = value->syncPolicy;
        return cudaSuccess;
    case cudaLaunchAttributePriority:
        if (!is_default)
            stream->priority = value->priority;
        return cudaSuccess;
    default:
        return fail(cudaErrorInvalidValue);
    }
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value)
{
    using namespace moccuda::runtime;
    if (value == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(mutex);
    if (!live_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    bool is_default = is_default_stream(stream);
    switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow:
        value->accessPolicyWindow = is_default ? default_stream_access_policy : stream->access_policy;
        return cudaSuccess;
    case cudaLaunchAttributeSynchronizationPolicy:
        value->syncPolicy = is_default ? default_stream_synchronization_policy : stream->synchronization_policy;
        return cudaSuccess;
    case cudaLaunchAttributePriority:
        value->priority = is_default ? least_priority : stream->priority;
        return cudaSuccess;
    default:
        return fail(cudaErrorInvalidValue);
    }
}

// Nothing is kept in a persisting L2 region here, so there is nothing to reset.
cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *user_data,
                                  unsigned int flags)
{
    if (callback == nullptr || flags != 0)
        return fail(cudaErrorInvalidValue);
    // Runs once everything before it in the stream is done.
    return moccuda::runtime::enqueue(stream, [stream, callback, user_data] { callback(stream, cudaSuccess, user_data); });
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data)
{
    if (fn == nullptr)
        return fail(cudaErrorInvalidValue);
    return moccuda::runtime::enqueue(stream, [fn, user_data] { fn(user_data); });
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
    CUevent_st *created = new CUevent_st{flags, std::make_shared<EventState>()};
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
    std::shared_ptr<EventState> state;
    {
        std::lock_guard<std::mutex> guard(mutex);
        if (events.count(event) == 0 || !live_stream(stream))
            return fail(cudaErrorInvalidResourceHandle);
        state = event->state;
    }
    if (capture_event_record(event, stream))
        return cudaSuccess;
    unsigned long long mark;
    {
        std::lock_guard<std::mutex> guard(event_mutex);
        mark = ++state->recorded;
    }
    return enqueue(stream, [state, mark] {
        auto now = std::chrono::steady_clock::now();
        {
            std::lock_guard<std::mutex> guard(event_mutex);
            if (mark > state->completed) {
                state->completed = mark;
                state->when = now;
            }
        }
        event_changed.notify_all();
    });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault);
}

namespace {

// The live event's shared state, or null (the caller reports the bad handle).
std::shared_ptr<EventState> event_state(cudaEvent_t event)
{
    std::lock_guard<std::mutex> guard(moccuda::runtime::mutex);
    return moccuda::runtime::events.count(event) != 0 ? event->state : nullptr;
}

}  // namespace

// An event is complete once its most recent record has run, and also before it is ever recorded.
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    std::shared_ptr<EventState> state = event_state(event);
    if (!state)
        return fail(cudaErrorInvalidResourceHandle);
    std::unique_lock<std::mutex> lock(event_mutex);
    event_changed.wait(lock, [&] { return state->completed >= state->recorded; });
    return fail(moccuda::runtime::sticky_error());
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    std::shared_ptr<EventState> state = event_state(event);
    if (!state)
        return fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> guard(event_mutex);
    return state->completed >= state->recorded ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    using namespace moccuda::runtime;
    if (ms == nullptr)
        return fail(cudaErrorInvalidValue);
    std::shared_ptr<EventState> first = event_state(start), last = event_state(end);
    if (!first || !last)
        return fail(cudaErrorInvalidResourceHandle);
    // An untimed event, or one never recorded, has no time to compare (CUDA's answer).
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> guard(event_mutex);
    if (first->recorded == 0 || last->recorded == 0)
        return fail(cudaErrorInvalidResourceHandle);
    if (first->completed < first->recorded || last->completed < last->recorded)
        return cudaErrorNotReady;  // an answer, not recorded as the last error
    *ms = std::chrono::duration<float, std::milli>(last->when - first->when).count();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(mutex);
    if (events.erase(event) == 0)
        return fail(cudaErrorInvalidResourceHandle);
    forget_captured_event(event);
    delete event;  // pending markers and waits hold the state
    return cudaSuccess;
}

}  // extern "C"
