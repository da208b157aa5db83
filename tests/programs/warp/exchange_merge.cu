// Consecutive warp collectives whose operands do or do not depend on each other's results (pass
// warp-exchange-merge): independent shuffles that can exchange at one warp sync point (a pair, a
// compare-exchange of four keys whose second half hoists past the first half's return shuffle,
// three in one expression, pairs in a loop, a shuffle whose mask a ballot computes), and the
// cases that must keep their own sync point: an operand computed from the first result, a store
// to shared memory between (read by the neighbour lane after the second shuffle: the shuffle
// orders the lanes as lockstep would), a read between of what lanes store after it, an operand
// changed through a pointer, an operand read from memory, lanes that return between, and
// shuffles of a half-warp mask under a lane condition.  Every kernel writes one value per
// thread; the host computes them lane by lane.  Block shapes 32, 48, 64, 100, 16x3 and 1024, 3
// blocks each.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define FULL 0xffffffffu
#define KERNELS 12

__device__ int flat_id() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }

__device__ int value_of(const int *in, int t) { return in[blockIdx.x * blockDim.x * blockDim.y + t]; }

__global__ void independent_pair(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), z = x * 3 + 1;
    int a = __shfl_xor_sync(FULL, x, 1);
    int y = a + t;
    int c = __shfl_xor_sync(FULL, z, 2);
    out[blockIdx.x * n + t] = a * 7 + c * 3 + y;
}

__global__ void dependent_pair(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t);
    int a = __shfl_xor_sync(FULL, x, 1);
    int c = __shfl_xor_sync(FULL, a + 1, 2);
    out[blockIdx.x * n + t] = c;
}

__global__ void store_between(const int *in, int *out)
{
    __shared__ int s[1024];
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), z = x - 5;
    int a = __shfl_xor_sync(FULL, x, 1);
    s[t] = a;
    int c = __shfl_xor_sync(FULL, z, 2);
    int d = (t ^ 1) < n ? s[t ^ 1] : -1;
    out[blockIdx.x * n + t] = c + d * 5;
}

__global__ void read_between(const int *in, int *out)
{
    __shared__ int s[1024];
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), z = x + 9;
    s[t] = x;
    __syncthreads();
    int a = __shfl_xor_sync(FULL, x, 1);
    int d = (t ^ 1) < n ? s[t ^ 1] : -1;
    int c = __shfl_xor_sync(FULL, z, 2);
    s[t] = c + a;
    out[blockIdx.x * n + t] = d;
}

__global__ void four_keys(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int k0 = value_of(in, t), k1 = k0 ^ 5, k2 = k0 + 7, k3 = 3 - k0;
    int bit = t & 1;
    if (bit) { int s = k0; k0 = k2; k2 = s; s = k1; k1 = k3; k3 = s; }
    int e0 = k0, e1 = __shfl_xor_sync(FULL, k1, 1);
    if (e0 > e1) { int s = e0; e0 = e1; e1 = s; }
    k0 = e0;
    k1 = __shfl_xor_sync(FULL, e1, 1);
    e0 = k2;
    e1 = __shfl_xor_sync(FULL, k3, 1);
    if (e0 > e1) { int s = e0; e0 = e1; e1 = s; }
    k2 = e0;
    k3 = __shfl_xor_sync(FULL, e1, 1);
    out[blockIdx.x * n + t] = ((k0 * 31 + k1) * 31 + k2) * 31 + k3;
}

__global__ void three_in_one(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t);
    out[blockIdx.x * n + t] = __shfl_xor_sync(FULL, x, 1) + 10 * __shfl_xor_sync(FULL, x + 1, 2) +
                              100 * __shfl_down_sync(FULL, x * 2, 4);
}

__global__ void loop_pairs(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), y = x * 2 - 3;
    for (int i = 1; i < 32; i <<= 1) {
        int a = __shfl_xor_sync(FULL, x, i);
        int b = __shfl_xor_sync(FULL, y, i);
        x = min(x, a);
        y = max(y, b);
    }
    out[blockIdx.x * n + t] = x * 1000 + y;
}

__global__ void mask_from_ballot(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), z = x * 5;
    int a = __shfl_xor_sync(FULL, x, 1);
    unsigned m = __ballot_sync(FULL, a > 10);
    int c = __shfl_xor_sync(m | FULL, z, 3);
    out[blockIdx.x * n + t] = a + c + (int)(m & 0xff);
}

