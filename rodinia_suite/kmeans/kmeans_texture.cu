// kmeans_texture: the kmeans benchmark in the form of the Rodinia original, with the GPU's
// read-only paths: a kernel transposes the features to feature-major order on the device
// (invert_mapping), the membership kernel fetches them through a 1-D texture over that array
// (tex1Dfetch; a texture object, since CUDA 12 has no texture references) and reads the centres
// from __constant__ memory, refreshed by cudaMemcpyToSymbol at every iteration; the host moves the centres to their members' means.  Compared against the same
// OpenMP version as kmeans (kmeans_omp.cpp).  Usage: kmeans_texture POINTS FEATURES CLUSTERS ITERS
// SEED OUTFILE
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

// Room in constant memory for CLUSTERS x FEATURES centre coordinates.
#define MAX_CENTRE_VALUES 4096

__constant__ float c_centres[MAX_CENTRE_VALUES];

__global__ void invert_mapping(const float *features, float *features_t, int n, int nf)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n)
        return;
    for (int f = 0; f < nf; ++f)
        features_t[f * n + p] = features[p * nf + f];
}

__global__ void membership(cudaTextureObject_t features_t, int *member, int n, int nf, int k)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n)
        return;
    int best = 0;
    float best_dist = 3.0e38f;
    for (int c = 0; c < k; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < nf; ++f) {
            float d = tex1Dfetch<float>(features_t, f * n + p) - c_centres[c * nf + f];
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
        fprintf(stderr, "usage: kmeans_texture POINTS FEATURES CLUSTERS ITERS SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), nf = atoi(argv[2]), k = atoi(argv[3]), iters = atoi(argv[4]);
    if (k * nf > MAX_CENTRE_VALUES) {
        fprintf(stderr, "CLUSTERS x FEATURES is at most %d\n", MAX_CENTRE_VALUES);
        return 2;
    }
    SuiteRng rng(atoll(argv[5]));
    std::vector<float> features = kmeans_features(rng, n, nf), centres(k * nf);
    for (int c = 0; c < k; ++c)
        for (int f = 0; f < nf; ++f)
            centres[c * nf + f] = features[c * nf + f];
    std::vector<int> member(n);
    float *d_features, *d_features_t;
    int *d_member;
    cudaMalloc(&d_features, n * nf * sizeof(float));
    cudaMalloc(&d_features_t, n * nf * sizeof(float));
    cudaMalloc(&d_member, n * sizeof(int));
    cudaMemcpy(d_features, features.data(), n * nf * sizeof(float), cudaMemcpyHostToDevice);
    const int block = 256, blocks = (n + block - 1) / block;
    invert_mapping<<<blocks, block>>>(d_features, d_features_t, n, nf);
    cudaResourceDesc resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = d_features_t;
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
    resource.res.linear.sizeInBytes = n * nf * sizeof(float);
    cudaTextureDesc texture;
    memset(&texture, 0, sizeof texture);
    texture.readMode = cudaReadModeElementType;
    cudaTextureObject_t t_features = 0;
    cudaCreateTextureObject(&t_features, &resource, &texture, NULL);
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        cudaMemcpyToSymbol(c_centres, centres.data(), k * nf * sizeof(float));
        membership<<<blocks, block>>>(t_features, d_member, n, nf, k);
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
    cudaDestroyTextureObject(t_features);
    cudaFree(d_features);
    cudaFree(d_features_t);
    cudaFree(d_member);
    return 0;
}
