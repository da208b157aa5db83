// MocCUDA behaviour checks, built with g++ -fopenmp against MocCUDA's header and library.
// `runtime_checks SECTION` runs one section and prints PASS, or FAIL with the line and condition
// of the first check that failed (exit status 1).
#include <cuda_runtime.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <sys/mman.h>

#include "check.h"

// A translated kernel has this shape (see openmp_emit/emit.py).
static int kernel_runs = 0;
static void kernel(moccuda::LaunchConfig launch, int *out)
{
    if (!moccuda::launch_begin(launch))
        return;
    ++kernel_runs;
    *out = (int)(launch.grid.x * launch.block.x);
    moccuda::launch_end(launch);
}

static bool rejected(const moccuda::LaunchConfig &config)
{
    return !moccuda::launch_begin(config) && cudaGetLastError() == cudaErrorInvalidConfiguration;
}

static int errors()
{
    int x = 0;
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaFree(&x) == cudaErrorInvalidValue);  // not from cudaMalloc
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);  // Peek does not reset
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);  // Get does
    // A success does not clear an earlier error; a later error replaces it.
    CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice);
    CHECK(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidDevice);
    CHECK(cudaFree(&x) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    // The last error belongs to the thread that made the call.
    cudaSetDevice(-1);
    cudaError_t other = cudaErrorUnknown;
    std::thread([&] { other = cudaGetLastError(); }).join();
    CHECK(other == cudaSuccess);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);

    CHECK(strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidDevice), "invalid device ordinal") == 0);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidMemcpyDirection), "cudaErrorInvalidMemcpyDirection") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidResourceHandle), "invalid resource handle") == 0);
    CHECK(strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0);
    CHECK(strcmp(cudaGetErrorName(cudaErrorUnknown), "cudaErrorUnknown") == 0);
    CHECK(strcmp(cudaGetErrorString((cudaError_t)12345), "unrecognized error code") == 0);
    CHECK(strcmp(cudaGetErrorName((cudaError_t)-7), "unrecognized error code") == 0);
    // CUDA's numeric values (the ABI).
    CHECK(cudaErrorInvalidValue == 1 && cudaErrorMemoryAllocation == 2 && cudaErrorInvalidConfiguration == 9);
    CHECK(cudaErrorInvalidMemcpyDirection == 21 && cudaErrorInvalidDevice == 101);
    CHECK(cudaErrorInvalidResourceHandle == 400 && cudaErrorNotReady == 600 && cudaErrorUnknown == 999);

    cudaDeviceProp prop;
    int value = 0;
    CHECK(cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice);
    CHECK(cudaGetDeviceProperties(&prop, -1) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 2) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceGetAttribute(&value, (cudaDeviceAttr)100000, 0) == cudaErrorInvalidValue);
    CHECK(cudaGetDeviceProperties(nullptr, 0) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(&x, &value, sizeof x, (cudaMemcpyKind)42) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaMemcpy(&x, &value, sizeof x, (cudaMemcpyKind)-1) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaGetLastError() == cudaErrorInvalidMemcpyDirection);
    return 0;
}

static int launch()
{
    using moccuda::LaunchConfig;
    CHECK(rejected(LaunchConfig(dim3(0), dim3(32))));
    CHECK(rejected(LaunchConfig(dim3(1, 0), dim3(32))));
    CHECK(rejected(LaunchConfig(dim3(1), dim3(32, 1, 0))));
    CHECK(rejected(LaunchConfig(1, 1025)));
    CHECK(rejected(LaunchConfig(1, dim3(1, 1025))));
    CHECK(rejected(LaunchConfig(1, dim3(1, 1, 65))));
    CHECK(rejected(LaunchConfig(1, dim3(32, 32, 2))));  // 2048 threads
    CHECK(rejected(LaunchConfig(dim3(1, 65536), 32)));
    CHECK(rejected(LaunchConfig(dim3(1, 1, 65536), 32)));
    CHECK(rejected(LaunchConfig(dim3(2147483648u), 32)));
    CHECK(rejected(LaunchConfig(1, 32, 48 * 1024 + 1)));
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(moccuda::launch_begin(LaunchConfig(dim3(2097150u, 65535, 65535), dim3(1024))));
    CHECK(moccuda::launch_begin(LaunchConfig(dim3(MOCCUDA_THREAD_INDEX_LIMIT), dim3(1))));
    CHECK(cudaGetLastError() == cudaSuccess);
    // A limit of MocCUDA's: blockIdx * blockDim + threadIdx must fit an int along each dimension
    // (translated kernels tell the compiler so), which CUDA's largest grids exceed.
    CHECK(rejected(LaunchConfig(dim3(2147483647u), dim3(1024))));
    CHECK(rejected(LaunchConfig(dim3(MOCCUDA_THREAD_INDEX_LIMIT / 2 + 1), dim3(2))));
    CHECK(moccuda::launch_begin(LaunchConfig(dim3(4, 4), dim3(32, 32), 48 * 1024)));
    CHECK(moccuda::launch_begin(LaunchConfig(1, dim3(1, 1, 64))));
    CHECK(cudaGetLastError() == cudaSuccess);

    // A kernel with a bad configuration returns without running and leaves the error behind.
    int out = -1;
    kernel(LaunchConfig(dim3(2), dim3(4096)), &out);
    CHECK(kernel_runs == 0 && out == -1);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    kernel(LaunchConfig(dim3(3), dim3(64)), &out);
    CHECK(kernel_runs == 1 && out == 192 && cudaGetLastError() == cudaSuccess);

    // More than 48 KiB of dynamic shared memory needs the kernel's limit raised first.
    const void *k = (const void *)&kernel;
    CHECK(!moccuda::launch_begin(LaunchConfig(1, 32, 64 * 1024), k));
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024) == cudaErrorInvalidValue);
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024) == cudaSuccess);
    CHECK(moccuda::launch_begin(LaunchConfig(1, 32, 64 * 1024), k));
    CHECK(!moccuda::launch_begin(LaunchConfig(1, 32, 64 * 1024 + 1), k));
    CHECK(!moccuda::launch_begin(LaunchConfig(1, 32, 64 * 1024), (const void *)&rejected));
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);

    // Dynamic shared memory for translated kernels: never null, aligned for any CUDA type, the
    // calling thread's own buffer, grown when a launch needs more and then reused.
    void *none = moccuda::dynamic_shared_memory(0);
    CHECK(none != nullptr && (uintptr_t)none % 64 == 0);
    void *some = moccuda::dynamic_shared_memory(100000);
    CHECK(some != nullptr && (uintptr_t)some % 64 == 0);
    memset(some, 1, 100000);
    CHECK(moccuda::dynamic_shared_memory(1000) == some);

    // Folded guards: how many threads pass `first + t < limit`, converting as C++ compares.
    CHECK(moccuda::threads_below(0u, 128, 256u) == 128 && moccuda::threads_below(250, 100, 64u) == 0);
    CHECK(moccuda::threads_below(-5, 3, 64u) == 8 && moccuda::threads_through(-5, 3, 64u) == 9);
    CHECK(moccuda::threads_below(0u, -1, 64u) == 64);  // -1 converts to UINT_MAX: every thread
    CHECK(moccuda::threads_below(10.5f, 12.0f, 64u) == 2);

    // Streams: the default ones and live ones are accepted, a destroyed one is not.
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream) == cudaSuccess);
    CHECK(moccuda::launch_begin(LaunchConfig(1, 1, 0, stream)));
    CHECK(moccuda::launch_begin(LaunchConfig(1, 1, 0, cudaStreamPerThread)));
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(!moccuda::launch_begin(LaunchConfig(1, 1, 0, stream)));
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    return 0;
}

