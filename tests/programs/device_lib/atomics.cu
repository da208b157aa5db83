// Every CUDA atomic on every type it exists for, the _block and _system scopes, and the fences.
// Expected values come from arithmetic on the inputs (sums of 0..n-1, ...), computed on the host.
#include <cstdio>
#include <cuda_runtime.h>

#define N 4096
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

struct Counters {
    int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch_seen, i_cas_winner;
    unsigned int u_add, u_min, u_max, u_inc, u_dec, u_and, u_or, u_xor;
    unsigned long long ull_add, ull_min, ull_max, ull_or, ull_cas;
    long long ll_min, ll_max;
    float f_add;
    double d_add, d_cas_sum;
    unsigned short us_cas;
    int block_add, system_add;
    unsigned int exch_count;
};

__device__ double atomic_add_via_cas(double *p, double v)
{
    // The classic pre-sm_60 double atomicAdd: a 64-bit atomicCAS loop on the bits.
    unsigned long long *bits = (unsigned long long *)p, old = *bits, assumed;
    do {
        assumed = old;
        old = atomicCAS(bits, assumed, __double_as_longlong(__longlong_as_double(assumed) + v));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__global__ void all_atomics(Counters *c, int *exch_slot, unsigned int *seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    atomicAdd(&c->i_add, i);
    atomicSub(&c->i_sub, i);
    atomicMin(&c->i_min, 1000 - i);
    atomicMax(&c->i_max, i - 7);
    atomicAnd(&c->i_and, ~(1 << (i % 31)));
    atomicOr(&c->i_or, 1 << (i % 20));
    atomicXor(&c->i_xor, i);
    // Exchange: every thread puts its id and marks the id it took out; all ids but the last
    // are seen exactly once.
    int previous = atomicExch(exch_slot, i);
    atomicAdd(&seen[previous + 1], 1u);
    if (atomicCAS(&c->i_cas_winner, -1, i) == -1) atomicAdd(&c->exch_count, 1u);

    atomicAdd(&c->u_add, (unsigned int)i);
    atomicMin(&c->u_min, (unsigned int)(N + 5 - i));
    atomicMax(&c->u_max, (unsigned int)(3 * i));
    atomicInc(&c->u_inc, 99u);   // wraps to 0 after 99
    atomicDec(&c->u_dec, 49u);   // wraps to 49 after 0
    atomicAnd(&c->u_and, 0xffffffffu ^ (1u << (i % 32)));
    atomicOr(&c->u_or, 1u << (i % 32));
    atomicXor(&c->u_xor, (unsigned int)i * 2654435761u);

    atomicAdd(&c->ull_add, (unsigned long long)i << 33);
    atomicMin(&c->ull_min, (unsigned long long)(N - i) << 33);
    atomicMax(&c->ull_max, (unsigned long long)i << 33);
    atomicOr(&c->ull_or, 1ull << (i % 64));
    atomicMin(&c->ll_min, -(long long)i << 34);
    atomicMax(&c->ll_max, (long long)i << 34);

    atomicAdd(&c->f_add, 0.5f);
    atomicAdd(&c->d_add, (double)i * 0.25);
    atomic_add_via_cas(&c->d_cas_sum, 1.0 / 1024.0);
    // 16-bit CAS: increment by a CAS loop.
    unsigned short old16 = c->us_cas, assumed16;
    do {
        assumed16 = old16;
        old16 = atomicCAS(&c->us_cas, assumed16, (unsigned short)(assumed16 + 1));
    } while (old16 != assumed16);
    atomicAdd_block(&c->block_add, 2);
    atomicAdd_system(&c->system_add, 3);
    atomicCAS_system(&c->ull_cas, 0ull, 77ull);
}

// Message passing through a fence: each block writes its payload, fences, then counts itself
// done; the last block to arrive sums every payload (the threadFenceReduction pattern).
__device__ unsigned int blocks_done = 0;
__global__ void fence_sum(const int *in, volatile int *partial, int *total, int blocks)
{
    __shared__ bool last;
    __shared__ int block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    atomicAdd_block(&block_sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        __threadfence();
        unsigned int ticket = atomicInc(&blocks_done, gridDim.x);
        last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int s = 0;
        for (int b = 0; b < blocks; ++b) s += partial[b];
        __threadfence_block();
        __threadfence_system();
        *total = s;
    }
}

int main()
{
    Counters h = {};
    h.i_min = 1 << 30; h.i_max = -(1 << 30); h.i_and = -1; h.i_cas_winner = -1;
    h.u_min = 0xffffffffu; h.u_and = 0xffffffffu; h.u_dec = 10u;
    h.ull_min = ~0ull; h.ll_min = 0; h.ll_max = 0;
    Counters *dc; int *dslot; unsigned int *dseen;
    cudaMalloc(&dc, sizeof h);
    cudaMalloc(&dslot, sizeof(int));
    cudaMalloc(&dseen, (N + 1) * sizeof(unsigned int));
    int minus_one = -1;
    cudaMemcpy(dslot, &minus_one, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(dseen, 0, (N + 1) * sizeof(unsigned int));
    cudaMemcpy(dc, &h, sizeof h, cudaMemcpyHostToDevice);
    all_atomics<<<(N + 255) / 256, 256>>>(dc, dslot, dseen);
    Counters r;
    unsigned int seen[N + 1];
    int last_in_slot;
    cudaMemcpy(&r, dc, sizeof r, cudaMemcpyDeviceToHost);
    cudaMemcpy(seen, dseen, sizeof seen, cudaMemcpyDeviceToHost);
    cudaMemcpy(&last_in_slot, dslot, sizeof(int), cudaMemcpyDeviceToHost);

    long long sum = (long long)N * (N - 1) / 2;
    CHECK(r.i_add == (int)sum, "atomicAdd(int) %d", r.i_add);
    CHECK(r.i_sub == -(int)sum, "atomicSub(int) %d", r.i_sub);
    CHECK(r.i_min == 1000 - (N - 1), "atomicMin(int) %d", r.i_min);
    CHECK(r.i_max == N - 1 - 7, "atomicMax(int) %d", r.i_max);
    CHECK(r.i_and == (int)0x80000000, "atomicAnd(int) %x", r.i_and);
    CHECK(r.i_or == (1 << 20) - 1, "atomicOr(int) %x", r.i_or);
    int x = 0; for (int i = 0; i < N; ++i) x ^= i;
    CHECK(r.i_xor == x, "atomicXor(int) %d", r.i_xor);
    CHECK(r.exch_count == 1 && r.i_cas_winner >= 0 && r.i_cas_winner < N, "atomicCAS(int) winner %d", r.i_cas_winner);
    // The ids taken out are -1 and every id except the one left in the slot, each once.
    for (int v = -1; v < N; ++v)
        CHECK(seen[v + 1] == (v == last_in_slot ? 0u : 1u), "atomicExch(int): id %d taken %u times", v, seen[v + 1]);

    CHECK(r.u_add == (unsigned int)sum, "atomicAdd(unsigned) %u", r.u_add);
    CHECK(r.u_min == 6u, "atomicMin(unsigned) %u", r.u_min);
    CHECK(r.u_max == 3u * (N - 1), "atomicMax(unsigned) %u", r.u_max);
    CHECK(r.u_inc == (unsigned int)(N % 100), "atomicInc %u", r.u_inc);
    // atomicDec from 10 with limit 49: 10 steps reach 0, the next gives 49, then period 50.
    CHECK(r.u_dec == (unsigned int)((10 - N % 50 + 50) % 50), "atomicDec %u", r.u_dec);
    CHECK(r.u_and == 0u, "atomicAnd(unsigned) %x", r.u_and);
    CHECK(r.u_or == 0xffffffffu, "atomicOr(unsigned) %x", r.u_or);
    unsigned int ux = 0; for (int i = 0; i < N; ++i) ux ^= (unsigned int)i * 2654435761u;
    CHECK(r.u_xor == ux, "atomicXor(unsigned) %x", r.u_xor);

    CHECK(r.ull_add == ((unsigned long long)sum << 33), "atomicAdd(ull) %llu", r.ull_add);
    CHECK(r.ull_min == (1ull << 33), "atomicMin(ull) %llu", r.ull_min);
    CHECK(r.ull_max == ((unsigned long long)(N - 1) << 33), "atomicMax(ull) %llu", r.ull_max);
    CHECK(r.ull_or == ~0ull, "atomicOr(ull) %llx", r.ull_or);
    CHECK(r.ll_min == -((long long)(N - 1) << 34), "atomicMin(long long) %lld", r.ll_min);
    CHECK(r.ll_max == ((long long)(N - 1) << 34), "atomicMax(long long) %lld", r.ll_max);
    CHECK(r.ull_cas == 77ull, "atomicCAS_system(ull) %llu", r.ull_cas);

    // Sums of exactly representable values: exact in any order.
    CHECK(r.f_add == 0.5f * N, "atomicAdd(float) %f", r.f_add);
    CHECK(r.d_add == 0.25 * (double)sum, "atomicAdd(double) %f", r.d_add);
    CHECK(r.d_cas_sum == N / 1024.0, "atomicCAS(ull) double add %f", r.d_cas_sum);
    CHECK(r.us_cas == (unsigned short)N, "atomicCAS(unsigned short) %u", r.us_cas);
    CHECK(r.block_add == 2 * N && r.system_add == 3 * N, "atomicAdd_block/_system %d %d", r.block_add, r.system_add);

    const int blocks = 37, threads = 64;
    int in[blocks * threads], *din, *dpartial, *dtotal, total = 0, expect = 0;
    for (int i = 0; i < blocks * threads; ++i) { in[i] = (i * 7919) % 1000 - 500; expect += in[i]; }
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dpartial, blocks * sizeof(int));
    cudaMalloc(&dtotal, sizeof(int));
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    fence_sum<<<blocks, threads>>>(din, dpartial, dtotal, blocks);
    cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost);
    CHECK(total == expect, "threadfence reduction %d != %d", total, expect);
    cudaError_t err = cudaDeviceSynchronize();
    CHECK(err == cudaSuccess, "%s", cudaGetErrorString(err));
    printf("PASS\n");
    return 0;
}
