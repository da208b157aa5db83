// Locals assigned after their declaration, living across barriers (single-assignment).  Each
// kernel is checked bit for bit against the same arithmetic on the host, in the same order.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define B 64
#define STEPS 3

// A pyramid stencil as Rodinia's pathfinder and hotspot write it: a tile of B cells computes
// B - 2 * STEPS of them over STEPS steps through shared memory; the coefficient is declared and
// assigned later, the neighbour indices are clamped in place.  Only `computed` must be kept.
__global__ void pyramid(const float *in, float *out, int n, float r)
{
    __shared__ float prev[B];
    __shared__ float next[B];
    float coef;
    int tx = threadIdx.x;
    int small = B - 2 * STEPS;
    int blk = small * blockIdx.x - STEPS;
    int x = blk + tx;
    int validMin = (blk < 0) ? -blk : 0;
    int validMax = (blk + B - 1 > n - 1) ? B - 1 - (blk + B - n) : B - 1;
    int W = tx - 1;
    int E = tx + 1;
    coef = 1 / r;
    W = (W < validMin) ? validMin : W;
    E = (E > validMax) ? validMax : E;
    if (x >= 0 && x <= n - 1)
        prev[tx] = in[x];
    __syncthreads();
    bool computed;
    for (int i = 0; i < STEPS; i++) {
        computed = false;
        if (tx >= i + 1 && tx <= B - i - 2 && tx >= validMin && tx <= validMax) {
            computed = true;
            next[tx] = prev[tx] + coef * (prev[W] + prev[E] - 2.0 * prev[tx]);
        }
        __syncthreads();
        if (i == STEPS - 1)
            break;
        if (computed)
            prev[tx] = next[tx];
        __syncthreads();
    }
    if (computed)
        out[x] = next[tx];
}

static void pyramid_host(const float *in, float *out, int n, float r)
{
    float coef = 1 / r;
    float prev[4096], next[4096];
    memcpy(prev, in, n * sizeof(float));
    for (int i = 0; i < STEPS; i++) {
        for (int x = 0; x < n; x++) {
            int W = x > 0 ? x - 1 : 0, E = x < n - 1 ? x + 1 : n - 1;
            next[x] = prev[x] + coef * (prev[W] + prev[E] - 2.0 * prev[x]);
        }
        memcpy(prev, next, n * sizeof(float));
    }
    memcpy(out, next, n * sizeof(float));
}

// Compound assignments at the top level: k's three values, the last two kept by no thread.
__global__ void compound(int *out, int shift)
{
    __shared__ int s[B];
    int k = threadIdx.x;
    k += shift;
    k *= 3;
    k %= B;
    s[threadIdx.x] = k;
    __syncthreads();
    out[blockIdx.x * B + threadIdx.x] = s[k] + k;
}

// Assigned under a condition: one variable with two values, kept.
__global__ void in_branch(int *out)
{
    __shared__ int s[B];
    int v = threadIdx.x;
    if (threadIdx.x & 1)
        v = 5;
    s[threadIdx.x] = v;
    __syncthreads();
    out[blockIdx.x * B + threadIdx.x] = s[B - 1 - threadIdx.x] + v;
}

// Changed through its address and through a reference parameter: kept as written.
__device__ __noinline__ void bump(int &x) { x += 7; }

__global__ void through_memory(int *out)
{
    __shared__ int s[B];
    int v = threadIdx.x;
    int *p = &v;
    *p += 1;
    v = v * 2;
    int w = threadIdx.x;
    bump(w);
    w = w + 1;
    s[threadIdx.x] = v;
    __syncthreads();
    out[blockIdx.x * B + threadIdx.x] = s[B - 1 - threadIdx.x] + v + w;
}

int main()
{
    const int n = 1000, blocks = (n + B - 2 * STEPS - 1) / (B - 2 * STEPS);
    float in[n], out[n], ref[n];
    for (int i = 0; i < n; i++)
        in[i] = (float)((i * 37) % 101) / 7.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof in);
    cudaMalloc(&d_out, sizeof out);
    cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
    pyramid<<<blocks, B>>>(d_in, d_out, n, 3.0f);
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    pyramid_host(in, ref, n, 3.0f);
    int bad = memcmp(out, ref, sizeof out) != 0;
    if (bad)
        printf("pyramid differs\n");

    const int G = 4;
    int res[G * B], *d_res;
    cudaMalloc(&d_res, sizeof res);
    compound<<<G, B>>>(d_res, 5);
    cudaMemcpy(res, d_res, sizeof res, cudaMemcpyDeviceToHost);
    for (int i = 0; i < G * B; i++) {
        int t = i % B, k = (t + 5) * 3 % B;
        int s_k = (k + 5) * 3 % B;
        if (res[i] != s_k + k) {
            printf("compound %d: %d != %d\n", i, res[i], s_k + k);
            bad = 1;
            break;
        }
    }
    in_branch<<<G, B>>>(d_res);
    cudaMemcpy(res, d_res, sizeof res, cudaMemcpyDeviceToHost);
    for (int i = 0; i < G * B; i++) {
        int t = i % B, o = B - 1 - t;
        int want = ((o & 1) ? 5 : o) + ((t & 1) ? 5 : t);
        if (res[i] != want) {
            printf("in_branch %d: %d != %d\n", i, res[i], want);
            bad = 1;
            break;
        }
    }
    through_memory<<<G, B>>>(d_res);
    cudaMemcpy(res, d_res, sizeof res, cudaMemcpyDeviceToHost);
    for (int i = 0; i < G * B; i++) {
        int t = i % B, o = B - 1 - t;
        int want = (o + 1) * 2 + (t + 1) * 2 + t + 8;
        if (res[i] != want) {
            printf("through_memory %d: %d != %d\n", i, res[i], want);
            bad = 1;
            break;
        }
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
