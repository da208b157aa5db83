// kmeans, OpenMP: Lloyd's algorithm for a fixed number of iterations; membership is a parallel loop
// over the points (row-major features), the centre update is serial, in double, as in the CUDA host.
// Usage: kmeans_omp POINTS FEATURES CLUSTERS ITERS SEED OUTFILE
#include <vector>
#include "inputs.h"

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
        fprintf(stderr, "usage: kmeans_omp POINTS FEATURES CLUSTERS ITERS SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), nf = atoi(argv[2]), k = atoi(argv[3]), iters = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    std::vector<float> features = kmeans_features(rng, n, nf), centres(k * nf);
    for (int c = 0; c < k; ++c)
        for (int f = 0; f < nf; ++f)
            centres[c * nf + f] = features[c * nf + f];
    std::vector<int> member(n);
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        const float *x = features.data(), *cen = centres.data();
#pragma omp parallel for
        for (int p = 0; p < n; ++p) {
            int best = 0;
            float best_dist = 3.0e38f;
            for (int c = 0; c < k; ++c) {
                float dist = 0.0f;
                for (int f = 0; f < nf; ++f) {
                    float d = x[p * nf + f] - cen[c * nf + f];
                    dist += d * d;
                }
                if (dist < best_dist) {
                    best_dist = dist;
                    best = c;
                }
            }
            member[p] = best;
        }
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
    return 0;
}