__global__ void through_pointer(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), y = t;
    int *p = &y;
    int a = __shfl_xor_sync(FULL, x, 1);
    *p = a + 1;
    int b = __shfl_xor_sync(FULL, a, 2);
    int c = __shfl_xor_sync(FULL, y, 4);
    out[blockIdx.x * n + t] = a + b * 3 + c * 5;
}

__global__ void operand_from_memory(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t);
    int a = __shfl_xor_sync(FULL, x, 1);
    int c = __shfl_xor_sync(FULL, in[blockIdx.x * n + ((t + 1) % n)], 2);
    out[blockIdx.x * n + t] = a * 2 + c;
}

__global__ void return_between(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int x = value_of(in, t), z = x + 100;
    out[blockIdx.x * n + t] = x * 100;
    int a = __shfl_xor_sync(FULL, x, 1);
    if (t % 5 == 0)
        return;
    int c = __shfl_xor_sync(FULL, z, 2);
    out[blockIdx.x * n + t] = a + c;
}

__global__ void half_warp_masks(const int *in, int *out)
{
    int t = flat_id(), n = blockDim.x * blockDim.y;
    int lane = t % 32;
    int x = value_of(in, t), z = x * x;
    int r = -1;
    if (lane < 16) {
        int a = __shfl_xor_sync(0x0000ffffu, x, 1);
        int y = a * 2;
        int c = __shfl_down_sync(0x0000ffffu, z, 3);
        r = a + c + y;
    }
    out[blockIdx.x * n + t] = r;
}

// ---------------------------------------------------------------------------------- the host

struct Block {
    int n;
    std::vector<bool> active;
    explicit Block(int n) : n(n), active(n, true) {}
    // lane src of t's warp: 0 for a lane that does not exist or did not reach the shuffle
    int read(const std::vector<int> &v, int t, int src) const
    {
        int f = t - t % 32 + src;
        return f < n && active[f] ? v[f] : 0;
    }
    int across(const std::vector<int> &v, int t, int m) const { return read(v, t, (t % 32) ^ m); }
    int down(const std::vector<int> &v, int t, int d) const { return t % 32 + d >= 32 ? v[t] : read(v, t, t % 32 + d); }
    unsigned ballot(const std::vector<bool> &p, int t) const
    {
        unsigned bits = 0;
        for (int i = 0; i < 32; ++i) {
            int f = t - t % 32 + i;
            if (f < n && active[f] && p[f])
                bits |= 1u << i;
        }
        return bits;
    }
};

