// loop-interchange behind a bounds guard: kmeans' shape, each thread the nearest of K centres
// to its point over F features stored feature-major (feat[f * n + p]: consecutive threads read
// consecutive floats, one feature row far from the next).  The centre loop and the feature loop
// move outside the thread loop, the guard goes into each piece; every thread's sum keeps its
// order, so the results equal the host's bit for bit.  Also a guard whose limit changes in the
// body, a guarded loop with a thread-varying trip count, and one whose trip count divides
// (all kept).
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void nearest_centre(const float *feat, const float *cen, int *member, float *dist,
                               int n, int k, int nf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) {
        int best_c = 0;
        float best = 3.0e38f;
        for (int c = 0; c < k; c++) {
            float d = 0.0f;
            for (int f = 0; f < nf; f++) {
                float x = feat[f * n + p] - cen[c * nf + f];
                d += x * x;
            }
            if (d < best) {
                best = d;
                best_c = c;
            }
        }
        member[p] = best_c;
        dist[p] = best;
    }
}

// Rodinia kmeans' own spelling: counters declared before their loops, the feature read through a
// texture at a local index.  Moves as nearest_centre does.
texture<float, 1, cudaReadModeElementType> feat_tex;

__global__ void nearest_centre_c89(const float *cen, int *member, int n, int k, int nf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int best_c = -1;
    if (p < n) {
        int i, j;
        float best = 3.0e38f;
        for (i = 0; i < k; i++) {
            float d = 0.0f;
            for (j = 0; j < nf; j++) {
                int addr = p + j * n;
                float x = tex1Dfetch(feat_tex, addr) - cen[i * nf + j];
                d += x * x;
            }
            if (d < best) {
                best = d;
                best_c = i;
            }
        }
    }
    if (p < n)
        member[p] = best_c;
}

// The guard's limit is assigned inside the guarded body: the guard cannot be repeated per piece.
__global__ void moving_limit(const float *feat, float *out, int n, int nf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int limit = n;
    if (p < limit) {
        float s = 0.0f;
        for (int f = 0; f < nf; f++)
            s += feat[f * n + p];
        limit = 0;
        out[p] = s + limit;
    }
}

// The trip count depends on the thread: kept.
__global__ void ragged_rows(const float *feat, float *out, int n, int nf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) {
        float s = 0.0f;
        for (int f = 0; f < p % nf; f++)
            s += feat[f * n + p];
        out[p] = s;
    }
}

// The trip count divides by q: run once per block, the header would divide by zero in a launch
// where no thread passes the guard (n = 0, q = 0 below): kept.
__global__ void divided_rows(const float *feat, float *out, int n, int nf, int q)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) {
        float s = 0.0f;
        for (int f = 0; f < nf / q; f++)
            s += feat[f * n + p];
        out[p] = s;
    }
}

int main()
{
    const int n = 1000, k = 5, nf = 34;  // n is no multiple of the block: the guard matters
    float *feat = (float *)malloc(sizeof(float) * n * nf), *cen = (float *)malloc(sizeof(float) * k * nf);
    unsigned seed = 12345u;
    for (int i = 0; i < n * nf; i++) {
        seed = seed * 1103515245u + 12345u;
        feat[i] = (float)((seed >> 8) % 10000) / 997.0f;
    }
    for (int c = 0; c < k; c++)
        for (int f = 0; f < nf; f++)
            cen[c * nf + f] = feat[f * n + c * 37];
    float *d_feat, *d_cen, *d_dist, *d_out, *d_ragged;
    int *d_member;
    cudaMalloc(&d_feat, sizeof(float) * n * nf);
    cudaMalloc(&d_cen, sizeof(float) * k * nf);
    cudaMalloc(&d_dist, sizeof(float) * n);
    cudaMalloc(&d_out, sizeof(float) * n);
    cudaMalloc(&d_ragged, sizeof(float) * n);
    cudaMalloc(&d_member, sizeof(int) * n);
    cudaMemcpy(d_feat, feat, sizeof(float) * n * nf, cudaMemcpyHostToDevice);
    cudaMemcpy(d_cen, cen, sizeof(float) * k * nf, cudaMemcpyHostToDevice);
    int blocks = (n + 127) / 128;
    int *d_member_c89;
    cudaMalloc(&d_member_c89, sizeof(int) * n);
    cudaBindTexture(NULL, feat_tex, d_feat, sizeof(float) * n * nf);
    nearest_centre_c89<<<blocks, 128>>>(d_cen, d_member_c89, n, k, nf);
    nearest_centre<<<blocks, 128>>>(d_feat, d_cen, d_member, d_dist, n, k, nf);
    moving_limit<<<blocks, 128>>>(d_feat, d_out, n, nf);
    ragged_rows<<<blocks, 128>>>(d_feat, d_ragged, n, nf);
    float *d_divided;
    cudaMalloc(&d_divided, sizeof(float) * n);
    divided_rows<<<blocks, 128>>>(d_feat, d_divided, n, nf, 1);
    divided_rows<<<blocks, 128>>>(d_feat, d_divided, 0, nf, 0);  // no thread passes the guard
    float *divided = (float *)malloc(sizeof(float) * n);
    cudaMemcpy(divided, d_divided, sizeof(float) * n, cudaMemcpyDeviceToHost);
    int *member = (int *)malloc(sizeof(int) * n);
    float *dist = (float *)malloc(sizeof(float) * n), *out = (float *)malloc(sizeof(float) * n);
    float *ragged = (float *)malloc(sizeof(float) * n);
    int *member_c89 = (int *)malloc(sizeof(int) * n);
    cudaMemcpy(member_c89, d_member_c89, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(member, d_member, sizeof(int) * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(dist, d_dist, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(out, d_out, sizeof(float) * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(ragged, d_ragged, sizeof(float) * n, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int p = 0; p < n; p++) {
        int best_c = 0;
        float best = 3.0e38f;
        for (int c = 0; c < k; c++) {
            float d = 0.0f;
            for (int f = 0; f < nf; f++) {
                float x = feat[f * n + p] - cen[c * nf + f];
                d += x * x;
            }
            if (d < best) {
                best = d;
                best_c = c;
            }
        }
        float s = 0.0f, r = 0.0f;
        for (int f = 0; f < nf; f++)
            s += feat[f * n + p];
        for (int f = 0; f < p % nf; f++)
            r += feat[f * n + p];
        // bit for bit: the same operations in the same order
        if (member[p] != best_c || member_c89[p] != best_c || memcmp(&dist[p], &best, sizeof best) != 0 || memcmp(&out[p], &s, sizeof s) != 0
            || memcmp(&ragged[p], &r, sizeof r) != 0 || memcmp(&divided[p], &s, sizeof s) != 0) {
            if (bad++ < 5)
                printf("point %d: member %d (host %d) dist %.9g (host %.9g) sum %.9g (host %.9g) ragged %.9g (host %.9g)\n",
                       p, member[p], best_c, dist[p], best, out[p], s, ragged[p], r);
        }
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
