// Tiles of several warps (thread_block_tile<N>, N > 32, as the reduction sample's
// multi_warp_cg_reduce makes them with cg::block_tile_memory): cg::reduce over them, with the
// size written as a number and as a kernel template's parameter (instantiated with tiles of a
// warp's part, a warp and several warps), through a function template over the group type;
// their thread_rank, meta_group_rank, meta_group_size and sync.  tile_sums keeps the tile in an
// `auto` variable (the fiber lowering takes it), typed_tile_sums names its type (the split one).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>

namespace cg = cooperative_groups;

template <typename T, typename Group>
__device__ T tile_sum(T in, Group &threads)
{
    return cg::reduce(threads, in, cg::plus<T>());
}

template <class T, unsigned BlockSize, unsigned TileSize>
__global__ void tile_sums(const T *in, T *out)
{
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    auto cta = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<TileSize>(cta);
    T v = tile_sum(in[blockIdx.x * BlockSize + threadIdx.x], tile);
    if (tile.thread_rank() == 0)
        out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

template <class T, unsigned BlockSize, unsigned TileSize>
__global__ void typed_tile_sums(const T *in, T *out)
{
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<TileSize> tile = cg::tiled_partition<TileSize>(cta);
    T v = tile_sum(in[blockIdx.x * BlockSize + threadIdx.x], tile);
    if (tile.thread_rank() == 0)
        out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

__global__ void maxima_of_64(const int *in, int *out)
{
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cta);
    __shared__ int staged[256];
    staged[cta.thread_rank()] = in[cta.thread_rank()] + 1;
    tile.sync();
    // The tile's last thread wrote this one: the tile's barrier ordered it.
    int mine = staged[(cta.thread_rank() + tile.size() - 1) - 2 * tile.thread_rank()];
    int top = cg::reduce(tile, mine, cg::greater<int>());
    if (tile.thread_rank() == 0)
        out[tile.meta_group_rank()] = top + 1000 * (int)tile.meta_group_size();
}

template <unsigned TileSize>
static int check_sums(const int *h_in, int *d_in, int *d_out, int blocks, bool typed)
{
    const int tiles = 256 / TileSize * blocks;
    if (typed)
        typed_tile_sums<int, 256, TileSize><<<blocks, 256>>>(d_in, d_out);
    else
        tile_sums<int, 256, TileSize><<<blocks, 256>>>(d_in, d_out);
    int got[256];
    cudaMemcpy(got, d_out, tiles * sizeof(int), cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int t = 0; t < tiles; ++t) {
        int expected = 0;
        for (unsigned i = t * TileSize; i < (t + 1) * TileSize; ++i) expected += h_in[i];
        if (got[t] != expected && errors++ < 3) printf("tiles of %u: tile %d = %d, expected %d\n", TileSize, t, got[t],
                                                       expected);
    }
    return errors;
}

int main()
{
    const int blocks = 2, n = 256 * blocks;
    int h_in[n];
    for (int i = 0; i < n; ++i) h_in[i] = (i * 37) % 101;
    int *in, *out;
    cudaMalloc(&in, sizeof h_in);
    cudaMalloc(&out, n * sizeof(int));
    cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    int errors = 0;
    for (int typed = 0; typed < 2; ++typed)
        errors += check_sums<16>(h_in, in, out, blocks, typed) + check_sums<32>(h_in, in, out, blocks, typed)
                + check_sums<128>(h_in, in, out, blocks, typed) + check_sums<256>(h_in, in, out, blocks, typed);
    maxima_of_64<<<1, 256>>>(in, out);
    int maxima[4];
    cudaMemcpy(maxima, out, sizeof maxima, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 4; ++t) {
        int top = 0;
        for (int i = t * 64; i < (t + 1) * 64; ++i) top = h_in[i] + 1 > top ? h_in[i] + 1 : top;
        if (maxima[t] != top + 4000 && errors++ < 8) printf("tile of 64 %d: %d, expected %d\n", t, maxima[t], top + 4000);
    }
    printf(errors ? "FAIL\n" : "PASS\n");
    return errors ? 1 : 0;
}