static int memory()
{
    size_t free0, total;
    CHECK(cudaMemGetInfo(&free0, &total) == cudaSuccess && total == 16945512448ull && free0 == total);

    int *d = nullptr;
    CHECK(cudaMalloc(&d, 16 * sizeof(int)) == cudaSuccess && d != nullptr);
    CHECK(((uintptr_t)d) % 256 == 0);
    size_t free1;
    CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess && free0 - free1 == 16 * sizeof(int));
    CHECK(cudaMemset(d, 0xff, 16 * sizeof(int)) == cudaSuccess && d[0] == -1 && d[15] == -1);
    CHECK(cudaMemset(d, 0, 4) == cudaSuccess && d[0] == 0 && d[1] == -1);
    int h[16], back[16];
    for (int i = 0; i < 16; ++i)
        h[i] = i * i;
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess && d[7] == 49);
    CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess && back[15] == 225);
    CHECK(cudaMemcpy(d + 8, d, 8 * sizeof(int), cudaMemcpyDeviceToDevice) == cudaSuccess && d[9] == 1);
    CHECK(cudaMemcpy(back, h, sizeof h, cudaMemcpyDefault) == cudaSuccess && back[3] == 9);
    CHECK(cudaMemcpy(d, d + 1, 4 * sizeof(int), cudaMemcpyDeviceToDevice) == cudaSuccess && d[0] == 1 && d[3] == 16);
    CHECK(cudaMemcpy(nullptr, h, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemcpyAsync(back, d, 4, cudaMemcpyDeviceToHost, 0) == cudaSuccess && back[0] == 1);
    CHECK(cudaMemsetAsync(d, 0, 4) == cudaSuccess && d[0] == 0);
    CHECK(cudaFree(d + 1) == cudaErrorInvalidValue);  // not the start of the allocation
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFree(d) == cudaErrorInvalidValue);  // twice
    CHECK(cudaFree(nullptr) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    // Sizes: zero gives a null pointer; more than the device has fails cleanly.
    void *p = &free0;
    CHECK(cudaMalloc(&p, 0) == cudaSuccess && p == nullptr);
    p = &free0;
    CHECK(cudaMalloc(&p, 17000000000ull) == cudaErrorMemoryAllocation && p == nullptr);
    CHECK(cudaMalloc((void **)nullptr, 16) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    // Pitched 2D memory.
    char *image;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&image, &pitch, 100, 3) == cudaSuccess && pitch >= 100 && pitch % 256 == 0);
    char rows[3][100];
    for (int r = 0; r < 3; ++r)
        memset(rows[r], 'a' + r, 100);
    CHECK(cudaMemset2D(image, pitch, 'z', pitch, 3) == cudaSuccess);
    CHECK(cudaMemcpy2D(image, pitch, rows, 100, 100, 3, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(image[0] == 'a' && image[pitch + 99] == 'b' && image[2 * pitch] == 'c' && image[100] == 'z');
    char out[3][50];
    CHECK(cudaMemcpy2D(out, 50, image + 10, pitch, 50, 3, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(out[0][0] == 'a' && out[1][49] == 'b' && out[2][0] == 'c');
    CHECK(cudaMemcpy2D(out, 50, image, pitch, 60, 3, cudaMemcpyDeviceToHost) == cudaErrorInvalidPitchValue);
    CHECK(cudaMemcpy2D(out, 50, image, pitch, 50, 3, (cudaMemcpyKind)9) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaFree(image) == cudaSuccess);

    // Pinned and managed memory, and what cudaPointerGetAttributes makes of each pointer.
    float *pinned, *managed, *device;
    CHECK(cudaMallocHost(&pinned, 64) == cudaSuccess);
    CHECK(cudaHostAlloc(&managed, 64, 0x80) == cudaErrorInvalidValue);
    CHECK(cudaMallocManaged(&managed, 64) == cudaSuccess);
    CHECK(cudaMalloc(&device, 64) == cudaSuccess);
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, device + 3) == cudaSuccess && a.type == cudaMemoryTypeDevice);
    CHECK(a.device == 0 && a.devicePointer == device + 3 && a.hostPointer == nullptr);
    CHECK(cudaPointerGetAttributes(&a, managed) == cudaSuccess && a.type == cudaMemoryTypeManaged);
    CHECK(a.hostPointer == managed && a.devicePointer == managed);
    CHECK(cudaPointerGetAttributes(&a, pinned + 15) == cudaSuccess && a.type == cudaMemoryTypeHost);
    CHECK(cudaPointerGetAttributes(&a, pinned + 16) == cudaSuccess && a.type == cudaMemoryTypeUnregistered);
    CHECK(cudaPointerGetAttributes(&a, h) == cudaSuccess && a.type == cudaMemoryTypeUnregistered);
    CHECK(cudaFree(pinned) == cudaErrorInvalidValue);     // pinned memory goes to cudaFreeHost
    CHECK(cudaFreeHost(device) == cudaErrorInvalidValue);  // and device memory to cudaFree
    void *mapped;
    CHECK(cudaHostGetDevicePointer(&mapped, pinned, 0) == cudaSuccess && mapped == pinned);
    CHECK(cudaFreeHost(pinned) == cudaSuccess && cudaFree(managed) == cudaSuccess && cudaFree(device) == cudaSuccess);

    // Registering the program's own memory.
    CHECK(cudaHostRegister(h, sizeof h, cudaHostRegisterDefault) == cudaSuccess);
    CHECK(cudaHostRegister(h + 4, 4, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaPointerGetAttributes(&a, h + 4) == cudaSuccess && a.type == cudaMemoryTypeHost);
    CHECK(cudaHostUnregister(h) == cudaSuccess);
    CHECK(cudaHostUnregister(h) == cudaErrorHostMemoryNotRegistered);

    // cudaDeviceReset releases every allocation.
    CHECK(cudaMalloc(&d, 1024) == cudaSuccess);
    CHECK(cudaDeviceReset() == cudaSuccess);
    CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess && free1 == total);
    CHECK(cudaFree(d) == cudaErrorInvalidValue);
    cudaGetLastError();
    return 0;
}

struct Params {
    int n;
    double scale[3];
};
__constant__ float coefficients[8];
__device__ Params params;
__device__ int *device_pointer;

static int symbols()
{
    float c[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {};
    CHECK(cudaMemcpyToSymbol(coefficients, c, sizeof c) == cudaSuccess && coefficients[7] == 8);
    CHECK(cudaMemcpyFromSymbol(back, coefficients, 2 * sizeof(float), 4 * sizeof(float)) == cudaSuccess);
    CHECK(back[0] == 5 && back[1] == 6 && back[2] == 0);
    CHECK(cudaMemcpyToSymbol(coefficients, c, 2 * sizeof(float), 6 * sizeof(float)) == cudaSuccess);
    CHECK(coefficients[6] == 1 && coefficients[7] == 2 && coefficients[5] == 6);
    // Past the end of the symbol, or the wrong direction.
    CHECK(cudaMemcpyToSymbol(coefficients, c, sizeof c, sizeof(float)) == cudaErrorInvalidValue);
    CHECK(cudaMemcpyFromSymbol(back, coefficients, 4, sizeof coefficients) == cudaErrorInvalidValue);
    CHECK(cudaMemcpyToSymbol(coefficients, c, 4, 0, cudaMemcpyDeviceToHost) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaMemcpyFromSymbol(back, coefficients, 4, 0, cudaMemcpyHostToDevice) == cudaErrorInvalidMemcpyDirection);
    CHECK(coefficients[0] == 1);
    CHECK(cudaGetLastError() == cudaErrorInvalidMemcpyDirection);

    Params host_params = {3, {0.5, 1.5, 2.5}}, read_params = {};
    CHECK(cudaMemcpyToSymbol(params, &host_params, sizeof host_params) == cudaSuccess);
    CHECK(cudaMemcpyFromSymbolAsync(&read_params, params, sizeof read_params, 0, cudaMemcpyDeviceToHost, 0) == cudaSuccess);
    CHECK(read_params.n == 3 && read_params.scale[2] == 2.5);
    // A pointer variable as the symbol: the pointer itself is copied.
    int target = 5, *pointer = &target;
    CHECK(cudaMemcpyToSymbol(device_pointer, &pointer, sizeof pointer) == cudaSuccess && *device_pointer == 5);
    // The C API form, by address.
    CHECK(cudaMemcpyToSymbol((const void *)&params, &host_params, sizeof(int)) == cudaSuccess);
    void *address = nullptr;
    size_t size = 0;
    CHECK(cudaGetSymbolAddress(&address, coefficients) == cudaSuccess && address == (void *)coefficients);
    CHECK(cudaGetSymbolSize(&size, params) == cudaSuccess && size == sizeof(Params));
    CHECK(cudaMemcpyToSymbol((const void *)nullptr, c, 4) == cudaErrorInvalidSymbol);
    cudaGetLastError();
    return 0;
}

static void CUDART_CB on_stream(cudaStream_t, cudaError_t status, void *data)
{
    *static_cast<int *>(data) += status == cudaSuccess ? 1 : 100;
}
static void on_host(void *data) { *static_cast<int *>(data) += 10; }

static int events_and_streams()
{
    cudaEvent_t start, stop, untimed;
    CHECK(cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess);
    CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle);  // never recorded
    CHECK(cudaEventQuery(start) == cudaSuccess);
    CHECK(cudaEventRecord(start) == cudaSuccess);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    CHECK(cudaEventRecord(stop, 0) == cudaSuccess);
    CHECK(cudaEventSynchronize(stop) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
    printf("elapsed %.3f ms\n", ms);
    CHECK(ms >= 29.0f && ms < 5000.0f);
    float reverse = 0;
    CHECK(cudaEventElapsedTime(&reverse, stop, start) == cudaSuccess && reverse == -ms);
    CHECK(cudaEventRecord(untimed) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ms, start, untimed) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventElapsedTime(nullptr, start, stop) == cudaErrorInvalidValue);
    CHECK(cudaEventCreateWithFlags(&untimed, cudaEventInterprocess) == cudaErrorInvalidValue);
    CHECK(cudaEventDestroy(stop) == cudaSuccess);
    CHECK(cudaEventDestroy(stop) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventRecord(stop) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle);

    cudaStream_t stream, fast;
    CHECK(cudaStreamCreate(&stream) == cudaSuccess);
    CHECK(cudaStreamCreateWithPriority(&fast, cudaStreamNonBlocking, -100) == cudaSuccess);
    int least = 1, greatest = 1, priority = 1;
    unsigned int flags = 7;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess && greatest <= least);
    CHECK(cudaStreamGetPriority(fast, &priority) == cudaSuccess && priority == greatest);
    CHECK(cudaStreamGetFlags(fast, &flags) == cudaSuccess && flags == cudaStreamNonBlocking);
    CHECK(cudaStreamCreateWithFlags(&fast, 0x40) == cudaErrorInvalidValue);
    CHECK(cudaEventRecord(start, stream) == cudaSuccess);
    CHECK(cudaStreamWaitEvent(stream, start, 0) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess && cudaStreamQuery(stream) == cudaSuccess);
    CHECK(cudaStreamSynchronize(0) == cudaSuccess && cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess);
    int calls = 0;
    CHECK(cudaStreamAddCallback(stream, on_stream, &calls, 0) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess && calls == 1);
    CHECK(cudaLaunchHostFunc(stream, on_host, &calls) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess && calls == 11);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaStreamSynchronize(stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaMemcpyAsync(&least, &greatest, sizeof least, cudaMemcpyHostToHost, stream) == cudaErrorInvalidResourceHandle);
    CHECK(cudaStreamDestroy(0) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    return 0;
}

// ---- asynchrony: host functions on streams, with bounded waits so that a wrong runtime fails
// (a check sees `timed_out`) instead of hanging.  Nothing here asserts on how long anything took.

static const auto patience = std::chrono::seconds(30);

// Both streams run `meet`, which waits for the other to arrive: done only if they overlap.
struct Meeting {
    std::mutex mutex;
    std::condition_variable changed;
    int arrived = 0;
    bool timed_out = false;
};

static void meet(void *data)
{
    Meeting *m = static_cast<Meeting *>(data);
    std::unique_lock<std::mutex> lock(m->mutex);
    ++m->arrived;
    m->changed.notify_all();
    if (!m->changed.wait_for(lock, patience, [m] { return m->arrived >= 2; }))
        m->timed_out = true;
}

// A gate the test opens: work queued behind a closed gate cannot have run.
struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool open = false;
    bool timed_out = false;
    std::vector<std::string> log;  // what ran, in order

    void note(const std::string &what)
    {
        std::lock_guard<std::mutex> guard(mutex);
        log.push_back(what);
    }
    void release()
    {
        {
            std::lock_guard<std::mutex> guard(mutex);
            open = true;
        }
        changed.notify_all();
    }
    bool ran(const std::string &what)
    {
        std::lock_guard<std::mutex> guard(mutex);
        for (const std::string &entry : log)
            if (entry == what)
                return true;
        return false;
    }
};

