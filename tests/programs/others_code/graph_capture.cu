// CUDA graphs: work captured from streams (copies, fills, kernels, a host function, a second
// stream forked and joined through events) and graphs built node by node, instantiated with
// CUDA 12's and CUDA 11's signatures and launched again and again: each launch replays the
// recorded work in order, reading the inputs as they are at that launch.  A capture records
// without running; waiting for a capturing stream invalidates it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * in[i];
}

template <int BLOCK>
__global__ void block_sums(const float *in, double *sums, int n)
{
    __shared__ double partial[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] += partial[0];
}

__global__ void add_one(int *counter) { atomicAdd(counter, 1); }

template <class... Ts>
__global__ void add_all(int *counter, Ts... terms)
{
    int listed[] = {terms...}, sum = 0;
    for (int i = 0; i < (int)sizeof...(terms); ++i)
        sum += listed[i];
    atomicAdd(counter, sum);
}

static int host_calls = 0;
static void count_call(void *data) { ++*static_cast<int *>(data); }

int main()
{
    const int n = 1000, block = 128, blocks = (n + block - 1) / block;
    static float host_in[n], host_scaled[n];
    static double host_sums[blocks];
    float *in, *scaled;
    double *sums;
    int *counter;
    bool ok = cudaMalloc(&in, n * sizeof(float)) == cudaSuccess && cudaMalloc(&scaled, n * sizeof(float)) == cudaSuccess &&
              cudaMalloc(&sums, blocks * sizeof(double)) == cudaSuccess && cudaMalloc(&counter, 2 * sizeof(int)) == cudaSuccess;
    cudaMemset(counter, 0, 2 * sizeof(int));
    cudaStream_t stream, side;
    cudaEvent_t forked, joined;
    ok = ok && cudaStreamCreate(&stream) == cudaSuccess && cudaStreamCreate(&side) == cudaSuccess;
    ok = ok && cudaEventCreate(&forked) == cudaSuccess && cudaEventCreate(&joined) == cudaSuccess;

    // Capture: copy in, zero the sums, scale, sum per block, copy out; a side stream counts.
    cudaGraph_t graph = nullptr;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    ok = ok && cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess;
    ok = ok && cudaStreamIsCapturing(stream, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive;
    ok = ok && cudaMemcpyAsync(in, host_in, sizeof host_in, cudaMemcpyHostToDevice, stream) == cudaSuccess;
    ok = ok && cudaMemsetAsync(sums, 0, blocks * sizeof(double), stream) == cudaSuccess;
    ok = ok && cudaEventRecord(forked, stream) == cudaSuccess;
    ok = ok && cudaStreamWaitEvent(side, forked, 0) == cudaSuccess;  // side joins the capture
    add_one<<<1, 1, 0, side>>>(counter);
    add_all<<<1, 1, 0, side>>>(counter + 1, 1, 2, 3);
    ok = ok && cudaLaunchHostFunc(side, count_call, &host_calls) == cudaSuccess;
    ok = ok && cudaEventRecord(joined, side) == cudaSuccess;
    scale<<<blocks, block, 0, stream>>>(in, scaled, 2.0f, n);
    block_sums<block><<<blocks, block, 0, stream>>>(scaled, sums, n);
    ok = ok && cudaStreamWaitEvent(stream, joined, 0) == cudaSuccess;
    ok = ok && cudaMemcpyAsync(host_scaled, scaled, sizeof host_scaled, cudaMemcpyDeviceToHost, stream) == cudaSuccess;
    ok = ok && cudaMemcpyAsync(host_sums, sums, sizeof host_sums, cudaMemcpyDeviceToHost, stream) == cudaSuccess;
    ok = ok && cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph != nullptr;
    ok = ok && cudaStreamIsCapturing(stream, &status) == cudaSuccess && status == cudaStreamCaptureStatusNone;

    // Nothing ran during the capture.
    int count = -1;
    ok = ok && cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost) == cudaSuccess && count == 0;
    ok = ok && host_calls == 0 && host_scaled[1] == 0.0f;
    size_t nodes = 0;
    ok = ok && cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess && nodes == 9;

    cudaGraphExec_t exec = nullptr, again = nullptr;
    ok = ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;                 // CUDA 12
    ok = ok && cudaGraphInstantiate(&again, graph, nullptr, nullptr, 0) == cudaSuccess;  // CUDA 11
    for (int round = 1; ok && round <= 3; ++round) {
        for (int i = 0; i < n; ++i)
            host_in[i] = (float)(i % 7 + round);
        ok = cudaGraphLaunch(round == 2 ? again : exec, stream) == cudaSuccess &&
             cudaStreamSynchronize(stream) == cudaSuccess;
        for (int i = 0; ok && i < n; ++i)
            ok = host_scaled[i] == 2.0f * (float)(i % 7 + round);
        for (int b = 0; ok && b < blocks; ++b) {
            double expect = 0;
            for (int i = b * block; i < n && i < (b + 1) * block; ++i)
                expect += 2.0 * (i % 7 + round);
            ok = host_sums[b] == expect;
        }
        ok = ok && cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost) == cudaSuccess && count == round;
        ok = ok && cudaMemcpy(&count, counter + 1, sizeof count, cudaMemcpyDeviceToHost) == cudaSuccess &&
             count == 6 * round;
        ok = ok && host_calls == round;
    }
    if (!ok)
        printf("captured graph replay failed\n");

    // Built node by node: fill, then (after it) a copy and a host call, then a child graph.
    cudaGraph_t built = nullptr, child = nullptr;
    cudaGraphNode_t fill, copy, call, nested, none;
    ok = ok && cudaGraphCreate(&built, 0) == cudaSuccess && cudaGraphCreate(&child, 0) == cudaSuccess;
    cudaMemsetParams fill_params = {};
    fill_params.dst = counter;
    fill_params.value = 40;
    fill_params.elementSize = sizeof(int);
    fill_params.width = 1;
    fill_params.height = 1;
    static int host_counter = 0;
    cudaHostNodeParams call_params = {count_call, &host_calls};
    ok = ok && cudaGraphAddMemsetNode(&fill, built, nullptr, 0, &fill_params) == cudaSuccess;
    ok = ok && cudaGraphAddMemcpyNode1D(&copy, built, &fill, 1, &host_counter, counter, sizeof(int),
                                        cudaMemcpyDeviceToHost) == cudaSuccess;
    ok = ok && cudaGraphAddHostNode(&call, built, &fill, 1, &call_params) == cudaSuccess;
    ok = ok && cudaGraphAddHostNode(&none, child, nullptr, 0, &call_params) == cudaSuccess;
    cudaGraphNode_t both[2] = {copy, call};
    ok = ok && cudaGraphAddChildGraphNode(&nested, built, both, 2, child) == cudaSuccess;
    ok = ok && cudaGraphAddEmptyNode(&none, built, &nested, 1) == cudaSuccess;
    cudaGraphNodeType type;
    ok = ok && cudaGraphNodeGetType(fill, &type) == cudaSuccess && type == cudaGraphNodeTypeMemset;
    ok = ok && cudaGraphNodeGetType(nested, &type) == cudaSuccess && type == cudaGraphNodeTypeGraph;
    size_t roots = 0;
    ok = ok && cudaGraphGetRootNodes(built, nullptr, &roots) == cudaSuccess && roots == 1;
    cudaGraphExec_t built_exec = nullptr;
    ok = ok && cudaGraphInstantiateWithFlags(&built_exec, built, 0) == cudaSuccess;
    int calls_before = host_calls;
    ok = ok && cudaGraphLaunch(built_exec, stream) == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess;
    ok = ok && host_counter == 40 && host_calls == calls_before + 2;
    // A dependency that closes a cycle makes the graph impossible to instantiate.
    cudaGraphExec_t cyclic = nullptr;
    ok = ok && cudaGraphAddDependencies(built, &none, &fill, 1) == cudaSuccess;
    ok = ok && cudaGraphInstantiate(&cyclic, built, 0) == cudaErrorInvalidValue;
    if (!ok)
        printf("built graph failed\n");

    // Misuse: ending a capture never begun; waiting for a capturing stream invalidates it.
    cudaGraph_t broken = nullptr;
    ok = ok && cudaStreamEndCapture(stream, &broken) == cudaErrorIllegalState;
    ok = ok && cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess;
    ok = ok && cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState;
    ok = ok && cudaStreamSynchronize(stream) == cudaErrorStreamCaptureUnsupported;
    ok = ok && cudaStreamEndCapture(stream, &broken) == cudaErrorStreamCaptureInvalidated && broken == nullptr;
    ok = ok && cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported;
    cudaGetLastError();
    if (!ok)
        printf("misuse checks failed\n");

    ok = ok && cudaGraphExecDestroy(exec) == cudaSuccess && cudaGraphExecDestroy(again) == cudaSuccess &&
         cudaGraphExecDestroy(built_exec) == cudaSuccess;
    ok = ok && cudaGraphDestroy(graph) == cudaSuccess && cudaGraphDestroy(built) == cudaSuccess &&
         cudaGraphDestroy(child) == cudaSuccess;
    cudaStreamDestroy(stream);
    cudaStreamDestroy(side);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
