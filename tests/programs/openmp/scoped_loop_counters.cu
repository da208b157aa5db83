// Loop counters declared once and reused (scoped-loop-counters).  Each kernel is checked bit for
// bit against the same arithmetic on the host, in the order the threads of a GPU would do it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define B 128

// Rodinia srad's reduce: one `i` for the tree of a full block, for the divisibility of the last
// block's count and for its remainder loop, which one thread runs.
__global__ void reduce_like(const float *in, float *out, int n)
{
    int tx = threadIdx.x;
    int ei = blockIdx.x * B + tx;
    int nf = B - (gridDim.x * B - n);  // elements of the last block
    int df = 0;
    int i;
    __shared__ float s[B];
    if (ei < n)
        s[tx] = in[ei];
    __syncthreads();
    if (blockIdx.x != gridDim.x - 1 || nf == B) {
        for (i = 2; i <= B; i = 2 * i) {
            if ((tx + 1) % i == 0)
                s[tx] = s[tx] + s[tx - i / 2];
            __syncthreads();
        }
        if (tx == B - 1)
            out[blockIdx.x] = s[tx];
    } else {
        for (i = 2; i <= B; i = 2 * i)
            if (nf >= i)
                df = i;
        for (i = 2; i <= df; i = 2 * i) {
            if ((tx + 1) % i == 0 && tx < df)
                s[tx] = s[tx] + s[tx - i / 2];
            __syncthreads();
        }
        if (tx == df - 1) {
            for (i = blockIdx.x * B + df; i < blockIdx.x * B + nf; i++)
                s[tx] = s[tx] + in[i];
            out[blockIdx.x] = s[tx];
        }
    }
}

static float reduce_like_host(const float *in, int count)
{
    float s[B];
    for (int t = 0; t < count; t++) s[t] = in[t];
    int df = 0;
    for (int i = 2; i <= B; i *= 2)
        if (count >= i) df = i;
    for (int i = 2; i <= df; i *= 2)
        for (int t = 0; t < df; t++)
            if ((t + 1) % i == 0) s[t] = s[t] + s[t - i / 2];
    for (int k = df; k < count; k++) s[df - 1] = s[df - 1] + in[k];
    return s[df - 1];
}

// The counter is read after its loop: one variable.
__global__ void read_after_loop(const int *in, int *out, int k)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    int i;
    int acc = 0;
    s[t] = in[t];
    __syncthreads();
    for (i = 0; i < k + t % 3; i++)
        acc += s[(t + i) % B];
    __syncthreads();
    out[t] = acc * 1000 + i;
}

// A loop of the counter inside another of it: the inner one ends the outer.
__global__ void nested_same(int *out)
{
    int j;
    int acc = 0;
    for (j = 0; j < 2; j++)
        for (j = 5; j < 7; j++)
            acc += j * (int)threadIdx.x;
    out[threadIdx.x] = acc * 100 + j;
}

// The counter's address is taken: one variable.
__global__ void address_taken(int *out)
{
    __shared__ int s[B];
    int i;
    int *p = &i;
    int acc = 0;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    for (i = 0; i < 4; i++)
        acc += s[(threadIdx.x + *p) % B];
    out[threadIdx.x] = acc;
}

int main()
{
    int failures = 0;
    const int n = 5 * B + 77;  // the last block holds 77 elements
    const int blocks = (n + B - 1) / B;
    float in[blocks * B], out[blocks];
    srand(5);
    for (int i = 0; i < n; i++)
        in[i] = (float)rand() / RAND_MAX * 100.0f + 1e-4f * (float)(rand() % 997);
    float *din, *dout;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    reduce_like<<<blocks, B>>>(din, dout, n);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
        int count = b == blocks - 1 ? n - b * B : B;
        float want = reduce_like_host(in + b * B, count);
        if (out[b] != want) {
            printf("reduce_like block %d: %.9g, host %.9g\n", b, out[b], want);
            failures++;
        }
    }

    int iin[B], iout[B];
    for (int t = 0; t < B; t++) iin[t] = rand() % 100;
    int *diin, *diout;
    cudaMalloc(&diin, sizeof iin);
    cudaMalloc(&diout, sizeof iout);
    cudaMemcpy(diin, iin, sizeof iin, cudaMemcpyHostToDevice);
    read_after_loop<<<1, B>>>(diin, diout, 4);
    cudaMemcpy(iout, diout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int t = 0; t < B; t++) {
        int acc = 0, i;
        for (i = 0; i < 4 + t % 3; i++) acc += iin[(t + i) % B];
        if (iout[t] != acc * 1000 + i) {
            printf("read_after_loop thread %d: %d, host %d\n", t, iout[t], acc * 1000 + i);
            failures++;
        }
    }

    nested_same<<<1, B>>>(diout);
    cudaMemcpy(iout, diout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int t = 0; t < B; t++) {
        int want = (5 * t + 6 * t) * 100 + 8;  // the inner loop once, then j = 8 ends the outer
        if (iout[t] != want) {
            printf("nested_same thread %d: %d, host %d\n", t, iout[t], want);
            failures++;
        }
    }

    address_taken<<<1, B>>>(diout);
    cudaMemcpy(iout, diout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int t = 0; t < B; t++) {
        int want = 0;
        for (int i = 0; i < 4; i++) want += (t + i) % B;
        if (iout[t] != want) {
            printf("address_taken thread %d: %d, host %d\n", t, iout[t], want);
            failures++;
        }
    }

    printf(failures ? "FAIL\n" : "PASS\n");
    return failures != 0;
}