static void pass_gate(void *data)
{
    Gate *g = static_cast<Gate *>(data);
    std::unique_lock<std::mutex> lock(g->mutex);
    if (!g->changed.wait_for(lock, patience, [g] { return g->open; }))
        g->timed_out = true;
    g->log.push_back("gate");
}

static void note_a(void *data) { static_cast<Gate *>(data)->note("a"); }
static void note_b(void *data) { static_cast<Gate *>(data)->note("b"); }
static void note_c(void *data) { static_cast<Gate *>(data)->note("c"); }
static void note_default(void *data) { static_cast<Gate *>(data)->note("default"); }

static void gate_kernel(moccuda::LaunchConfig launch, Gate *g)
{
    if (!moccuda::launch_begin(launch))
        return;
    g->note("kernel");
    moccuda::launch_end(launch);
}

static int async_streams()
{
    cudaStream_t a, b, free_running;
    CHECK(cudaStreamCreate(&a) == cudaSuccess && cudaStreamCreate(&b) == cudaSuccess);
    CHECK(cudaStreamCreateWithFlags(&free_running, cudaStreamNonBlocking) == cudaSuccess);

    // Overlap: serialized streams would leave each `meet` waiting for the other.
    Meeting meeting;
    CHECK(cudaLaunchHostFunc(a, meet, &meeting) == cudaSuccess);
    CHECK(cudaLaunchHostFunc(b, meet, &meeting) == cudaSuccess);
    CHECK(cudaStreamSynchronize(a) == cudaSuccess && cudaStreamSynchronize(b) == cudaSuccess);
    CHECK(!meeting.timed_out && meeting.arrived == 2);

    // Order within a stream, asynchrony, queries, and an event ordering another stream.
    {
        Gate gate;
        cudaEvent_t after_a;
        CHECK(cudaEventCreate(&after_a) == cudaSuccess);
        CHECK(cudaLaunchHostFunc(a, pass_gate, &gate) == cudaSuccess);  // returns at once
        CHECK(cudaLaunchHostFunc(a, note_a, &gate) == cudaSuccess);
        CHECK(cudaEventRecord(after_a, a) == cudaSuccess);
        CHECK(cudaStreamWaitEvent(b, after_a, 0) == cudaSuccess);
        CHECK(cudaLaunchHostFunc(b, note_b, &gate) == cudaSuccess);
        CHECK(cudaStreamQuery(a) == cudaErrorNotReady && cudaStreamQuery(b) == cudaErrorNotReady);
        CHECK(cudaEventQuery(after_a) == cudaErrorNotReady);
        CHECK(cudaGetLastError() == cudaSuccess);  // "not ready" is an answer, not an error
        float ms = 0;
        cudaEvent_t done;  // recorded on the per-thread stream, which does not wait for a
        CHECK(cudaEventCreate(&done) == cudaSuccess && cudaEventRecord(done, cudaStreamPerThread) == cudaSuccess);
        CHECK(cudaEventQuery(done) == cudaSuccess);
        CHECK(cudaEventElapsedTime(&ms, done, after_a) == cudaErrorNotReady);
        CHECK(!gate.ran("a") && !gate.ran("b"));
        gate.release();
        CHECK(cudaStreamSynchronize(b) == cudaSuccess);
        CHECK(gate.ran("b") && gate.ran("a"));                     // b waited for a's event
        CHECK(cudaEventQuery(after_a) == cudaSuccess);
        CHECK(cudaStreamSynchronize(a) == cudaSuccess);
        CHECK(!gate.timed_out);
        CHECK((gate.log == std::vector<std::string>{"gate", "a", "b"}));
        CHECK(cudaEventDestroy(after_a) == cudaSuccess && cudaEventDestroy(done) == cudaSuccess);
    }

    // The legacy default stream waits for blocking streams; a non-blocking stream is not waited
    // for.  A helper thread opens the gate, since the default stream's work blocks this thread.
    {
        Gate gate;
        CHECK(cudaLaunchHostFunc(a, pass_gate, &gate) == cudaSuccess);
        CHECK(cudaLaunchHostFunc(a, note_a, &gate) == cudaSuccess);
        std::thread opener([&gate] { gate.release(); });
        CHECK(cudaLaunchHostFunc(0, note_default, &gate) == cudaSuccess);  // runs now, after a
        opener.join();
        CHECK((gate.log == std::vector<std::string>{"gate", "a", "default"}));
    }
    {
        Gate gate;
        CHECK(cudaLaunchHostFunc(free_running, pass_gate, &gate) == cudaSuccess);
        CHECK(cudaLaunchHostFunc(0, note_default, &gate) == cudaSuccess);  // does not wait for it
        CHECK(cudaLaunchHostFunc(cudaStreamPerThread, note_c, &gate) == cudaSuccess);
        CHECK(gate.ran("default") && gate.ran("c") && !gate.ran("gate"));
        gate.release();
        CHECK(cudaDeviceSynchronize() == cudaSuccess);  // waits for every stream
        CHECK(gate.ran("gate") && !gate.timed_out);
    }

    // A kernel (run on the calling thread) waits for the work queued before it on its stream, and
    // a callback after it sees the kernel done.
    {
        Gate gate;
        int calls = 0;
        CHECK(cudaLaunchHostFunc(b, pass_gate, &gate) == cudaSuccess);
        std::thread opener([&gate] { gate.release(); });
        gate_kernel(moccuda::LaunchConfig(1, 1, 0, b), &gate);
        opener.join();
        CHECK(cudaStreamAddCallback(b, on_stream, &calls, 0) == cudaSuccess);
        CHECK(cudaStreamSynchronize(b) == cudaSuccess && calls == 1);
        CHECK((gate.log == std::vector<std::string>{"gate", "kernel"}));
        CHECK(cudaGetLastError() == cudaSuccess);
    }

    // Destroying a stream with queued work lets the work finish.
    {
        Gate gate;
        cudaStream_t doomed;
        CHECK(cudaStreamCreate(&doomed) == cudaSuccess);
        CHECK(cudaLaunchHostFunc(doomed, pass_gate, &gate) == cudaSuccess);
        CHECK(cudaLaunchHostFunc(doomed, note_b, &gate) == cudaSuccess);
        gate.release();
        CHECK(cudaStreamDestroy(doomed) == cudaSuccess);
        CHECK((gate.log == std::vector<std::string>{"gate", "b"}));
    }
    CHECK(cudaStreamDestroy(a) == cudaSuccess && cudaStreamDestroy(b) == cudaSuccess);
    CHECK(cudaStreamDestroy(free_running) == cudaSuccess);
    return 0;
}

