// uniform-kept: a value kept across __syncthreads() that every thread assigns the same
// block-invariant value becomes one variable of the block, assigned once before the thread loop.
// Each kernel's results are checked against the host's; the kernels after the first keep their
// values per thread (a thread-varying value, a read before the assignment, an assignment under a
// thread's condition, a compound update).
#include <cstdio>

#define BLOCK 64

// kmeans' shape: the row base of each centre, assigned in the centre loop, read after a barrier,
// behind a bounds guard (n is not a multiple of the block).
__global__ void centre_sums(const float *centres, const float *points, float *out, int n, int k, int nf)
{
    __shared__ float tile[BLOCK];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    for (int c = 0; c < k; c++) {
        int base = c * nf;
        tile[threadIdx.x] = p < n ? points[p] : 0.0f;
        __syncthreads();
        if (p < n) {
            float s = tile[(threadIdx.x + 1) % BLOCK];
            for (int f = 0; f < nf; f++)
                s += centres[base + f];
            out[c * n + p] = s;
        }
        __syncthreads();
    }
}

// kmeans' own shape: no barrier, but loop-interchange moves the centre and feature loops out of
// the thread loop, so `base` lives across thread loops, all behind the folded bound p < n.
__global__ void nearest(const float *feat, const float *cen, int *member, int n, int k, int nf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) {
        int best_c = 0;
        float best = 3.0e38f;
        for (int c = 0; c < k; c++) {
            int base = c * nf;
            float d = 0.0f;
            for (int f = 0; f < nf; f++) {
                float x = feat[f * n + p] - cen[base + f];
                d += x * x;
            }
            if (d < best) {
                best = d;
                best_c = c;
            }
        }
        member[p] = best_c;
    }
}

// backprop's reduction: the loop counter lives across the barrier in its body, assigned 1 and
// incremented by every thread alike.
__global__ void tree_sum(const float *in, float *out)
{
    __shared__ float s[BLOCK];
    s[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int i = 1; i <= __log2f(BLOCK); i++) {  // a call: the threads compute the condition
        int step = 1 << i;
        if (threadIdx.x % step == 0)
            s[threadIdx.x] += s[threadIdx.x + step / 2];
        __syncthreads();
    }
    out[blockIdx.x * BLOCK + threadIdx.x] = s[threadIdx.x];
}

// The value differs between threads: stays per thread.
__global__ void varying(int *out)
{
    __shared__ int s[BLOCK];
    int v = threadIdx.x * 3 + blockIdx.x;
    s[threadIdx.x] = v;
    __syncthreads();
    out[blockIdx.x * BLOCK + threadIdx.x] = v + s[(threadIdx.x + 1) % BLOCK];
}

// The thread reads the value before assigning it again in the same loop: each thread must read
// its own previous value, not the one the thread before it just assigned.
__global__ void read_before_assign(int *out, int rounds)
{
    __shared__ int s[BLOCK];
    int v = 7;
    int total = 0;
    for (int r = 0; r < rounds; r++) {
        total += v;
        v = r * 5 + blockIdx.x;
        s[threadIdx.x] = total;
        __syncthreads();
        total += s[(threadIdx.x + 3) % BLOCK];
        __syncthreads();
    }
    out[blockIdx.x * BLOCK + threadIdx.x] = total + v;
}

// Assigned under a condition that differs between threads.
__global__ void conditional(int *out)
{
    __shared__ int s[BLOCK];
    int v = 1;
    if (threadIdx.x % 2 == 0)
        v = blockIdx.x + 10;
    s[threadIdx.x] = v;
    __syncthreads();
    out[blockIdx.x * BLOCK + threadIdx.x] = v * 100 + s[(threadIdx.x + 1) % BLOCK];
}

// A compound update: every thread adds to its own copy.
__global__ void compound(int *out, int rounds)
{
    __shared__ int s[BLOCK];
    int v = blockIdx.x;
    for (int r = 0; r < rounds; r++) {
        v += 2;
        s[threadIdx.x] = v;
        __syncthreads();
        v += s[(threadIdx.x + 1) % BLOCK] & 1;
        __syncthreads();
    }
    out[blockIdx.x * BLOCK + threadIdx.x] = v;
}

