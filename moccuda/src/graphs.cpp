// MocCUDA runtime: CUDA graphs and stream capture.
//
// A graph is a list of nodes, each a piece of work (a closure: a kernel with its arguments copied,
// a copy, a fill, a host function, a child graph's work) with the nodes it depends on.  An
// executable graph (cudaGraphInstantiate) is the graph's work in an order that respects every
// dependency, copied out of the graph, so that later changes to the graph leave it alone (as in
// CUDA).  cudaGraphLaunch issues it to a stream as one item of the stream's work: its steps run
// one after another, after the stream's earlier work and before its later work.  Running the
// nodes of independent branches one after another is one of the schedules CUDA may pick.
//
// Stream capture: between cudaStreamBeginCapture and cudaStreamEndCapture, work issued to the
// stream is recorded as nodes instead of run (internal.h: `capture`), each
// depending on the stream's captured work before it.  Translated kernels record themselves
// (moccuda::launch_captured in cuda2cpu_device.h calls moccuda_capture_launch with a closure
// that calls the kernel again with the arguments of the launch).  An event recorded into a
// capture marks the work captured so far; a stream that then waits on it joins the capture,
// its next work depending on that mark (the fork and join of multi-stream capture).
#include "internal.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct CUgraph_st;

struct CUgraphNode_st {
    CUgraph_st *graph;
    size_t index;  // in the graph's creation order
    cudaGraphNodeType type;
    std::function<void()> work;  // empty for an empty node
    std::vector<CUgraphNode_st *> dependencies;
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};

struct CUgraphExec_st {
    std::shared_ptr<const std::vector<std::function<void()>>> steps;
};