// Exported for programs built against CUDA 12's headers; MocCUDA's headers do not declare it.
extern "C" cudaError_t cudaGetDeviceProperties_v2(void *prop, int device);

static int device()
{
    int count = 0, current = -1, version = 0;
    CHECK(cudaGetDeviceCount(&count) == cudaSuccess && count == 1);
    CHECK(cudaSetDevice(0) == cudaSuccess && cudaGetDevice(&current) == cudaSuccess && current == 0);
    CHECK(cudaRuntimeGetVersion(&version) == cudaSuccess && version == CUDART_VERSION);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    printf("device: %s\n", prop.name);
    CHECK(strstr(prop.name, "MocCUDA") != nullptr && strstr(prop.name, "V100") != nullptr);
    CHECK(prop.major == 7 && prop.minor == 0 && prop.multiProcessorCount == 80 && prop.warpSize == 32);
    CHECK(prop.maxThreadsPerBlock == 1024 && prop.maxThreadsDim[2] == 64 && prop.maxGridSize[1] == 65535);
    CHECK(prop.sharedMemPerBlock == 49152 && prop.totalGlobalMem == 16945512448ull && prop.totalConstMem == 65536);
    CHECK(prop.clockRate == 1530000 && prop.deviceOverlap == 1);  // pre-CUDA 13 fields still there
    int value = 0;
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess && value == 80);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess && value == 98304);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess && value == 7);
    // Layouts of CUDA 13's structs, and CUDA 12's cudaDeviceProp for cudaGetDeviceProperties_v2.
    CHECK(sizeof(cudaDeviceProp) == 1008 && offsetof(cudaDeviceProp, totalGlobalMem) == 288);
    CHECK(offsetof(cudaDeviceProp, major) == 360 && offsetof(cudaDeviceProp, multiProcessorCount) == 384);
    CHECK(offsetof(cudaDeviceProp, sharedMemPerBlockOptin) == 672 && offsetof(cudaDeviceProp, reserved) == 816);
    CHECK(sizeof(cudaPointerAttributes) == 88 && offsetof(cudaPointerAttributes, hostPointer) == 16);
    unsigned char v12[1032];
    memset(v12, 0xab, sizeof v12);
    CHECK(cudaGetDeviceProperties_v2(v12, 0) == cudaSuccess);
    int clock_rate, sm_count;
    memcpy(&clock_rate, v12 + 348, sizeof clock_rate);
    memcpy(&sm_count, v12 + 388, sizeof sm_count);
    CHECK(strstr((const char *)v12, "MocCUDA") != nullptr && clock_rate == 1530000 && sm_count == 80);
    CHECK(v12[sizeof v12 - 1] == 0xab);  // nothing written past CUDA 12's named fields

    // Settings are validated and remembered.
    cudaFuncCache cache;
    size_t limit = 0;
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1) == cudaSuccess);
    CHECK(cudaDeviceGetCacheConfig(&cache) == cudaSuccess && cache == cudaFuncCachePreferL1);
    CHECK(cudaDeviceSetCacheConfig((cudaFuncCache)17) == cudaErrorInvalidValue);
    CHECK(cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferShared) == cudaSuccess);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost) == cudaSuccess);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 26) == cudaSuccess);
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize) == cudaSuccess && limit == 1 << 26);
    CHECK(cudaDeviceSetLimit((cudaLimit)99, 1) == cudaErrorUnsupportedLimit);
    int blocks = 0, min_grid = 0, block_size = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 256, 0) == cudaSuccess && blocks == 8);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, kernel) == cudaSuccess);
    CHECK(block_size > 0 && block_size <= 1024 && min_grid >= 80);
    cudaGetLastError();
    return 0;
}

