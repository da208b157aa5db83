// Divisibility guards on the thread index (guard-folding's strided loops): interleaved tree
// reductions, warp leaders, every other row.  Each kernel is checked bit for bit against the
// same arithmetic on the host, in the order the threads of a GPU would do it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define B 256

// The interleaved tree of Rodinia srad's reduce: at level i the threads whose index + 1 is a
// multiple of i add the partial sum i / 2 to their left.
__global__ void tree_plus_one(const float *in, float *out)
{
    __shared__ float s[B];
    int tx = threadIdx.x;
    s[tx] = in[blockIdx.x * B + tx];
    __syncthreads();
    for (int i = 2; i <= B; i = 2 * i) {
        if ((tx + 1) % i == 0)
            s[tx] = s[tx] + s[tx - i / 2];
        __syncthreads();
    }
    if (tx == B - 1)
        out[blockIdx.x] = s[tx];
}

static float tree_plus_one_host(const float *in)
{
    float s[B];
    for (int t = 0; t < B; t++) s[t] = in[t];
    for (int i = 2; i <= B; i *= 2)
        for (int t = 0; t < B; t++)
            if ((t + 1) % i == 0) s[t] = s[t] + s[t - i / 2];
    return s[B - 1];
}

// The CUDA SDK's first reduction: an unsigned stride, the divisor 2 * s.
__global__ void reduce0(const int *in, int *out)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Warp leaders below a limit: a literal divisor and a bound; a block of 100 threads.
__global__ void leaders(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    if (t % 32 == 0 && t < n)
        out[blockIdx.x * 4 + t / 32] = in[blockIdx.x * 100 + t] * 3 + 1;
}

// !(index % d) with an offset: threads 1, 5, 9, ...
__global__ void negated(int *out)
{
    int t = threadIdx.x;
    if (!((t + 3) % 4))
        out[t] = t * 7;
}

// Every other row of a 2-D block.
__global__ void even_rows(int *out)
{
    if (threadIdx.y % 2 == 0)
        out[threadIdx.y * blockDim.x + threadIdx.x] = (int)(threadIdx.y * 100 + threadIdx.x);
}

// Not folded: the index is negative for the first threads, the divisor a parameter that may be
// negative.  C's remainder of a negative index is negative or zero; the guard must keep it.
__global__ void signed_remainder(int *out, int k)
{
    int t = (int)threadIdx.x - 8;
    if (t % k == 0)
        out[threadIdx.x] = t;
}

template <class T> static T *device_copy(const T *host, size_t n)
{
    T *d;
    cudaMalloc(&d, n * sizeof(T));
    cudaMemcpy(d, host, n * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

int main()
{
    int failures = 0;
    const int blocks = 6;
    float fin[blocks * B], fout[blocks];
    int iin[blocks * B], iout[blocks];
    srand(11);
    for (int i = 0; i < blocks * B; i++) {
        fin[i] = (float)rand() / RAND_MAX * 1000.0f + 1e-3f * (float)(rand() % 1000);
        iin[i] = rand() % 2001 - 1000;
    }
    float *dfin = device_copy(fin, blocks * B), *dfout;
    int *diin = device_copy(iin, blocks * B), *diout;
    cudaMalloc(&dfout, sizeof fout);
    cudaMalloc(&diout, sizeof iout);

    tree_plus_one<<<blocks, B>>>(dfin, dfout);
    cudaMemcpy(fout, dfout, sizeof fout, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++)
        if (fout[b] != tree_plus_one_host(fin + b * B)) {
            printf("tree_plus_one block %d: %.9g, host %.9g\n", b, fout[b], tree_plus_one_host(fin + b * B));
            failures++;
        }

    reduce0<<<blocks, B, B * sizeof(int)>>>(diin, diout);
    cudaMemcpy(iout, diout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
        int sum = 0;
        for (int t = 0; t < B; t++) sum += iin[b * B + t];
        if (iout[b] != sum) {
            printf("reduce0 block %d: %d, host %d\n", b, iout[b], sum);
            failures++;
        }
    }

    int lead[blocks * 4];
    const int limits[] = {100, 33, 0};
    for (int n : limits) {
        for (int i = 0; i < blocks * 4; i++) lead[i] = -1;
        int *dlead = device_copy(lead, blocks * 4);
        leaders<<<blocks, 100>>>(diin, dlead, n);
        cudaMemcpy(lead, dlead, sizeof lead, cudaMemcpyDeviceToHost);
        for (int b = 0; b < blocks; b++)
            for (int w = 0; w < 4; w++) {
                int t = w * 32, want = (t < 100 && t < n) ? iin[b * 100 + t] * 3 + 1 : -1;
                if (lead[b * 4 + w] != want) {
                    printf("leaders n=%d block %d warp %d: %d, host %d\n", n, b, w, lead[b * 4 + w], want);
                    failures++;
                }
            }
        cudaFree(dlead);
    }

    int small[64];
    for (int i = 0; i < 64; i++) small[i] = -1;
    int *dsmall = device_copy(small, 64);
    negated<<<1, 61>>>(dsmall);
    cudaMemcpy(small, dsmall, sizeof small, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++) {
        int want = (t < 61 && (t + 3) % 4 == 0) ? t * 7 : -1;
        if (small[t] != want) {
            printf("negated thread %d: %d, host %d\n", t, small[t], want);
            failures++;
        }
    }

    int grid2[8 * 7];
    for (int i = 0; i < 56; i++) grid2[i] = -1;
    int *dgrid2 = device_copy(grid2, 56);
    even_rows<<<1, dim3(8, 7)>>>(dgrid2);
    cudaMemcpy(grid2, dgrid2, sizeof grid2, cudaMemcpyDeviceToHost);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 8; x++) {
            int want = y % 2 == 0 ? y * 100 + x : -1;
            if (grid2[y * 8 + x] != want) {
                printf("even_rows (%d, %d): %d, host %d\n", x, y, grid2[y * 8 + x], want);
                failures++;
            }
        }

    const int divisors[] = {3, -3, 5};
    for (int k : divisors) {
        for (int i = 0; i < 64; i++) small[i] = -100;
        cudaMemcpy(dsmall, small, sizeof small, cudaMemcpyHostToDevice);
        signed_remainder<<<1, 40>>>(dsmall, k);
        cudaMemcpy(small, dsmall, sizeof small, cudaMemcpyDeviceToHost);
        for (int t = 0; t < 64; t++) {
            int v = t - 8, want = (t < 40 && v % k == 0) ? v : -100;
            if (small[t] != want) {
                printf("signed_remainder k=%d thread %d: %d, host %d\n", k, t, small[t], want);
                failures++;
            }
        }
    }

    printf(failures ? "FAIL\n" : "PASS\n");
    return failures != 0;
}
