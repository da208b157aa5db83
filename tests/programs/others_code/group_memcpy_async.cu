// cooperative_groups::memcpy_async into __shared__ memory by a block and by warp tiles, and
// cg::wait / cg::wait_prior: the copy is the group's first thread's, the wait the group's barrier.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

// Each block sums, for every thread, the element after its own in each of `chunks` tiles that
// the block copies in turn into one __shared__ tile: the copy of a tile must wait until every
// thread has read the previous one, and every read must wait for its copy.
__global__ void sum_shifted(const float *in, float *out, int chunks)
{
    __shared__ float tile[128];
    cg::thread_block block = cg::this_thread_block();
    float acc = 0;
    for (int c = 0; c < chunks; ++c) {
        cg::memcpy_async(block, tile, in + (blockIdx.x * chunks + c) * 128, sizeof(float) * 128);
        cg::wait(block);
        acc += tile[(threadIdx.x + 1) % 128];
        block.sync();
    }
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}

// A warp tile copies its own 32 elements and reads them after the tile's wait.
__global__ void tile_reverse(const int *in, int *out)
{
    __shared__ int stage[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int base = warp.meta_group_rank() * 32;
    cg::memcpy_async(warp, stage + base, in + blockIdx.x * 128 + base, sizeof(int) * 32);
    cg::wait_prior<0>(warp);
    out[blockIdx.x * 128 + threadIdx.x] = stage[base + 31 - warp.thread_rank()];
}

int main()
{
    const int blocks = 3, chunks = 5, n = blocks * chunks * 128;
    float *in, *out;
    cudaMallocManaged(&in, n * sizeof(float));
    cudaMallocManaged(&out, blocks * 128 * sizeof(float));
    for (int i = 0; i < n; ++i) in[i] = (float)((i * 7) % 13);
    sum_shifted<<<blocks, 128>>>(in, out, chunks);
    int *iin, *iout;
    cudaMallocManaged(&iin, blocks * 128 * sizeof(int));
    cudaMallocManaged(&iout, blocks * 128 * sizeof(int));
    for (int i = 0; i < blocks * 128; ++i) iin[i] = i * 3 + 1;
    tile_reverse<<<blocks, 128>>>(iin, iout);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < 128; ++t) {
            float want = 0;
            for (int c = 0; c < chunks; ++c) want += in[(b * chunks + c) * 128 + (t + 1) % 128];
            if (out[b * 128 + t] != want && bad++ < 5) printf("sum_shifted %d %d: %g, expected %g\n", b, t, out[b * 128 + t], want);
            int w = t / 32 * 32, expect = iin[b * 128 + w + 31 - t % 32];
            if (iout[b * 128 + t] != expect && bad++ < 5) printf("tile_reverse %d %d: %d, expected %d\n", b, t, iout[b * 128 + t], expect);
        }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