// A float maximum and a double minimum by compare-and-swap loops, as CUDA programs write them.
static float atomic_max_float(float *address, float value)
{
    int *bits = (int *)address;
    int old = *bits, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value)
            break;
        old = atomicCAS(bits, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

static double atomic_min_double(double *address, double value)
{
    unsigned long long *bits = (unsigned long long *)address;
    unsigned long long old = *bits, assumed;
    do {
        assumed = old;
        old = atomicCAS(bits, assumed, (unsigned long long)__double_as_longlong(fmin(value, __longlong_as_double((long long)assumed))));
    } while (assumed != old);
    return __longlong_as_double((long long)old);
}

static int atomics()
{
    const int n = 400000;
    int count = 0, sub = n, lowest = INT_MAX, highest = INT_MIN, scoped = 0;
    unsigned int wrap = 0, xored = 0, ored = 0, anded = ~0u, down = 0;
    unsigned long long big = 0, big_max = 0;
    long long signed_min = 0;
    float fsum = 0.0f, fmax_value = -1.0f;
    double dsum = 0.0, dmin_value = 1e300;
#pragma omp parallel for num_threads(4) schedule(dynamic, 64)
    for (int i = 0; i < n; ++i) {
        int key = (int)((i * 7919LL) % n);  // a permutation of 0 .. n-1
        atomicAdd(&count, 1);
        atomicSub(&sub, 1);
        atomicMin(&lowest, key - 5);
        atomicMax(&highest, key + 5);
        atomicInc(&wrap, 999u);
        atomicDec(&down, 9u);
        atomicXor(&xored, (unsigned int)i);
        atomicOr(&ored, 1u << (i % 32));
        atomicAnd(&anded, ~(1u << (i % 31)));
        atomicAdd(&big, 3ull);
        atomicMax(&big_max, (unsigned long long)key << 33);
        atomicMin(&signed_min, -(long long)key);
        atomicAdd(&fsum, 1.0f);
        atomicAdd(&dsum, 0.25);
        atomicAdd_block(&scoped, 1);
        atomicAdd_system(&scoped, 1);
        atomic_max_float(&fmax_value, key * 0.5f);
        atomic_min_double(&dmin_value, 1.0 + key);
    }
    unsigned int expected_xor = 0;
    for (int i = 0; i < n; ++i)
        expected_xor ^= (unsigned int)i;
    CHECK(count == n && sub == 0 && scoped == 2 * n);
    CHECK(lowest == -5 && highest == n - 1 + 5);
    CHECK(wrap == (unsigned int)(n % 1000));
    CHECK(down == (unsigned int)((10 - n % 10) % 10));  // counts down through 9 .. 0, wrapping to 9
    CHECK(xored == expected_xor && ored == ~0u && anded == (1u << 31));
    CHECK(big == 3ull * n && big_max == (unsigned long long)(n - 1) << 33 && signed_min == -(long long)(n - 1));
    CHECK(fsum == (float)n && dsum == 0.25 * n);
    CHECK(fmax_value == (n - 1) * 0.5f && dmin_value == 1.0);

    // Return values: the old value, as CUDA's.
    int x = 5;
    CHECK(atomicAdd(&x, 2) == 5 && x == 7);
    CHECK(atomicExch(&x, 1) == 7 && x == 1);
    CHECK(atomicCAS(&x, 0, 9) == 1 && x == 1);  // no swap: the comparison failed
    CHECK(atomicCAS(&x, 1, 9) == 1 && x == 9);
    float f = 1.5f;
    CHECK(atomicExch(&f, 2.5f) == 1.5f && atomicAdd(&f, 1.0f) == 2.5f && f == 3.5f);
    unsigned int u = 10;
    CHECK(atomicInc(&u, 10) == 10 && u == 0 && atomicDec(&u, 4) == 0 && u == 4);
    unsigned short s = 3;
    CHECK(atomicCAS(&s, (unsigned short)3, (unsigned short)4) == 3 && s == 4);
    __threadfence();
    __threadfence_block();
    __threadfence_system();
    return 0;
}

static int types()
{
    CHECK(sizeof(char1) == 1 && sizeof(char2) == 2 && alignof(char2) == 2 && sizeof(char3) == 3 && alignof(char3) == 1);
    CHECK(sizeof(uchar4) == 4 && alignof(uchar4) == 4 && sizeof(short3) == 6 && alignof(short4) == 8);
    CHECK(sizeof(int2) == 8 && alignof(int2) == 8 && sizeof(int3) == 12 && alignof(int3) == 4);
    CHECK(sizeof(uint4) == 16 && alignof(uint4) == 16 && sizeof(uint3) == 12);
    CHECK(sizeof(float2) == 8 && alignof(float2) == 8 && sizeof(float3) == 12 && alignof(float3) == 4);
    CHECK(sizeof(float4) == 16 && alignof(float4) == 16);
    CHECK(sizeof(double2) == 16 && alignof(double2) == 16 && sizeof(double3) == 24 && alignof(double3) == 8);
    CHECK(sizeof(double4) == 32 && alignof(double4) == 16 && alignof(double4_32a) == 32);
    CHECK(sizeof(long2) == 16 && alignof(long2) == 16 && sizeof(longlong4) == 32 && alignof(ulonglong4) == 16);
    CHECK(sizeof(dim3) == 12 && alignof(dim3) == 4);

    float4 f = make_float4(1, 2, 3, 4);
    int2 i = make_int2(-1, 2);
    uchar3 c = make_uchar3(250, 1, 2);
    CHECK(f.x == 1 && f.w == 4 && i.x == -1 && i.y == 2 && c.x == 250);
    dim3 d;
    CHECK(d.x == 1 && d.y == 1 && d.z == 1);
    dim3 g(4, 2);
    uint3 u = g;
    dim3 back = u;
    CHECK(g.z == 1 && u.x == 4 && u.y == 2 && back.y == 2);
    const uint3 index = {1, 2, 3};  // how translated kernels build blockIdx
    CHECK(index.z == 3);
    return 0;
}

static int math()
{
    volatile float half = 0.5f, big = 1e20f, nan = NAN;
    volatile double dhalf = 2.5;
    CHECK(__popc(0xf0f0u) == 8 && __popcll(~0ull) == 64);
    CHECK(__clz(1) == 31 && __clz(0) == 32 && __clz(-1) == 0 && __clzll(1) == 63);
    CHECK(__ffs(0) == 0 && __ffs(8) == 4 && __ffsll(1ll << 40) == 41);
    CHECK(__brev(1u) == 0x80000000u && __brev(0x12345678u) == 0x1e6a2c48u && __brevll(1ull) == 1ull << 63);
    CHECK(__byte_perm(0x33221100u, 0x77665544u, 0x1076u) == 0x11007766u);
    CHECK(__funnelshift_l(0x80000000u, 1u, 1) == 3u && __funnelshift_r(2u, 1u, 1) == 0x80000001u);
    CHECK(__mul24(-3, 5) == -15 && __umul24(0x1000001u, 3u) == 3u);
    CHECK(__mulhi(0x40000000, 8) == 2 && __umulhi(0xffffffffu, 2u) == 1u);
    CHECK(__umul64hi(~0ull, 2ull) == 1ull && __sad(3, 10, 1u) == 8u && __usad(10u, 3u, 0u) == 7u);
    CHECK(__hadd(-3, 0) == -2 && __rhadd(1, 2) == 2 && __uhadd(0xffffffffu, 1u) == 0x80000000u);
    // Conversions: rounding modes, and saturation as on the GPU.
    CHECK(__float2int_rn(2.5f) == 2 && __float2int_rn(3.5f) == 4 && __float2int_rn(-half) == 0);
    CHECK(__float2int_rz(-2.7f) == -2 && __float2int_ru(2.1f) == 3 && __float2int_rd(-2.1f) == -3);
    CHECK(__float2int_rz(big) == INT_MAX && __float2int_rz(-big) == INT_MIN && __float2int_rn(nan) == 0);
    CHECK(__float2uint_rn(-5.0f) == 0u && __double2int_rn(dhalf) == 2 && __double2ll_rz(-1e30) == LLONG_MIN);
    CHECK(__int_as_float(0x3f800000) == 1.0f && __float_as_int(2.0f) == 0x40000000);
    CHECK(__float_as_uint(-0.0f) == 0x80000000u && __double_as_longlong(1.0) == 0x3ff0000000000000ll);
    CHECK(__hiloint2double(__double2hiint(3.25), __double2loint(3.25)) == 3.25);
    // Fast and extended math.
    CHECK(fabsf(__expf(1.0f) - 2.7182817f) < 1e-6f && fabsf(__logf(8.0f) - logf(8.0f)) == 0.0f);
    CHECK(fabsf(__powf(2.0f, 10.0f) - 1024.0f) < 1e-3f && __sinf(0.0f) == 0.0f && __cosf(0.0f) == 1.0f);
    float s = 0, c = 0;
    __sincosf(0.0f, &s, &c);
    sincosf(0.0f, &s, &c);
    CHECK(s == 0.0f && c == 1.0f && exp10f(2.0f) == 100.0f && __exp10f(1.0f) == 10.0f);
    CHECK(__fdividef(1.0f, 4.0f) == 0.25f && __frcp_rn(4.0f) == 0.25f && __fsqrt_rn(9.0f) == 3.0f);
    CHECK(__saturatef(1.5f) == 1.0f && __saturatef(-1.0f) == 0.0f && __saturatef(nan) == 0.0f);
    CHECK(rsqrtf(4.0f) == 0.5f && rsqrt(16.0) == 0.25 && rcbrt(8.0) == 0.5);
    CHECK(sinpi(1.0) == 0.0 && sinpi(0.5) == 1.0 && cospi(0.5) == 0.0 && cospi(1.0) == -1.0 && sinpif(-2.0f) == 0.0f);
    double sp, cp;
    sincospi(1.5, &sp, &cp);
    CHECK(sp == -1.0 && cp == 0.0);
    CHECK(norm3df(2, 3, 6) == 7.0f && fabsf(rnorm3df(2, 3, 6) - 1.0f / 7.0f) < 1e-7f && norm4d(1, 1, 1, 1) == 2.0);
    float v[3] = {2, 3, 6};
    CHECK(normf(3, v) == 7.0f);
    CHECK(fabs(erfinv(erf(0.3)) - 0.3) < 1e-12 && fabs(erfcinv(erfc(4.0)) - 4.0) < 1e-9);
    CHECK(fabs(normcdfinv(0.975) - 1.959963984540054) < 1e-9 && fabs(normcdf(0.0) - 0.5) < 1e-15);
    CHECK(std::isinf(erfinv(1.0)) && std::isnan(erfinv(2.0)) && fabs(erfcx(30.0) / 0.018795888861416751 - 1) < 1e-14);
    CHECK(fabs(erfcx(3.0) / 0.17900115118138995 - 1) < 1e-14 && erfcx(-30.0) > 1e300);
    // CUDA's global min and max.
    CHECK(min(3, -4) == -4 && max(3u, 5u) == 5u && min(-1, 2u) == 2u && max(2.5f, 1.0f) == 2.5f);
    CHECK(min(1.0, 0.5f) == 0.5 && max(-1ll, 3ll) == 3ll && min(7ul, 9ul) == 7ul && max(nan, 1.0f) == 1.0f);
    const int loaded[2] = {41, 42};
    CHECK(__ldg(&loaded[1]) == 42 && __ldg(loaded) == 41);
    long long t0 = clock64();
    CHECK(clock64() >= t0);
    return 0;
}

// Copies and fills large enough that the runtime maps the destination's pages first, into fresh
// memory and into memory already written, at destinations and sizes that are not page-aligned:
// every byte lands where it belongs and none around it changes.
static int large_copies()
{
    const size_t n = (size_t(9) << 20) + 12345;  // over the runtime's 4 MiB, not a whole page count
    std::vector<unsigned char> host(n);
    for (size_t i = 0; i < n; ++i)
        host[i] = (unsigned char)(i * 2654435761u >> 13);
    unsigned char *d = nullptr;
    CHECK(cudaMalloc(&d, n + 64) == cudaSuccess);
    CHECK(cudaMemcpy(d + 3, host.data(), n, cudaMemcpyHostToDevice) == cudaSuccess);  // fresh pages
    CHECK(memcmp(d + 3, host.data(), n) == 0);
    CHECK(cudaMemset(d, 0x5a, 3) == cudaSuccess && d[0] == 0x5a && d[2] == 0x5a && d[3] == host[0]);
    std::vector<unsigned char> back(n + 2, 0xee);
    CHECK(cudaMemcpy(back.data() + 1, d + 3, n, cudaMemcpyDeviceToHost) == cudaSuccess);  // written pages
    CHECK(back[0] == 0xee && back[n + 1] == 0xee && memcmp(back.data() + 1, host.data(), n) == 0);
    unsigned char *e = nullptr;
    CHECK(cudaMalloc(&e, n) == cudaSuccess);
    CHECK(cudaMemset(e + 1, 0xa7, n - 2) == cudaSuccess);  // a fill of fresh pages
    CHECK(e[1] == 0xa7 && e[n / 2] == 0xa7 && e[n - 2] == 0xa7);
    CHECK(cudaMemcpy(e, d + 3, n, cudaMemcpyDeviceToDevice) == cudaSuccess && memcmp(e, host.data(), n) == 0);
    CHECK(cudaFree(d) == cudaSuccess && cudaFree(e) == cudaSuccess);
    return 0;
}

// Whether the VmFlags of the mapping that holds `p` (/proc/self/smaps) include `flag`.
static bool mapping_has_flag(const void *p, const char *flag)
{
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (smaps == nullptr)
        return false;
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    bool inside = false, found = false;
    char line[512];
    while (!found && fgets(line, sizeof line, smaps)) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
            inside = start <= address && address < end;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            std::string flags = std::string(" ") + (line + 8);
            found = flags.find(std::string(" ") + flag + " ") != std::string::npos
                    || flags.find(std::string(" ") + flag + "\n") != std::string::npos;
            inside = false;
        }
    }
    fclose(smaps);
    return found;
}

