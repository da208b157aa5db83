// Warp shuffles of every kind, width and type, at block sizes 32, 48, 64, 100, 1024 and in 2-D
// and 3-D blocks (lanes are consecutive in the flat thread id; the last warp may be partial).
// The host computes what each thread must see: the source lane's value, the thread's own value
// when the source lane is outside its width segment, or 0 when the source lane is past the end of
// the block (an inactive lane: undefined in CUDA, 0 on GPUs).
#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KINDS 17

template <typename T>
__global__ void shuffles(const T *in, T *out)
{
    int flat = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int size = blockDim.x * blockDim.y * blockDim.z;
    int g = blockIdx.x * size + flat;
    T v = in[g];
    T *o = out + (size_t)g * KINDS;
    o[0] = __shfl_sync(FULL, v, 3);
    o[1] = __shfl_sync(FULL, v, 37);          // modulo the width: lane 5
    o[2] = __shfl_sync(FULL, v, -1, 8);       // modulo 8: lane 7 of the segment
    o[3] = __shfl_sync(FULL, v, flat % 5, 16);
    o[4] = __shfl_up_sync(FULL, v, 1);
    o[5] = __shfl_up_sync(FULL, v, 3, 4);
    o[6] = __shfl_up_sync(FULL, v, 16);
    o[7] = __shfl_down_sync(FULL, v, 1);
    o[8] = __shfl_down_sync(FULL, v, 5, 8);
    o[9] = __shfl_down_sync(FULL, v, 31);
    o[10] = __shfl_xor_sync(FULL, v, 1);
    o[11] = __shfl_xor_sync(FULL, v, 16);
    o[12] = __shfl_xor_sync(FULL, v, 5, 8);
    o[13] = __shfl_up_sync(FULL, v, 40);      // past the warp: the caller's own value
    o[14] = __shfl_down_sync(FULL, v, 40);
    o[15] = __shfl_xor_sync(FULL, v, 33);     // lane ^ 33 is in no segment of the warp
    T w = v;
    for (int d = 1; d < 32; d *= 2) {         // the butterfly all-reduce people write
        w += __shfl_xor_sync(FULL, w, d);
    }
    o[16] = w;
}

#define INACTIVE 0xffffffffu  // the source lane does not exist: the shuffle reads 0

static unsigned own_or(unsigned flat, unsigned src_lane, unsigned size, bool inside)
{
    unsigned src = flat - flat % 32 + src_lane;
    return !inside ? flat : src < size ? src : INACTIVE;
}

// The flat source thread of each kind (host model of CUDA's rules).
static unsigned source(int kind, unsigned f, unsigned size)
{
    unsigned lane = f % 32;
    auto seg = [&](unsigned w) { return lane & ~(w - 1); };
    switch (kind) {
    case 0: return own_or(f, 3, size, true);
    case 1: return own_or(f, 5, size, true);
    case 2: return own_or(f, seg(8) + 7, size, true);
    case 3: return own_or(f, seg(16) + (f % 5) % 16, size, true);
    case 4: return own_or(f, lane - 1, size, lane >= 1);
    case 5: return own_or(f, lane - 3, size, lane - seg(4) >= 3);
    case 6: return own_or(f, lane - 16, size, lane >= 16);
    case 7: return own_or(f, lane + 1, size, lane + 1 < 32);
    case 8: return own_or(f, lane + 5, size, lane - seg(8) + 5 < 8);
    case 9: return own_or(f, lane + 31, size, lane + 31 < 32);
    case 10: return own_or(f, lane ^ 1, size, true);
    case 11: return own_or(f, lane ^ 16, size, true);
    case 12: return own_or(f, lane ^ 5, size, true);
    case 13: return own_or(f, lane - 40, size, false);
    case 14: return own_or(f, lane + 40, size, false);
    case 15: return own_or(f, lane ^ 33, size, false);
    }
    return f;
}

template <typename T>
static int check(const char *name, dim3 block, int blocks, T (*value)(int))
{
    unsigned size = block.x * block.y * block.z;
    int n = size * blocks;
    T *in, *out;
    cudaMallocManaged(&in, n * sizeof(T));
    cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(T));
    for (int i = 0; i < n; ++i)
        in[i] = value(i);
    shuffles<T><<<blocks, block>>>(in, out);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int b = 0; b < blocks; ++b) {
        for (unsigned f = 0; f < size; ++f) {
            const T *in_b = in + b * size;
            const T *o = out + ((size_t)b * size + f) * KINDS;
            for (int k = 0; k < 16; ++k) {
                unsigned src = source(k, f, size);
                if (o[k] != (src == INACTIVE ? T(0) : in_b[src])) {
                    if (bad++ < 5)
                        printf("%s block %ux%ux%u thread %u kind %d: wrong\n", name, block.x, block.y, block.z, f, k);
                }
            }
            // Butterfly: w_d(lane) = w(lane) + w(lane ^ d), a lane outside the block giving 0.
            T w[32];
            unsigned base = f - f % 32;
            for (unsigned l = 0; l < 32; ++l)
                w[l] = base + l < size ? in_b[base + l] : T(0);
            for (unsigned d = 1; d < 32; d *= 2) {
                T next[32];
                for (unsigned l = 0; l < 32; ++l) {
                    unsigned s = l ^ d;
                    next[l] = w[l] + (base + s < size ? w[s] : T(0));
                }
                for (unsigned l = 0; l < 32; ++l)
                    w[l] = next[l];
            }
            if (o[16] != w[f % 32] && bad++ < 5)
                printf("%s block %ux%ux%u thread %u: butterfly wrong\n", name, block.x, block.y, block.z, f);
        }
    }
    cudaFree(in);
    cudaFree(out);
    return bad;
}

static int as_int(int i) { return i * 7 - 300; }
static unsigned long long as_u64(int i) { return (1ull << 40) + (unsigned long long)i * 3; }
static long long as_i64(int i) { return -(1ll << 35) - i; }
static float as_float(int i) { return i * 0.25f; }
static double as_double(int i) { return i * 0.125 + 1e10; }

int main()
{
    const dim3 blocks[] = {dim3(32), dim3(48), dim3(64), dim3(100), dim3(1024), dim3(10, 5), dim3(4, 3, 5)};
    int bad = 0;
    for (dim3 b : blocks) {
        bad += check("int", b, 2, as_int);
        bad += check("unsigned long long", b, 2, as_u64);
        bad += check("long long", b, 1, as_i64);
        bad += check("float", b, 2, as_float);
        bad += check("double", b, 1, as_double);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