static std::vector<int> expected(int k, const int *x_in, int n)
{
    Block b(n);
    std::vector<int> x(x_in, x_in + n), r(n), a(n), c(n), z(n);
    auto each = [&](auto f) { std::vector<int> v(n); for (int t = 0; t < n; ++t) v[t] = f(t); return v; };
    switch (k) {
    case 0:
        z = each([&](int t) { return x[t] * 3 + 1; });
        return each([&](int t) { int a = b.across(x, t, 1); return a * 7 + b.across(z, t, 2) * 3 + a + t; });
    case 1:
        a = each([&](int t) { return b.across(x, t, 1) + 1; });
        return each([&](int t) { return b.across(a, t, 2); });
    case 2:
        a = each([&](int t) { return b.across(x, t, 1); });
        z = each([&](int t) { return x[t] - 5; });
        return each([&](int t) { return b.across(z, t, 2) + ((t ^ 1) < n ? a[t ^ 1] : -1) * 5; });
    case 3:
        return each([&](int t) { return (t ^ 1) < n ? x[t ^ 1] : -1; });
    case 4: {
        std::vector<int> k0 = x, k1(n), k2(n), k3(n), e0(n), e1(n);
        for (int t = 0; t < n; ++t) {
            k1[t] = x[t] ^ 5; k2[t] = x[t] + 7; k3[t] = 3 - x[t];
            if (t & 1) { std::swap(k0[t], k2[t]); std::swap(k1[t], k3[t]); }
        }
        for (int half = 0; half < 2; ++half) {
            std::vector<int> &lo = half ? k2 : k0, &hi = half ? k3 : k1;
            for (int t = 0; t < n; ++t) {
                e0[t] = lo[t];
                e1[t] = b.across(hi, t, 1);
                if (e0[t] > e1[t]) std::swap(e0[t], e1[t]);
            }
            for (int t = 0; t < n; ++t) {
                lo[t] = e0[t];
                hi[t] = b.across(e1, t, 1);
            }
        }
        return each([&](int t) { return ((k0[t] * 31 + k1[t]) * 31 + k2[t]) * 31 + k3[t]; });
    }
    case 5:
        a = each([&](int t) { return x[t] + 1; });
        z = each([&](int t) { return x[t] * 2; });
        return each([&](int t) { return b.across(x, t, 1) + 10 * b.across(a, t, 2) + 100 * b.down(z, t, 4); });
    case 6: {
        std::vector<int> y = each([&](int t) { return x[t] * 2 - 3; });
        for (int i = 1; i < 32; i <<= 1) {
            std::vector<int> nx = each([&](int t) { return std::min(x[t], b.across(x, t, i)); });
            y = each([&](int t) { return std::max(y[t], b.across(y, t, i)); });
            x = nx;
        }
        return each([&](int t) { return x[t] * 1000 + y[t]; });
    }
    case 7: {
        a = each([&](int t) { return b.across(x, t, 1); });
        std::vector<bool> big(n);
        for (int t = 0; t < n; ++t) big[t] = a[t] > 10;
        z = each([&](int t) { return x[t] * 5; });
        return each([&](int t) { return a[t] + b.across(z, t, 3) + (int)(b.ballot(big, t) & 0xff); });
    }
    case 8:
        a = each([&](int t) { return b.across(x, t, 1); });
        z = each([&](int t) { return a[t] + 1; });
        return each([&](int t) { return a[t] + b.across(a, t, 2) * 3 + b.across(z, t, 4) * 5; });
    case 9: {
        std::vector<int> m = each([&](int t) { return x[(t + 1) % n]; });
        return each([&](int t) { return b.across(x, t, 1) * 2 + b.across(m, t, 2); });
    }
    case 10:
        a = each([&](int t) { return b.across(x, t, 1); });
        for (int t = 0; t < n; ++t) b.active[t] = t % 5 != 0;
        z = each([&](int t) { return x[t] + 100; });
        return each([&](int t) { return t % 5 == 0 ? x[t] * 100 : a[t] + b.across(z, t, 2); });
    default:
        for (int t = 0; t < n; ++t) b.active[t] = t % 32 < 16;
        z = each([&](int t) { return x[t] * x[t]; });
        return each([&](int t) {
            if (t % 32 >= 16) return -1;
            int a = b.across(x, t, 1);
            return a + b.down(z, t, 3) + a * 2;
        });
    }
}

static void launch(int k, int grid, dim3 shape, const int *in, int *out)
{
    switch (k) {
    case 0: independent_pair<<<grid, shape>>>(in, out); break;
    case 1: dependent_pair<<<grid, shape>>>(in, out); break;
    case 2: store_between<<<grid, shape>>>(in, out); break;
    case 3: read_between<<<grid, shape>>>(in, out); break;
    case 4: four_keys<<<grid, shape>>>(in, out); break;
    case 5: three_in_one<<<grid, shape>>>(in, out); break;
    case 6: loop_pairs<<<grid, shape>>>(in, out); break;
    case 7: mask_from_ballot<<<grid, shape>>>(in, out); break;
    case 8: through_pointer<<<grid, shape>>>(in, out); break;
    case 9: operand_from_memory<<<grid, shape>>>(in, out); break;
    case 10: return_between<<<grid, shape>>>(in, out); break;
    default: half_warp_masks<<<grid, shape>>>(in, out); break;
    }
}

int main()
{
    const dim3 shapes[] = {dim3(32), dim3(48), dim3(64), dim3(100), dim3(16, 3), dim3(1024)};
    const int grid = 3;
    int bad = 0;
    for (dim3 shape : shapes) {
        int n = shape.x * shape.y;
        int *in, *out;
        cudaMallocManaged(&in, grid * n * sizeof(int));
        cudaMallocManaged(&out, grid * n * sizeof(int));
        for (int i = 0; i < grid * n; ++i)
            in[i] = (i * 37 + 11) % 101 - 50;
        for (int k = 0; k < KERNELS; ++k) {
            launch(k, grid, shape, in, out);
            cudaDeviceSynchronize();
            for (int blk = 0; blk < grid; ++blk) {
                std::vector<int> want = expected(k, in + blk * n, n);
                for (int t = 0; t < n; ++t)
                    if (out[blk * n + t] != want[t] && bad++ < 10)
                        printf("FAIL: kernel %d, block %dx%d, block %d, thread %d: %d, expected %d\n", k, shape.x,
                               shape.y, blk, t, out[blk * n + t], want[t]);
            }
        }
        cudaFree(in);
        cudaFree(out);
    }
    if (bad)
        return 1;
    printf("PASS\n");
    return 0;
}
