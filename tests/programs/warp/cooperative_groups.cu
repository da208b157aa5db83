// Cooperative groups: this_thread_block() with sync(), thread_rank() and size();
// tiled_partition<N> for N = 1, 4, 8, 16, 32 (a template parameter) with shfl, shfl_up, shfl_down, shfl_xor, any, all,
// ballot, thread_rank, meta_group_rank, num_threads and sync; cg::reduce with plus, less,
// greater and bit_xor.  Block sizes 32, 48, 64, 100, 1024 and a 2-D block; the host computes
// what each thread must see.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define KINDS 16

// The operations of a tile of N threads (N a template parameter), into o[0..13].
template <int N>
__global__ void tile_kernel(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    int g = blockIdx.x * block.size() + block.thread_rank();
    int v = in[g];
    int *o = out + (size_t)g * KINDS;
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    o[0] = tile.thread_rank();
    o[1] = tile.meta_group_rank();
    o[2] = tile.num_threads();
    o[3] = tile.shfl(v, 1);
    o[4] = tile.shfl_up(v, 1);
    o[5] = tile.shfl_down(v, 2);
    o[6] = tile.shfl_xor(v, 1);
    o[7] = tile.any(v > 90);
    o[8] = tile.all(v >= 0);
    o[9] = tile.ballot(v % 2 == 0);
    tile.sync();
    o[10] = cg::reduce(tile, v, cg::plus<int>());
    o[11] = cg::reduce(tile, v, cg::less<int>());
    o[12] = cg::reduce(tile, v, cg::greater<int>());
    o[13] = cg::reduce(tile, (unsigned)v, cg::bit_xor<unsigned>());
}

__global__ void groups(const int *in, int *totals)
{
    __shared__ int total;
    cg::thread_block block = cg::this_thread_block();
    int rank = block.thread_rank();
    int g = blockIdx.x * block.size() + rank;
    int v = in[g];
    if (rank == 0)
        total = 0;
    block.sync();
    atomicAdd(&total, v);
    cg::sync(block);
    if (rank == 0)
        totals[blockIdx.x] = total;
}

static int lane_value(const int *p, unsigned size, unsigned f, unsigned first, unsigned n, unsigned rank,
                      bool inside)
{
    unsigned src = first + rank;
    return !inside || rank >= (unsigned)n ? p[f] : src < size ? p[src] : 0;  // past the block: inactive, 0
}

static int check_tile(const int *p, unsigned size, unsigned f, int n, const int *o)
{
    unsigned rank = f % n, first = f - rank;
    int v = p[f];
    int any = 0, all = 1, ballot = 0, sum = 0, lo = 1 << 30, hi = -(1 << 30);
    unsigned x = 0;
    for (int r = 0; r < n && first + r < size; ++r) {
        int w = p[first + r];
        any |= w > 90;
        all &= w >= 0;
        ballot |= (w % 2 == 0) << r;
        sum += w;
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
        x ^= (unsigned)w;
    }
    int want[14] = {(int)rank, (int)(f / n), n,
                    lane_value(p, size, f, first, n, 1 % n, true),
                    lane_value(p, size, f, first, n, rank - 1, rank >= 1),
                    lane_value(p, size, f, first, n, rank + 2, rank + 2 < (unsigned)n),
                    lane_value(p, size, f, first, n, rank ^ 1, (rank ^ 1) < (unsigned)n),
                    any, all, ballot, sum, lo, hi, (int)x};
    int bad = 0;
    for (int k = 0; k < 14; ++k) {
        if (o[k] != want[k] && bad++ < 3)
            printf("thread %u tile %d kind %d: got %d, want %d (v %d)\n", f, n, k, o[k], want[k], v);
    }
    return bad;
}

template <int N>
static int run_tiles(const int *in, int *out, dim3 block, int grid)
{
    unsigned size = block.x * block.y;
    tile_kernel<N><<<grid, block>>>(in, out);
    cudaDeviceSynchronize();
    int bad = 0;
    for (unsigned f = 0; f < size * grid; ++f)
        bad += check_tile(in + f / size * size, size, f % size, N, out + (size_t)f * KINDS);
    return bad;
}

int main()
{
    const dim3 blocks[] = {dim3(32), dim3(48), dim3(64), dim3(100), dim3(1024), dim3(10, 5)};
    int bad = 0;
    for (dim3 block : blocks) {
        unsigned size = block.x * block.y;
        const int grid = 2;
        int n = size * grid;
        int *in, *out, *totals;
        cudaMallocManaged(&in, n * sizeof(int));
        cudaMallocManaged(&out, (size_t)n * KINDS * sizeof(int));
        cudaMallocManaged(&totals, grid * sizeof(int));
        for (int i = 0; i < n; ++i)
            in[i] = (i * 53) % 97 - 2;
        groups<<<grid, block>>>(in, totals);
        cudaDeviceSynchronize();
        for (int b = 0; b < grid; ++b) {
            int total = 0;
            for (unsigned f = 0; f < size; ++f)
                total += in[b * size + f];
            if (totals[b] != total && bad++ < 5)
                printf("block %u: total %d, want %d\n", b, totals[b], total);
        }
        bad += run_tiles<1>(in, out, block, grid);
        bad += run_tiles<4>(in, out, block, grid);
        bad += run_tiles<8>(in, out, block, grid);
        bad += run_tiles<16>(in, out, block, grid);
        bad += run_tiles<32>(in, out, block, grid);
        cudaFree(in);
        cudaFree(out);
        cudaFree(totals);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