namespace moccuda {
namespace runtime {
namespace {

struct Capture {
    CUgraph_st *graph;
    cudaStream_t origin;
    bool invalidated = false;
    // For each stream in the capture, the nodes its next captured work depends on.
    std::unordered_map<cudaStream_t, std::vector<CUgraphNode_st *>> tips;
};

// An event's last record, made into a capture: the capture and the nodes it marks.
struct CapturedRecord {
    std::weak_ptr<Capture> capture;
    std::vector<CUgraphNode_st *> marks;
};

std::mutex graph_mutex;  // guards everything below
std::unordered_set<CUgraph_st *> graphs;
std::unordered_set<CUgraphExec_st *> execs;
std::unordered_map<cudaStream_t, std::shared_ptr<Capture>> captures;  // by each stream taking part
std::unordered_map<cudaEvent_t, CapturedRecord> captured_records;
std::atomic<int> capturing_streams{0};  // captures.size(), read without the mutex

thread_local cudaStreamCaptureMode thread_capture_mode = cudaStreamCaptureModeGlobal;

CUgraphNode_st *add_node(CUgraph_st *graph, cudaGraphNodeType type, std::function<void()> work,
                         std::vector<CUgraphNode_st *> dependencies)
{
    graph->nodes.push_back(std::unique_ptr<CUgraphNode_st>(
        new CUgraphNode_st{graph, graph->nodes.size(), type, std::move(work), std::move(dependencies)}));
    return graph->nodes.back().get();
}

// The work of the graph's nodes in an order that respects every dependency (creation order
// where it does), or false for a graph with a cycle (the caller holds the mutex).
bool ordered_steps(const CUgraph_st *graph, std::vector<std::function<void()>> *steps)
{
    const size_t count = graph->nodes.size();
    std::vector<size_t> waiting(count, 0);
    std::vector<std::vector<size_t>> dependents(count);
    for (const auto &node : graph->nodes) {
        for (const CUgraphNode_st *dependency : node->dependencies)
            dependents[dependency->index].push_back(node->index);
        waiting[node->index] = node->dependencies.size();
    }
    std::vector<size_t> ready;  // a min-heap on the index: the earliest created ready node first
    for (size_t i = 0; i < count; ++i)
        if (waiting[i] == 0)
            ready.push_back(i);
    std::make_heap(ready.begin(), ready.end(), std::greater<size_t>());
    size_t done = 0;
    while (!ready.empty()) {
        std::pop_heap(ready.begin(), ready.end(), std::greater<size_t>());
        size_t next = ready.back();
        ready.pop_back();
        ++done;
        if (graph->nodes[next]->work)
            steps->push_back(graph->nodes[next]->work);
        for (size_t dependent : dependents[next])
            if (--waiting[dependent] == 0) {
                ready.push_back(dependent);
                std::push_heap(ready.begin(), ready.end(), std::greater<size_t>());
            }
    }
    return done == count;
}

// A copy of the graph, registered (the caller holds the mutex).
CUgraph_st *clone_graph(const CUgraph_st *original)
{
    CUgraph_st *copy = new CUgraph_st;
    for (const auto &node : original->nodes) {
        std::vector<CUgraphNode_st *> dependencies;
        for (const CUgraphNode_st *dependency : node->dependencies)
            dependencies.push_back(copy->nodes[dependency->index].get());
        add_node(copy, node->type, node->work, std::move(dependencies));
    }
    graphs.insert(copy);
    return copy;
}

// Checks a node's graph and dependencies and adds it (the caller holds the mutex).
cudaError_t add_checked(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies, size_t count,
                        cudaGraphNodeType type, std::function<void()> work)
{
    if (node == nullptr || (count > 0 && dependencies == nullptr))
        return fail(cudaErrorInvalidValue);
    if (graphs.count(graph) == 0)
        return fail(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st *> after;
    for (size_t i = 0; i < count; ++i) {
        if (dependencies[i] == nullptr || dependencies[i]->graph != graph)
            return fail(cudaErrorInvalidValue);
        if (std::find(after.begin(), after.end(), dependencies[i]) != after.end())
            return fail(cudaErrorInvalidValue);  // CUDA refuses a dependency given twice
        after.push_back(dependencies[i]);
    }
    *node = add_node(graph, type, std::move(work), std::move(after));
    return cudaSuccess;
}

// Forgets the streams of a capture (the caller holds the mutex).
void end_capture(const std::shared_ptr<Capture> &capture)
{
    for (auto it = captures.begin(); it != captures.end();)
        if (it->second == capture) {
            it = captures.erase(it);
            capturing_streams.fetch_sub(1);
        } else {
            ++it;
        }
}

std::shared_ptr<Capture> capture_of(cudaStream_t stream)
{
    auto found = captures.find(stream);
    return found != captures.end() ? found->second : nullptr;
}

// A memset of `elementSize`-byte elements of `value`, `width` of them per row.
std::function<void()> memset_work(const cudaMemsetParams &p)
{
    return [p] {
        for (size_t row = 0; row < p.height; ++row) {
            unsigned char *at = static_cast<unsigned char *>(p.dst) + row * p.pitch;
            for (size_t i = 0; i < p.width; ++i)
                memcpy(at + i * p.elementSize, &p.value, p.elementSize);  // little-endian: the low bytes
        }
    };
}

}  // namespace

bool capturing(cudaStream_t stream)
{
    if (capturing_streams.load(std::memory_order_acquire) == 0)
        return false;
    std::lock_guard<std::mutex> guard(graph_mutex);
    return captures.count(stream) != 0;
}

cudaError_t capture(cudaStream_t stream, cudaGraphNodeType type, std::function<void()> work)
{
    std::lock_guard<std::mutex> guard(graph_mutex);
    std::shared_ptr<Capture> capture = capture_of(stream);
    if (!capture)
        return fail(cudaErrorStreamCaptureInvalidated);  // its capture ended meanwhile
    std::vector<CUgraphNode_st *> &tips = capture->tips[stream];
    CUgraphNode_st *node = add_node(capture->graph, type, std::move(work), tips);
    tips.assign(1, node);
    return cudaSuccess;
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream)
{
    if (capturing_streams.load(std::memory_order_acquire) == 0 && captured_records.empty())
        return false;
    std::lock_guard<std::mutex> guard(graph_mutex);
    std::shared_ptr<Capture> capture = capture_of(stream);
    if (!capture) {
        captured_records.erase(event);  // recorded outside capture again
        return false;
    }
    captured_records[event] = CapturedRecord{capture, capture->tips[stream]};
    return true;
}

bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t *status)
{
    if (capturing_streams.load(std::memory_order_acquire) == 0)
        return false;
    std::lock_guard<std::mutex> guard(graph_mutex);
    std::shared_ptr<Capture> waiter = capture_of(stream);
    auto found = captured_records.find(event);
    std::shared_ptr<Capture> recorded = found != captured_records.end() ? found->second.capture.lock() : nullptr;
    if (!recorded) {
        if (!waiter)
            return false;
        // A capture cannot wait on work outside it (CUDA: cudaErrorStreamCaptureIsolation).
        waiter->invalidated = true;
        *status = fail(cudaErrorStreamCaptureIsolation);
        return true;
    }
    if (waiter && waiter != recorded) {
        waiter->invalidated = recorded->invalidated = true;
        *status = fail(cudaErrorStreamCaptureMerge);
        return true;
    }
    if (!waiter) {
        captures[stream] = recorded;  // the stream joins the capture
        capturing_streams.fetch_add(1);
    }
    std::vector<CUgraphNode_st *> &tips = recorded->tips[stream];
    for (CUgraphNode_st *mark : found->second.marks)
        if (std::find(tips.begin(), tips.end(), mark) == tips.end())
            tips.push_back(mark);
    *status = cudaSuccess;
    return true;
}

void forget_captured_stream(cudaStream_t stream)
{
    std::lock_guard<std::mutex> guard(graph_mutex);
    std::shared_ptr<Capture> capture = capture_of(stream);
    if (!capture)
        return;
    capture->invalidated = true;
    captures.erase(stream);
    capturing_streams.fetch_sub(1);
}

void forget_captured_event(cudaEvent_t event)
{
    std::lock_guard<std::mutex> guard(graph_mutex);
    captured_records.erase(event);
}

void invalidate_capture(cudaStream_t stream)
{
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (std::shared_ptr<Capture> capture = capture_of(stream))
        capture->invalidated = true;
}

}  // namespace runtime
}  // namespace moccuda

