// cg::reduce in __device__ function templates whose group type is a template parameter (the
// reduction sample's cg_reduce_n<T, Group>): the group's size is known only where the template
// is called, with a thread_block_tile<32> in one kernel and tiles of 8 and 16 in another, through
// two levels of templates, with each of cooperative_groups/reduce.h's operators.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>

namespace cg = cooperative_groups;

template <typename T, typename Group>
__device__ T sum_of(T in, Group &threads)
{
    return cg::reduce(threads, in, cg::plus<T>());
}

template <typename Group>
__device__ void all_of(const Group &g, unsigned v, unsigned *out)
{
    out[0] = cg::reduce(g, v, cg::less<unsigned>());
    out[1] = cg::reduce(g, v, cg::greater<unsigned>());
    out[2] = cg::reduce(g, v, cg::bit_and<unsigned>());
    out[3] = cg::reduce(g, v, cg::bit_or<unsigned>());
    out[4] = cg::reduce(g, v, cg::bit_xor<unsigned>());
    out[5] = sum_of(v, g);
}

template <class T>
__global__ void warp_sums(const T *in, T *out)
{
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
    T v = sum_of(in[cta.thread_rank()], tile);
    if (tile.thread_rank() == 0)
        out[tile.meta_group_rank()] = v;
}

__global__ void small_tiles(unsigned *eights, unsigned *sixteens)
{
    cg::thread_block cta = cg::this_thread_block();
    auto tile8 = cg::tiled_partition<8>(cta);
    auto tile16 = cg::tiled_partition<16>(cta);
    unsigned v = 3u * threadIdx.x + 1u;
    unsigned results8[6], results16[6];
    all_of(tile8, v, results8);
    all_of(tile16, v, results16);
    if (tile8.thread_rank() == 0)
        for (int i = 0; i < 6; ++i) eights[tile8.meta_group_rank() * 6 + i] = results8[i];
    if (tile16.thread_rank() == 0)
        for (int i = 0; i < 6; ++i) sixteens[tile16.meta_group_rank() * 6 + i] = results16[i];
}

static int check_tiles(const unsigned *got, int threads, int size, const char *what)
{
    int errors = 0;
    for (int t = 0; t < threads / size; ++t) {
        unsigned lo = ~0u, hi = 0, all = ~0u, any = 0, parity = 0, sum = 0;
        for (int i = t * size; i < (t + 1) * size; ++i) {
            unsigned v = 3u * i + 1u;
            lo = v < lo ? v : lo; hi = v > hi ? v : hi;
            all &= v; any |= v; parity ^= v; sum += v;
        }
        const unsigned expected[6] = {lo, hi, all, any, parity, sum};
        for (int k = 0; k < 6; ++k)
            if (got[t * 6 + k] != expected[k] && errors++ < 5)
                printf("%s tile %d result %d: %u, expected %u\n", what, t, k, got[t * 6 + k], expected[k]);
    }
    return errors;
}

int main()
{
    const int threads = 64;
    float h_in[threads], h_out[threads / 32];
    for (int i = 0; i < threads; ++i) h_in[i] = 0.5f * i;
    float *in, *out;
    unsigned *eights, *sixteens;
    cudaMalloc(&in, sizeof h_in);
    cudaMalloc(&out, sizeof h_out);
    cudaMalloc(&eights, threads / 8 * 6 * sizeof(unsigned));
    cudaMalloc(&sixteens, threads / 16 * 6 * sizeof(unsigned));
    cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    warp_sums<<<1, threads>>>(in, out);
    small_tiles<<<1, threads>>>(eights, sixteens);
    unsigned h_eights[threads / 8 * 6], h_sixteens[threads / 16 * 6];
    cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_eights, eights, sizeof h_eights, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_sixteens, sixteens, sizeof h_sixteens, cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int w = 0; w < threads / 32; ++w) {
        float expected = 0;
        for (int i = w * 32; i < (w + 1) * 32; ++i) expected += h_in[i];
        if (h_out[w] != expected && errors++ < 5) printf("warp %d: %g, expected %g\n", w, h_out[w], expected);
    }
    errors += check_tiles(h_eights, threads, 8, "8");
    errors += check_tiles(h_sixteens, threads, 16, "16");
    printf(errors ? "FAIL\n" : "PASS\n");
    return errors ? 1 : 0;
}
