// particlefilter, OpenMP: per frame a parallel loop moves the particles and scales their weights
// (with the sum as a reduction), a parallel loop normalises them and a reduction estimates the
// position; the cumulative distribution is a serial prefix sum, and resampling is a parallel loop
// over the particles, each searching the distribution linearly for its parent (the same search as
// the CUDA version: the comparison is of the parallelisation, not of the search algorithm).
// Usage: particlefilter_omp ROWS COLS FRAMES PARTICLES SEED OUTFILE
#include <cmath>
#include <utility>
#include <vector>
#include "inputs.h"

#define PI 3.14159265358979323846

static inline double randu(int *seed, int i)
{
    seed[i] = (int)((1103515245LL * seed[i] + 12345LL) % 2147483647LL);
    return (seed[i] + 0.5) / 2147483647.0;
}

static inline double randn(int *seed, int i)
{
    double u = randu(seed, i), v = randu(seed, i);
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: particlefilter_omp ROWS COLS FRAMES PARTICLES SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), frames = atoi(argv[3]), particles = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    std::vector<int> video = particlefilter_video(rng, rows, cols, frames);
    std::vector<int> seeds = particlefilter_seeds(rng, particles);
    std::vector<int> offsets = disk_offsets(5);
    int count = (int)offsets.size() / 2;
    std::vector<double> xs(particles, cols / 2), ys(particles, rows / 2), ws(particles, 1.0 / particles);
    std::vector<double> new_xs(particles), new_ys(particles), cdfs(particles);
    std::vector<double> estimates;
    int *seed = seeds.data();
    const int *off = offsets.data();
    double t0 = suite_now();
    for (int k = 1; k < frames; ++k) {
        const int *frame = video.data() + (size_t)k * rows * cols;
        double *x = xs.data(), *y = ys.data(), *w = ws.data(), *cdf = cdfs.data();
        double total = 0.0;
#pragma omp parallel for reduction(+ : total)
        for (int i = 0; i < particles; ++i) {
            x[i] += 1.0 + 5.0 * randn(seed, i);
            y[i] += -2.0 + 2.0 * randn(seed, i);
            int cx = (int)floor(x[i] + 0.5), cy = (int)floor(y[i] + 0.5);
            double sum = 0.0;
            for (int j = 0; j < count; ++j) {
                int py = cy + off[2 * j], px = cx + off[2 * j + 1];
                py = py < 0 ? 0 : (py >= rows ? rows - 1 : py);
                px = px < 0 ? 0 : (px >= cols ? cols - 1 : px);
                double v = frame[py * cols + px];
                sum += ((v - 100.0) * (v - 100.0) - (v - 228.0) * (v - 228.0)) / 50.0;
            }
            w[i] = w[i] * exp(sum / count);
            total += w[i];
        }
        double xe = 0.0, ye = 0.0;
#pragma omp parallel for reduction(+ : xe, ye)
        for (int i = 0; i < particles; ++i) {
            w[i] = w[i] / total;
            xe += x[i] * w[i];
            ye += y[i] * w[i];
        }
        estimates.push_back(xe);
        estimates.push_back(ye);
        cdf[0] = w[0];
        for (int i = 1; i < particles; ++i)
            cdf[i] = cdf[i - 1] + w[i];
        double u1 = randu(seed, 0) / particles;
        double *nx = new_xs.data(), *ny = new_ys.data();
#pragma omp parallel for
        for (int i = 0; i < particles; ++i) {
            double u = u1 + (double)i / particles;
            int parent = particles - 1;
            for (int j = 0; j < particles; ++j)
                if (cdf[j] >= u) {
                    parent = j;
                    break;
                }
            nx[i] = x[parent];
            ny[i] = y[parent];
            w[i] = 1.0 / particles;
        }
        std::swap(xs, new_xs);
        std::swap(ys, new_ys);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[6]);
    for (double e : estimates)
        fprintf(out, "%.12e\n", e);
    fclose(out);
    return 0;
}
