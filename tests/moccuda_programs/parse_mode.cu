// Parse mode: CUDA source using the language and runtime broadly, which libclang must accept
// (CUDA mode, host side only, MocCUDA's header force-included) without a single error.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BLOCK 128

__constant__ float coefficients[4];
__device__ int device_counter;
__managed__ unsigned long long managed_total;

struct Particle {
    float3 position;
    float4 color;
};

__device__ __forceinline__ float square(float x) { return x * x; }
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ float e_constant() { return 2.718281828f; }
__host__ __device__ inline float lerp(float a, float b, float t) { return a + t * (b - a); }

__device__ float atomic_max_float(float *address, float value)
{
    int *bits = (int *)address;
    int old = *bits, assumed;
    do {
        assumed = old;
        old = atomicCAS(bits, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
    } while (assumed != old);
    return __int_as_float(old);
}

template <typename T, int N>
__global__ void __launch_bounds__(BLOCK) reduce(const T *in, T *out, int n)
{
    __shared__ T tile[BLOCK];
    extern __shared__ unsigned char dynamic[];
    unsigned int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            tile[tid] += tile[tid + s];
        __syncthreads();
    }
    T v = tile[tid];
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_xor_sync(0xffffffffu, v, 1, 32);
    v = __shfl_sync(__activemask(), v, 0) + __shfl_up_sync(~0u, v, 1);
    if (__any_sync(0xffffffffu, v > T(0)) && __all_sync(0xffffffffu, 1) && __ballot_sync(0xffffffffu, tid & 1))
        dynamic[0] = 1;
    int votes = __syncthreads_count(v > T(0)) + __syncthreads_and(1) + __syncthreads_or(0);
    __syncwarp();
    __syncwarp(0xffu);
    if (tid == 0)
        atomicAdd(out, tile[0] + T(votes + N + warpSize + gridDim.x));
}

__global__ void physics(Particle *p, float *energy, int *hits, double *sum, unsigned int *ticket, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    dim3 grid = gridDim;
    uint3 index = blockIdx;
    float3 x = p[i].position;
    float r = sqrtf(x.x * x.x + x.y * x.y) + norm3df(x.x, x.y, x.z) + rnorm3df(1, 2, 3) + rsqrtf(2.0f);
    float s, c;
    sincosf(r, &s, &c);
    __sincosf(r, &s, &c);
    double sp, cp;
    sincospi(0.25, &sp, &cp);
    float e = __expf(-r) + __logf(1.0f + r) + __powf(r, 1.5f) + __fdividef(s, c + 2.0f) + exp10f(0.5f)
              + __saturatef(r) + __fmul_rn(r, 2.0f) + __fadd_rn(r, 1.0f) + __fsqrt_rn(r) + __frcp_rn(r + 1.0f)
              + expf(r) + powf(r, 2.0f) + fabsf(-r) + floorf(r) + fminf(r, 1.0f) + lerp(0.0f, 1.0f, 0.5f)
              + coefficients[i % 4] + square(e_constant()) + std::max(r, 1.0f) + min(r, 2.0f) + max(1, 2);
    double d = sqrt((double)e) + exp(1.0) + pow(2.0, 0.5) + fabs(-1.0) + rsqrt(4.0) + erfinv(0.5) + normcdf(1.0)
               + __longlong_as_double(__double_as_longlong(1.0)) + sp + cp + min(1.0, 2.0);
    p[i].color = make_float4(e, (float)d, 0.0f, 1.0f);
    int2 pair = make_int2(__float2int_rn(e), __float2int_rz(r));
    uchar4 rgba = make_uchar4(1, 2, 3, 4);
    double2 wide = make_double2(d, d);
    atomicAdd(energy, e);
    atomicAdd(hits, pair.x + rgba.w + twice(1));
    atomicAdd(sum, wide.x);
    atomicAdd(&managed_total, 1ull);
    atomicSub(hits, 1);
    atomicExch(energy, 0.0f);
    atomicMin(hits, 0);
    atomicMax(hits, __popc(index.x) + __clz(i) + __ffs(i) + (int)__brev(grid.x) + __mul24(i, i) + (int)__umulhi(2u, 3u));
    atomicInc(ticket, 100u);
    atomicDec(ticket, 100u);
    atomicAnd(hits, 0xff);
    atomicOr(hits, 1);
    atomicXor(hits, 2);
    atomicCAS(&device_counter, 0, 1);
    atomicAdd_block(hits, 1);
    atomicAdd_system(hits, 1);
    atomic_max_float(energy, e);
    __threadfence();
    __threadfence_block();
    long long t = clock64() + clock();
    if (i == 0)
        printf("energy %f at %lld, %f\n", e, t, __ldg(&p[0].color.x));
    assert(e == e);
    float *scratch = (float *)malloc(4 * sizeof(float));
    memset(scratch, 0, 4 * sizeof(float));
    free(scratch);
}


int main()
{
    const int n = 1000;
    std::vector<Particle> host(n);
    Particle *particles;
    float *energy;
    int *hits;
    double *sum;
    unsigned int *ticket;
    cudaMalloc(&particles, n * sizeof(Particle));
    cudaMalloc((void **)&energy, sizeof(float));
    cudaMallocManaged(&hits, sizeof(int));
    cudaMalloc(&sum, sizeof(double));
    cudaMalloc(&ticket, sizeof(unsigned int));
    cudaMemcpy(particles, host.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
    float c[4] = {1, 2, 3, 4};
    cudaMemcpyToSymbol(coefficients, c, sizeof c);
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    dim3 block(BLOCK), grid((n + BLOCK - 1) / BLOCK);
    physics<<<grid, block>>>(particles, energy, hits, sum, ticket, n);
    physics<<<grid, block, 0, stream>>>(particles, energy, hits, sum, ticket, n);
    reduce<float, 2><<<grid, BLOCK, BLOCK * sizeof(float)>>>(energy, energy, n);
    cudaFuncSetAttribute(reduce<float, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
        fprintf(stderr, "%s: %s\n", cudaGetErrorName(status), cudaGetErrorString(status));
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s, %d SMs, %.3f ms\n", prop.name, prop.multiProcessorCount, ms);
    cudaStreamDestroy(stream);
    cudaFree(particles);
    cudaDeviceSynchronize();
    return 0;
}