int main()
{
    const int n = 1000, k = 5, nf = 9, blocks = (n + BLOCK - 1) / BLOCK;
    float centres[k * nf], points[n];
    for (int i = 0; i < k * nf; i++)
        centres[i] = (float)((i * 7) % 13) / 3.0f;
    for (int i = 0; i < n; i++)
        points[i] = (float)(i % 17) / 5.0f;
    float *d_centres, *d_points, *d_out;
    int *d_iout;
    cudaMalloc(&d_centres, sizeof centres);
    cudaMalloc(&d_points, sizeof points);
    cudaMalloc(&d_out, k * n * sizeof(float));
    cudaMalloc(&d_iout, blocks * BLOCK * sizeof(int));
    cudaMemcpy(d_centres, centres, sizeof centres, cudaMemcpyHostToDevice);
    cudaMemcpy(d_points, points, sizeof points, cudaMemcpyHostToDevice);
    int bad = 0;

    static float out[k * n];
    centre_sums<<<blocks, BLOCK>>>(d_centres, d_points, d_out, n, k, nf);
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    for (int c = 0; c < k; c++)
        for (int p = 0; p < n; p++) {
            int q = (p / BLOCK) * BLOCK + (p % BLOCK + 1) % BLOCK;
            float s = q < n ? points[q] : 0.0f;
            for (int f = 0; f < nf; f++)
                s += centres[c * nf + f];
            if (out[c * n + p] != s && bad++ < 5)
                printf("centre_sums[%d][%d] = %g, expected %g\n", c, p, out[c * n + p], s);
        }

    static float feat[nf * n];
    for (int i = 0; i < nf * n; i++)
        feat[i] = (float)((i * 31) % 23) / 4.0f;
    float *d_feat;
    int *d_member;
    cudaMalloc(&d_feat, sizeof feat);
    cudaMalloc(&d_member, n * sizeof(int));
    cudaMemcpy(d_feat, feat, sizeof feat, cudaMemcpyHostToDevice);
    nearest<<<blocks, BLOCK>>>(d_feat, d_centres, d_member, n, k, nf);
    static int member[n];
    cudaMemcpy(member, d_member, sizeof member, cudaMemcpyDeviceToHost);
    for (int p = 0; p < n; p++) {
        int best_c = 0;
        float best = 3.0e38f;
        for (int c = 0; c < k; c++) {
            float d = 0.0f;
            for (int f = 0; f < nf; f++) {
                float x = feat[f * n + p] - centres[c * nf + f];
                d += x * x;
            }
            if (d < best) {
                best = d;
                best_c = c;
            }
        }
        if (member[p] != best_c && bad++ < 5)
            printf("nearest[%d] = %d, expected %d\n", p, member[p], best_c);
    }

    static float values[blocks * BLOCK], sums[blocks * BLOCK];
    for (int i = 0; i < blocks * BLOCK; i++)
        values[i] = (float)((i * 13) % 29) / 8.0f;
    float *d_values, *d_sums;
    cudaMalloc(&d_values, sizeof values);
    cudaMalloc(&d_sums, sizeof sums);
    cudaMemcpy(d_values, values, sizeof values, cudaMemcpyHostToDevice);
    tree_sum<<<blocks, BLOCK>>>(d_values, d_sums);
    cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
        float s[BLOCK];
        for (int t = 0; t < BLOCK; t++)
            s[t] = values[b * BLOCK + t];
        for (int i = 1; i <= 6; i++)
            for (int t = 0; t < BLOCK; t += 1 << i)
                s[t] += s[t + (1 << i) / 2];
        for (int t = 0; t < BLOCK; t++)
            if (sums[b * BLOCK + t] != s[t] && bad++ < 5)
                printf("tree_sum[%d][%d] = %g, expected %g\n", b, t, sums[b * BLOCK + t], s[t]);
    }

    static int iout[blocks * BLOCK];
    varying<<<blocks, BLOCK>>>(d_iout);
    cudaMemcpy(iout, d_iout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < BLOCK; t++) {
            int expected = t * 3 + b + ((t + 1) % BLOCK) * 3 + b;
            if (iout[b * BLOCK + t] != expected && bad++ < 5)
                printf("varying[%d][%d] = %d, expected %d\n", b, t, iout[b * BLOCK + t], expected);
        }

    const int rounds = 4;
    read_before_assign<<<blocks, BLOCK>>>(d_iout, rounds);
    cudaMemcpy(iout, d_iout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
        int total[BLOCK], v = 7, shared[BLOCK];
        for (int t = 0; t < BLOCK; t++)
            total[t] = 0;
        for (int r = 0; r < rounds; r++) {
            for (int t = 0; t < BLOCK; t++)
                total[t] += v;
            v = r * 5 + b;
            for (int t = 0; t < BLOCK; t++)
                shared[t] = total[t];
            for (int t = 0; t < BLOCK; t++)
                total[t] += shared[(t + 3) % BLOCK];
        }
        for (int t = 0; t < BLOCK; t++)
            if (iout[b * BLOCK + t] != total[t] + v && bad++ < 5)
                printf("read_before_assign[%d][%d] = %d, expected %d\n", b, t, iout[b * BLOCK + t], total[t] + v);
    }

    conditional<<<blocks, BLOCK>>>(d_iout);
    cudaMemcpy(iout, d_iout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < BLOCK; t++) {
            int v = t % 2 == 0 ? b + 10 : 1, next = (t + 1) % BLOCK % 2 == 0 ? b + 10 : 1;
            if (iout[b * BLOCK + t] != v * 100 + next && bad++ < 5)
                printf("conditional[%d][%d] = %d, expected %d\n", b, t, iout[b * BLOCK + t], v * 100 + next);
        }

    compound<<<blocks, BLOCK>>>(d_iout, rounds);
    cudaMemcpy(iout, d_iout, sizeof iout, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
        int v[BLOCK], shared[BLOCK];
        for (int t = 0; t < BLOCK; t++)
            v[t] = b;
        for (int r = 0; r < rounds; r++) {
            for (int t = 0; t < BLOCK; t++)
                shared[t] = v[t] += 2;
            for (int t = 0; t < BLOCK; t++)
                v[t] += shared[(t + 1) % BLOCK] & 1;
        }
        for (int t = 0; t < BLOCK; t++)
            if (iout[b * BLOCK + t] != v[t] && bad++ < 5)
                printf("compound[%d][%d] = %d, expected %d\n", b, t, iout[b * BLOCK + t], v[t]);
    }

    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