using moccuda::runtime::fail;

extern "C" {

// ---- stream capture ----

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    using namespace moccuda::runtime;
    if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
        return fail(cudaErrorInvalidValue);
    if (!valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    if (stream == nullptr || stream == cudaStreamLegacy)
        return fail(cudaErrorStreamCaptureUnsupported);  // the legacy default stream cannot be captured
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (captures.count(stream) != 0)
        return fail(cudaErrorIllegalState);
    std::shared_ptr<Capture> capture = std::make_shared<Capture>();
    capture->graph = new CUgraph_st;
    capture->origin = stream;
    capture->tips[stream];
    captures[stream] = capture;
    capturing_streams.fetch_add(1);
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    using namespace moccuda::runtime;
    if (graph == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(graph_mutex);
    std::shared_ptr<Capture> capture = capture_of(stream);
    if (!capture)
        return fail(cudaErrorIllegalState);
    if (capture->origin != stream)
        return fail(cudaErrorStreamCaptureUnmatched);  // ended from a stream that joined it
    end_capture(capture);
    if (capture->invalidated) {
        delete capture->graph;
        *graph = nullptr;
        return fail(cudaErrorStreamCaptureInvalidated);
    }
    graphs.insert(capture->graph);
    *graph = capture->graph;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status)
{
    using namespace moccuda::runtime;
    if (status == nullptr)
        return fail(cudaErrorInvalidValue);
    if (!valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> guard(graph_mutex);
    std::shared_ptr<Capture> capture = capture_of(stream);
    *status = !capture ? cudaStreamCaptureStatusNone
                       : (capture->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive);
    return cudaSuccess;
}

// The mode is kept per thread and returned; which calls a mode forbids during a capture is not
// checked (an unsafe call in a capturing program is the program's error, not one that changes
// what the captured work computes).
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode)
{
    if (mode == nullptr || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
        return fail(cudaErrorInvalidValue);
    std::swap(*mode, moccuda::runtime::thread_capture_mode);
    return cudaSuccess;
}

// A translated kernel launched into a capturing stream (moccuda::launch_captured): `run(closure)`
// launches it again with the same arguments; `release(closure)` frees the closure once no graph
// or executable graph holds it.
int moccuda_stream_capturing(cudaStream_t stream) { return moccuda::runtime::capturing(stream) ? 1 : 0; }

cudaError_t moccuda_capture_launch(cudaStream_t stream, void (*run)(void *), void *closure, void (*release)(void *))
{
    std::shared_ptr<void> held(closure, release);
    return moccuda::runtime::capture(stream, cudaGraphNodeTypeKernel, [run, held] { run(held.get()); });
}

// ---- graphs ----

cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags)
{
    using namespace moccuda::runtime;
    if (graph == nullptr || flags != 0)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(graph_mutex);
    *graph = new CUgraph_st;
    graphs.insert(*graph);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (graphs.erase(graph) == 0)
        return fail(cudaErrorInvalidValue);
    delete graph;  // executable graphs made from it hold their own copy of the work
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t original)
{
    using namespace moccuda::runtime;
    if (clone == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (graphs.count(original) == 0)
        return fail(cudaErrorInvalidValue);
    *clone = clone_graph(original);
    return cudaSuccess;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                  size_t count)
{
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    return moccuda::runtime::add_checked(node, graph, dependencies, count, cudaGraphNodeTypeEmpty, nullptr);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                 size_t count, const cudaHostNodeParams *params)
{
    if (params == nullptr || params->fn == nullptr)
        return fail(cudaErrorInvalidValue);
    cudaHostFn_t fn = params->fn;
    void *data = params->userData;
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    return moccuda::runtime::add_checked(node, graph, dependencies, count, cudaGraphNodeTypeHost, [fn, data] { fn(data); });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaMemsetParams *params)
{
    if (params == nullptr || params->dst == nullptr || params->width == 0 || params->height == 0)
        return fail(cudaErrorInvalidValue);
    if (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4)
        return fail(cudaErrorInvalidValue);
    if (params->height > 1 && params->width * params->elementSize > params->pitch)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    return moccuda::runtime::add_checked(node, graph, dependencies, count, cudaGraphNodeTypeMemset,
                                         moccuda::runtime::memset_work(*params));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaMemcpy3DParms *params)
{
    if (params == nullptr)
        return fail(cudaErrorInvalidValue);
    cudaMemcpy3DParms copy = *params;
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    return moccuda::runtime::add_checked(node, graph, dependencies, count, cudaGraphNodeTypeMemcpy,
                                         [copy] { cudaMemcpy3D(&copy); });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection);
    if (bytes > 0 && (dst == nullptr || src == nullptr))
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    return moccuda::runtime::add_checked(node, graph, dependencies, count, cudaGraphNodeTypeMemcpy,
                                         [dst, src, bytes] { memmove(dst, src, bytes); });
}

// The child graph is copied (as CUDA clones it): later changes to it do not reach this node.
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                       size_t count, cudaGraph_t child)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (graphs.count(child) == 0 || child == graph)
        return fail(cudaErrorInvalidValue);
    auto steps = std::make_shared<std::vector<std::function<void()>>>();
    if (!ordered_steps(child, steps.get()))
        return fail(cudaErrorInvalidValue);
    return add_checked(node, graph, dependencies, count, cudaGraphNodeTypeGraph, [steps] {
        for (const auto &step : *steps)
            step();
    });
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t count)
{
    using namespace moccuda::runtime;
    if (count > 0 && (from == nullptr || to == nullptr))
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (graphs.count(graph) == 0)
        return fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        if (from[i] == nullptr || to[i] == nullptr || from[i]->graph != graph || to[i]->graph != graph ||
            from[i] == to[i])
            return fail(cudaErrorInvalidValue);
        std::vector<CUgraphNode_st *> &after = to[i]->dependencies;
        if (std::find(after.begin(), after.end(), from[i]) != after.end())
            return fail(cudaErrorInvalidValue);  // CUDA refuses an edge that exists
    }
    for (size_t i = 0; i < count; ++i)
        to[i]->dependencies.push_back(from[i]);
    return cudaSuccess;
}

