// kmeans (texture-free): Lloyd's algorithm for a fixed number of iterations.  The membership kernel
// gives each point (one thread) its nearest centre, reading the point's features from a transposed
// (feature-major) copy so that neighbouring threads read neighbouring words; the host moves the
// centres to their members' means.  Usage: kmeans POINTS FEATURES CLUSTERS ITERS SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

__global__ void membership(const float *features_t, const float *centres, int *member, int n, int nf, int k)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n)
        return;
    int best = 0;
    float best_dist = 3.0e38f;
    for (int c = 0; c < k; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < nf; ++f) {
            float d = features_t[f * n + p] - centres[c * nf + f];
            dist += d * d;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    member[p] = best;
}

// Centres to their members' means, in double, point by point (as the OpenMP version).
static void update_centres(const std::vector<float> &features, const std::vector<int> &member,
                           std::vector<float> &centres, int n, int nf, int k)
{
    std::vector<double> sum(k * nf, 0.0);
    std::vector<int> count(k, 0);
    for (int p = 0; p < n; ++p) {
        count[member[p]]++;
        for (int f = 0; f < nf; ++f)
            sum[member[p] * nf + f] += features[p * nf + f];
    }
    for (int c = 0; c < k; ++c)
        if (count[c])
            for (int f = 0; f < nf; ++f)
                centres[c * nf + f] = (float)(sum[c * nf + f] / count[c]);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: kmeans POINTS FEATURES CLUSTERS ITERS SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), nf = atoi(argv[2]), k = atoi(argv[3]), iters = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    std::vector<float> features = kmeans_features(rng, n, nf), features_t(n * nf), centres(k * nf);
    for (int p = 0; p < n; ++p)
        for (int f = 0; f < nf; ++f)
            features_t[f * n + p] = features[p * nf + f];
    for (int c = 0; c < k; ++c)
        for (int f = 0; f < nf; ++f)
            centres[c * nf + f] = features[c * nf + f];
    std::vector<int> member(n);
    float *d_features_t, *d_centres;
    int *d_member;
    cudaMalloc(&d_features_t, n * nf * sizeof(float));
    cudaMalloc(&d_centres, k * nf * sizeof(float));
    cudaMalloc(&d_member, n * sizeof(int));
    cudaMemcpy(d_features_t, features_t.data(), n * nf * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    const int block = 256;
    for (int it = 0; it < iters; ++it) {
        cudaMemcpy(d_centres, centres.data(), k * nf * sizeof(float), cudaMemcpyHostToDevice);
        membership<<<(n + block - 1) / block, block>>>(d_features_t, d_centres, d_member, n, nf, k);
        cudaMemcpy(member.data(), d_member, n * sizeof(int), cudaMemcpyDeviceToHost);
        update_centres(features, member, centres, n, nf, k);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[6]);
    for (int c = 0; c < k * nf; ++c)
        fprintf(out, "%.7e\n", centres[c]);
    for (int p = 0; p < n; p += 3)
        fprintf(out, "%d\n", member[p]);
    fclose(out);
    cudaFree(d_features_t);
    cudaFree(d_centres);
    cudaFree(d_member);
    return 0;
}
