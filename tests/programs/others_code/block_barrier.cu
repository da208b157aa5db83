// libcu++'s block-scoped barrier (cuda-samples' simpleAWBarrier): a __shared__
// cuda::barrier<cuda::thread_scope_block> initialized by one thread for every thread of the block,
// waited on with arrive_and_wait() and with arrive() / wait(token), also in a __device__ function
// that takes the barrier by reference.  Each wait orders the block's shared-memory accesses as
// __syncthreads() does: the rotations below read what other threads wrote before it.
#include <cstdio>
#include <cuda/barrier>
#include <cuda_runtime.h>

__device__ int rotate_once(cuda::barrier<cuda::thread_scope_block> &bar, int *ring, int value, int rank, int size)
{
    ring[rank] = value;
    auto token = bar.arrive();
    bar.wait(cuda::std::move(token));
    int next = ring[(rank + 1) % size];
    bar.arrive_and_wait();  // everyone has read before anyone writes again
    return next;
}

__global__ void rotate(const int *in, int *out, int turns)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int ring[256];
    const int size = blockDim.x * blockDim.y;
    const int rank = threadIdx.y * blockDim.x + threadIdx.x;
    if (rank == 0)
        init(&bar, blockDim.x * blockDim.y * blockDim.z);
    __syncthreads();
    int value = in[blockIdx.x * size + rank];
    for (int t = 0; t < turns; ++t)
        value = rotate_once(bar, ring, value, rank, size);
    ring[rank] = value * 2;
    bar.arrive_and_wait();
    out[blockIdx.x * size + rank] = ring[size - 1 - rank];
}

int main()
{
    const int blocks = 3, size = 16 * 8, turns = 5, n = blocks * size;
    int host_in[n], host_out[n];
    for (int i = 0; i < n; ++i)
        host_in[i] = i * 7 + 1;
    int *in, *out;
    cudaMalloc(&in, sizeof host_in);
    cudaMalloc(&out, sizeof host_out);
    cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice);
    rotate<<<blocks, dim3(16, 8)>>>(in, out, turns);
    bool ok = cudaMemcpy(host_out, out, sizeof host_out, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int b = 0; ok && b < blocks; ++b)
        for (int r = 0; ok && r < size; ++r) {
            int holder = size - 1 - r;  // whose value thread r reads at the end
            int expect = 2 * host_in[b * size + (holder + turns) % size];
            ok = host_out[b * size + r] == expect;
        }
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
