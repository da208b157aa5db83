// Host API beyond the basics: pitched 2-D/3-D memory and copies, async copies and fills on
// streams, function attributes and occupancy, launches through cudaLaunchKernel/-Ex, and the
// old API current nvcc rejects (cudaThread*, string-named symbols, removed cudaDeviceProp fields).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)
#define OK(call) CHECK((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cudaGetLastError()))

__constant__ float coeffs[8];
__device__ int counter;

__global__ void scale_rows(float *data, size_t pitch, int width, int height, float factor)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < width && y < height) {
        float *row = (float *)((char *)data + y * pitch);
        row[x] = row[x] * factor + coeffs[x % 8];
    }
}

__global__ void add_index(int *out, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += i + offset;
    if (i == 0) atomicAdd(&counter, 1);
}

int main()
{
    // ---- cudaMallocPitch + cudaMemcpy2D + constant memory by string name ----
    const int W = 37, H = 11;
    float host[H][W], back[H][W], c[8];
    for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x) host[y][x] = y * 100 + x;
    for (int k = 0; k < 8; ++k) c[k] = 0.5f * k;
    OK(cudaMemcpyToSymbol("coeffs", c, sizeof c));          // CUDA 4 style: the symbol by name
    float c_back[8];
    OK(cudaMemcpyFromSymbol(c_back, "coeffs", sizeof c));
    CHECK(memcmp(c, c_back, sizeof c) == 0, "string-named symbol round trip");
    CHECK(cudaMemcpyToSymbol("no_such_symbol", c, sizeof c) == cudaErrorInvalidSymbol, "unknown symbol name");
    cudaGetLastError();
    float *pitched; size_t pitch;
    OK(cudaMallocPitch((void **)&pitched, &pitch, W * sizeof(float), H));
    CHECK(pitch >= W * sizeof(float) && pitch % 256 == 0, "pitch %zu", pitch);
    OK(cudaMemcpy2D(pitched, pitch, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    scale_rows<<<dim3((W + 31) / 32, H), 32>>>(pitched, pitch, W, H, 2.0f);
    OK(cudaMemcpy2D(back, W * sizeof(float), pitched, pitch, W * sizeof(float), H, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x)
        CHECK(back[y][x] == host[y][x] * 2.0f + 0.5f * (x % 8), "cudaMemcpy2D/pitch (%d, %d)", x, y);

    // ---- cudaMalloc3D + cudaMemcpy3D (host -> pitched device -> host, with positions) ----
    const int X = 9, Y = 5, Z = 4;
    static short vol[Z][Y][X], out[Z][Y][X];
    for (int z = 0; z < Z; ++z) for (int y = 0; y < Y; ++y) for (int x = 0; x < X; ++x) vol[z][y][x] = (short)(z * 1000 + y * 10 + x);
    cudaPitchedPtr dvol;
    OK(cudaMalloc3D(&dvol, make_cudaExtent(X * sizeof(short), Y, Z)));
    CHECK(dvol.pitch >= X * sizeof(short) && dvol.xsize == X * sizeof(short) && dvol.ysize == Y, "cudaMalloc3D fields");
    OK(cudaMemset3D(dvol, 0, make_cudaExtent(X * sizeof(short), Y, Z)));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(vol, X * sizeof(short), X, Y);
    p.dstPtr = dvol;
    p.extent = make_cudaExtent(X * sizeof(short), Y, Z);
    p.kind = cudaMemcpyHostToDevice;
    OK(cudaMemcpy3D(&p));
    // Copy back only the sub-box x in [2, 7), y in [1, 4), z in [1, 3) into a zeroed buffer.
    memset(out, 0, sizeof out);
    memset(&p, 0, sizeof p);
    p.srcPtr = dvol;
    p.srcPos = make_cudaPos(2 * sizeof(short), 1, 1);
    p.dstPtr = make_cudaPitchedPtr(out, X * sizeof(short), X, Y);
    p.dstPos = make_cudaPos(2 * sizeof(short), 1, 1);
    p.extent = make_cudaExtent(5 * sizeof(short), 3, 2);
    p.kind = cudaMemcpyDeviceToHost;
    OK(cudaMemcpy3D(&p));
    for (int z = 0; z < Z; ++z) for (int y = 0; y < Y; ++y) for (int x = 0; x < X; ++x) {
        bool in = x >= 2 && x < 7 && y >= 1 && y < 4 && z >= 1 && z < 3;
        CHECK(out[z][y][x] == (in ? vol[z][y][x] : 0), "cudaMemcpy3D sub-box (%d, %d, %d)", x, y, z);
    }

    // ---- streams: cudaMemsetAsync, cudaMemcpyAsync, kernels, in order per stream ----
    const int n = 1000;
    int *d[2], h[2][n];
    cudaStream_t s[2];
    for (int k = 0; k < 2; ++k) {
        OK(cudaStreamCreate(&s[k]));
        OK(cudaMalloc(&d[k], n * sizeof(int)));
        OK(cudaMemsetAsync(d[k], 0, n * sizeof(int), s[k]));
        add_index<<<(n + 127) / 128, 128, 0, s[k]>>>(d[k], n, 10 * k);
        OK(cudaMemcpyAsync(h[k], d[k], n * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
    }
    for (int k = 0; k < 2; ++k) {
        OK(cudaStreamSynchronize(s[k]));
        for (int i = 0; i < n; ++i) CHECK(h[k][i] == i + 10 * k, "stream %d element %d: %d", k, i, h[k][i]);
        OK(cudaStreamDestroy(s[k]));
    }

    // ---- function attributes and occupancy ----
    OK(cudaFuncSetAttribute(add_index, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    cudaFuncAttributes attr;
    OK(cudaFuncGetAttributes(&attr, add_index));
    CHECK(attr.maxThreadsPerBlock == 1024 && attr.maxDynamicSharedSizeBytes == 64 * 1024, "cudaFuncGetAttributes %d %d",
          attr.maxThreadsPerBlock, attr.maxDynamicSharedSizeBytes);
    int min_grid = 0, block = 0, active = 0;
    OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, add_index, 0, 0));
    CHECK(block > 0 && block <= 1024 && block % 32 == 0 && min_grid > 0, "cudaOccupancyMaxPotentialBlockSize %d %d", min_grid, block);
    OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, add_index, block, 0));
    CHECK(active > 0 && active * block <= 2048, "cudaOccupancyMaxActiveBlocksPerMultiprocessor %d", active);

    // ---- launches through the runtime API ----
    int *dl, hl[n], zero = 0;
    OK(cudaMalloc(&dl, n * sizeof(int)));
    OK(cudaMemset(dl, 0, n * sizeof(int)));
    OK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
    int count = n, offset = 5;
    void *args[] = {&dl, &count, &offset};
    OK(cudaLaunchKernel(add_index, dim3((n + 255) / 256), dim3(256), args, 0, 0));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 63) / 64);
    config.blockDim = dim3(64);
    OK(cudaLaunchKernelEx(&config, add_index, dl, n, 100));
    // Cooperative: a grid that fits on the device runs; one that cannot be resident is refused.
    offset = 1000;
    OK(cudaLaunchCooperativeKernel(add_index, dim3((n + 255) / 256), dim3(256), args, 0, 0));
    CHECK(cudaLaunchCooperativeKernel(add_index, dim3(1 << 20), dim3(256), args, 0, 0) == cudaErrorCooperativeLaunchTooLarge,
          "an oversized cooperative launch is refused");
    CHECK(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge, "and recorded");
    OK(cudaMemcpy(hl, dl, sizeof hl, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(hl[i] == 3 * i + 1105, "cudaLaunchKernel/Ex/Cooperative element %d: %d", i, hl[i]);
    int launches = 0;
    OK(cudaMemcpyFromSymbol(&launches, counter, sizeof launches));
    CHECK(launches == 3, "kernel runs %d", launches);

    // ---- the old API ----
    OK(cudaThreadSetLimit(cudaLimitMallocHeapSize, 1 << 24));
    size_t heap = 0;
    OK(cudaThreadGetLimit(&heap, cudaLimitMallocHeapSize));
    CHECK(heap == (1 << 24), "cudaThreadSetLimit %zu", heap);
    OK(cudaThreadSynchronize());
    cudaDeviceProp prop;
    OK(cudaGetDeviceProperties(&prop, 0));
    CHECK(prop.clockRate > 0 && prop.memoryClockRate > 0 && prop.deviceOverlap == 1 && prop.kernelExecTimeoutEnabled == 0 &&
          prop.computeMode == cudaComputeModeDefault, "removed cudaDeviceProp fields: %d %d %d %d", prop.clockRate,
          prop.memoryClockRate, prop.deviceOverlap, prop.kernelExecTimeoutEnabled);
    OK(cudaThreadExit());
    printf("PASS\n");
    return 0;
}
