// Warp shuffles of the 16-bit floating-point types: __half, __nv_bfloat16 and their pairs __half2
// and __nv_bfloat162, with every shuffle kind and a width below 32.  Block sizes 32, 48, 64, 100
// and 1024 (partial last warps), two blocks each; the host computes which lane each thread must
// read (its own value where that lane is past the segment; 0, every half of a pair, where it is
// past the block: an inactive lane, undefined in CUDA, 0 on GPUs) and compares the bits.
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define KINDS 6

__global__ void shuffle16(const float *in, float *out)
{
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    float v = in[g];
    __half h = __float2half(v);
    __nv_bfloat16 b = __float2bfloat16(v);
    __half2 h2 = __halves2half2(h, __float2half(-v));
    __nv_bfloat162 b2 = __halves2bfloat162(b, __float2bfloat16(v + 1.0f));
    __half hx = __shfl_xor_sync(0xffffffff, h, 1);
    __nv_bfloat16 bd = __shfl_down_sync(0xffffffff, b, 2);
    __half2 hs = __shfl_sync(0xffffffff, h2, 3);
    __nv_bfloat162 bu = __shfl_up_sync(0xffffffff, b2, 1, 16);
    float *o = out + (size_t)g * KINDS;
    o[0] = __half2float(hx);
    o[1] = __bfloat162float(bd);
    o[2] = __low2float(hs);
    o[3] = __high2float(hs);
    o[4] = __bfloat162float(__low2bfloat16(bu));
    o[5] = __bfloat162float(__high2bfloat16(bu));
}

int main()
{
    const int sizes[] = {32, 48, 64, 100, 1024};
    const int blocks = 2, most = 2 * 1024;
    float *in, *out;
    cudaMallocManaged(&in, most * sizeof(float));
    cudaMallocManaged(&out, most * KINDS * sizeof(float));
    for (int i = 0; i < most; ++i)
        in[i] = 0.5f * (float)((i * 7) % 61) - 12.0f;  // exact in both 16-bit types
    int bad = 0;
    for (int size : sizes) {
        shuffle16<<<blocks, size>>>(in, out);
        cudaDeviceSynchronize();
        for (int g = 0; g < blocks * size; ++g) {
            int t = g % size, lane = t % 32, first = g - t;  // first: the block's first thread
            // The input of lane_src of t's warp, else t's own; -1 where that lane is past the block.
            auto at = [&](int lane_src, bool inside) {
                int src = t - lane + lane_src;
                return !inside ? g : src < size ? first + src : -1;
            };
            auto value = [&](int i, float (*f)(float)) { return i < 0 ? 0.0f : f(in[i]); };
            auto same = [](float x) { return x; };
            float want[KINDS] = {
                value(at(lane ^ 1, true), same),
                value(at(lane + 2, lane + 2 < 32), same),
                value(at(3, true), same),
                value(at(3, true), [](float x) { return -x; }),
                value(at(lane - 1, lane % 16 >= 1), same),
                value(at(lane - 1, lane % 16 >= 1), [](float x) { return x + 1.0f; }),
            };
            for (int k = 0; k < KINDS; ++k)
                if (out[g * KINDS + k] != want[k]) {
                    if (bad < 8)
                        printf("size %d thread %d kind %d: %g, want %g\n", size, g, k, out[g * KINDS + k], want[k]);
                    bad++;
                }
        }
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return 0;
}
