// Everything together (issue 9's "done when"): a kernel template over the block size, the value
// type and a functor type, samples a texture object, adds a __half bias, reduces with warp
// shuffles and a cooperative-groups tile (cg::reduce with the dependent operator cg::plus<T>),
// and adds each tile's sum with atomicAdd on double.  The host sums the same values in plain C++.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

template <class T>
struct Scale {
    T factor;
    __device__ T operator()(T v) const { return v * factor; }
};

template <int BLOCK, class T, class F>
__global__ void mixed_sum(cudaTextureObject_t tex, F scale, __half bias, int n, double *total, T *warp_sums)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    T v = i < n ? scale(tex1Dfetch<T>(tex, i)) + (T)__half2float(bias) : (T)0;
    // Warp level: shuffle-down reduction.
    T w = v;
    for (int offset = 16; offset > 0; offset /= 2)
        w += __shfl_down_sync(0xffffffffu, w, offset);
    if (threadIdx.x % 32 == 0)
        warp_sums[i / 32] = w;
    // Tile level: the same sum through cooperative groups.
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    T t = cg::reduce(tile, v, cg::plus<T>());
    if (tile.thread_rank() == 0)
        atomicAdd(total, (double)t);
}

int main()
{
    const int n = 3000, block = 128, grid = (n + block - 1) / block;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = (float)((i * 37) % 101) - 50.0f;
    float *d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = sizeof h;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &td, NULL) == cudaSuccess, "texture");
    double *dtotal, total = 0;
    float *dwarps, warps[grid * block / 32];
    cudaMalloc(&dtotal, sizeof(double));
    cudaMalloc(&dwarps, sizeof warps);
    cudaMemcpy(dtotal, &total, sizeof total, cudaMemcpyHostToDevice);
    Scale<float> scale = {2.0f};
    mixed_sum<block, float><<<grid, block>>>(tex, scale, __float2half(0.5f), n, dtotal, dwarps);
    cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost);
    cudaMemcpy(warps, dwarps, sizeof warps, cudaMemcpyDeviceToHost);
    double expect = 0;
    for (int w = 0; w < grid * block / 32; ++w) {
        float s = 0;  // small integers and halves: exact in any order
        for (int i = 32 * w; i < 32 * w + 32; ++i) s += i < n ? 2.0f * h[i] + 0.5f : 0.0f;
        CHECK(warps[w] == s, "warp %d: %g != %g", w, warps[w], s);
        expect += s;
    }
    CHECK(total == expect, "total %g != %g", total, expect);
    cudaDestroyTextureObject(tex);
    printf("PASS\n");
    return 0;
}