extern "C++" {  // templates, inside the extern "C" block of the API
// CUDA's listing convention: with `out` null, *count becomes how many there are; else the first
// *count of them are written and *count becomes how many were.
template <class Node>
static void list_into(const std::vector<Node> &found, cudaGraphNode_t *out, size_t *count)
{
    if (out != nullptr)
        for (size_t i = 0; i < *count && i < found.size(); ++i)
            out[i] = found[i];
    *count = out != nullptr ? std::min(*count, found.size()) : found.size();
}

// The nodes of `graph` that `wanted` accepts, listed by CUDA's convention.
template <class Wanted>
static cudaError_t list_graph_nodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count, Wanted wanted)
{
    using namespace moccuda::runtime;
    if (count == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (graphs.count(graph) == 0)
        return fail(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> found;
    for (const auto &node : graph->nodes)
        if (wanted(*node))
            found.push_back(node.get());
    list_into(found, nodes, count);
    return cudaSuccess;
}
}  // extern "C++"

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    return list_graph_nodes(graph, nodes, count, [](const CUgraphNode_st &) { return true; });
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    return list_graph_nodes(graph, nodes, count, [](const CUgraphNode_st &node) { return node.dependencies.empty(); });
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type)
{
    if (node == nullptr || type == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    *type = node->type;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *dependencies, size_t *count)
{
    if (node == nullptr || count == nullptr)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> guard(moccuda::runtime::graph_mutex);
    list_into(node->dependencies, dependencies, count);
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    using namespace moccuda::runtime;
    const unsigned long long known = cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |
                                     cudaGraphInstantiateFlagUseNodePriority;
    if (exec == nullptr || (flags & ~known))
        return fail(cudaErrorInvalidValue);  // device launch needs device-side graph launches: none here
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (graphs.count(graph) == 0)
        return fail(cudaErrorInvalidValue);
    auto steps = std::make_shared<std::vector<std::function<void()>>>();
    if (!ordered_steps(graph, steps.get()))
        return fail(cudaErrorInvalidValue);  // a cycle
    *exec = new CUgraphExec_st{steps};
    execs.insert(*exec);
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(exec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    using namespace moccuda::runtime;
    std::shared_ptr<const std::vector<std::function<void()>>> steps;
    {
        std::lock_guard<std::mutex> guard(graph_mutex);
        if (execs.count(exec) == 0)
            return fail(cudaErrorInvalidValue);
        steps = exec->steps;
    }
    if (!valid_stream(stream))
        return fail(cudaErrorInvalidResourceHandle);
    auto run = [steps] {
        for (const auto &step : *steps)
            step();
    };
    if (capturing(stream))
        return capture(stream, cudaGraphNodeTypeGraph, run);
    return enqueue(stream, run);
}

// Memory is where the work finds it: nothing to upload.
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream)
{
    using namespace moccuda::runtime;
    {
        std::lock_guard<std::mutex> guard(graph_mutex);
        if (execs.count(exec) == 0)
            return fail(cudaErrorInvalidValue);
    }
    return valid_stream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    using namespace moccuda::runtime;
    std::lock_guard<std::mutex> guard(graph_mutex);
    if (execs.erase(exec) == 0)
        return fail(cudaErrorInvalidValue);
    delete exec;  // a launch still queued holds the steps
    return cudaSuccess;
}

}  // extern "C"