static int huge_pages()
{
    const size_t huge = size_t(2) << 20;
    const size_t n = 5 * huge + 100;  // over 2 MiB, not a whole number of them
    char *d = nullptr, *small = nullptr;
    CHECK(cudaMalloc(&d, n) == cudaSuccess);
    CHECK(reinterpret_cast<uintptr_t>(d) % huge == 0);
#ifdef MADV_HUGEPAGE
    CHECK(mapping_has_flag(d, "hg"));  // advised: the kernel may back it with huge pages
#endif
    CHECK(cudaMalloc(&small, 4096) == cudaSuccess && reinterpret_cast<uintptr_t>(small) % 256 == 0);
    CHECK(!mapping_has_flag(small, "hg"));  // small allocations share the heap's pages
    CHECK(cudaMemset(d, 0x3c, n) == cudaSuccess && d[0] == 0x3c && d[n - 1] == 0x3c);
    size_t free_bytes = 0, total_bytes = 0, before = 0;
    CHECK(cudaMemGetInfo(&before, &total_bytes) == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && free_bytes == before + n);  // counted as asked
    CHECK(cudaFree(small) == cudaSuccess);
    return 0;
}

int main(int argc, char **argv)
{
    const std::string section = argc > 1 ? argv[1] : "";
    int status = 2;
    if (section == "errors")
        status = errors();
    else if (section == "launch")
        status = launch();
    else if (section == "memory")
        status = memory();
    else if (section == "large_copies")
        status = large_copies();
    else if (section == "huge_pages")
        status = huge_pages();
    else if (section == "symbols")
        status = symbols();
    else if (section == "events")
        status = events_and_streams();
    else if (section == "async")
        status = async_streams();
    else if (section == "device")
        status = device();
    else if (section == "atomics")
        status = atomics();
    else if (section == "types")
        status = types();
    else if (section == "math")
        status = math();
    else
        printf("unknown section '%s'\n", section.c_str());
    if (status == 0)
        printf("PASS\n");
    return status;
}
