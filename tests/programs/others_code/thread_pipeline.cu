// A thread's own asynchronous copies: a thread-scoped cuda::pipeline double-buffering its tiles
// (producer_acquire, cuda::memcpy_async, producer_commit, consumer_wait, consumer_release), the
// pipeline primitives (__pipeline_memcpy_async with a zero fill, __pipeline_commit,
// __pipeline_wait_prior) and cuda::memcpy_async completed by a block's cuda::barrier, whose copies
// other threads read after the barrier.
#include <cstdio>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#define BLOCK 64
#define TILES 6

// Each thread sums column t of TILES tiles, copying tile k + 1 while it reads tile k.
__global__ void double_buffered(const float *in, float *out)
{
    __shared__ float stage[2][BLOCK];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const float *mine = in + blockIdx.x * TILES * BLOCK + threadIdx.x;
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[0][threadIdx.x], mine, sizeof(float), pipe);
    pipe.producer_commit();
    float acc = 0;
    for (int k = 0; k < TILES; ++k) {
        if (k + 1 < TILES) {
            pipe.producer_acquire();
            cuda::memcpy_async(&stage[(k + 1) % 2][threadIdx.x], mine + (k + 1) * BLOCK,
                               cuda::aligned_size_t<4>(sizeof(float)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += stage[k % 2][threadIdx.x] * (k + 1);
        pipe.consumer_release();
    }
    out[blockIdx.x * BLOCK + threadIdx.x] = acc;
}

// Each thread copies 3 ints of 4 and zero-fills the fourth; then reads its own row.
__global__ void primitives(const int *in, int *out)
{
    __shared__ int rows[BLOCK][4];
    __pipeline_memcpy_async(rows[threadIdx.x], in + (blockIdx.x * BLOCK + threadIdx.x) * 4, 4 * sizeof(int),
                            sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[blockIdx.x * BLOCK + threadIdx.x] = rows[threadIdx.x][0] + rows[threadIdx.x][1] * 10 +
                                            rows[threadIdx.x][2] * 100 + rows[threadIdx.x][3] * 1000;
}

// Each thread copies one element with a block barrier; after the barrier every thread reads its
// neighbour's.
__global__ void barrier_completed(const float *in, float *out)
{
    __shared__ float tile[BLOCK];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * BLOCK + threadIdx.x], sizeof(float), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * BLOCK + threadIdx.x] = tile[(threadIdx.x + 1) % BLOCK];
}

int main()
{
    const int blocks = 3;
    float *in, *out;
    int *iin, *iout;
    cudaMallocManaged(&in, blocks * TILES * BLOCK * sizeof(float));
    cudaMallocManaged(&out, blocks * BLOCK * sizeof(float));
    cudaMallocManaged(&iin, blocks * BLOCK * 4 * sizeof(int));
    cudaMallocManaged(&iout, blocks * BLOCK * sizeof(int));
    for (int i = 0; i < blocks * TILES * BLOCK; ++i) in[i] = (float)(i % 29);
    for (int i = 0; i < blocks * BLOCK * 4; ++i) iin[i] = i % 7 + 1;
    int bad = 0;
    double_buffered<<<blocks, BLOCK>>>(in, out);
    cudaDeviceSynchronize();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            float want = 0;
            for (int k = 0; k < TILES; ++k) want += in[(b * TILES + k) * BLOCK + t] * (k + 1);
            if (out[b * BLOCK + t] != want && bad++ < 5) printf("double_buffered %d %d: %g, expected %g\n", b, t, out[b * BLOCK + t], want);
        }
    primitives<<<blocks, BLOCK>>>(iin, iout);
    cudaDeviceSynchronize();
    for (int i = 0; i < blocks * BLOCK; ++i) {
        int want = iin[i * 4] + iin[i * 4 + 1] * 10 + iin[i * 4 + 2] * 100;
        if (iout[i] != want && bad++ < 5) printf("primitives %d: %d, expected %d\n", i, iout[i], want);
    }
    barrier_completed<<<blocks, BLOCK>>>(in, out);
    cudaDeviceSynchronize();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < BLOCK; ++t) {
            float want = in[b * BLOCK + (t + 1) % BLOCK];
            if (out[b * BLOCK + t] != want && bad++ < 5) printf("barrier_completed %d %d: %g, expected %g\n", b, t, out[b * BLOCK + t], want);
        }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
