// hotspot, OpenMP: one parallel loop over the grid's rows per time step, neighbours clamped at the
// chip's edge.  STEPS is the CUDA version's pyramid height and is unused here.
// Usage: hotspot_omp ROWS COLS ITERS STEPS SEED OUTFILE
#include <utility>
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: hotspot_omp ROWS COLS ITERS STEPS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), iters = atoi(argv[3]);
    SuiteRng rng(atoll(argv[5]));
    int size = rows * cols;
    std::vector<float> a, power, b(size);
    thermal_input(rng, size, a, power);
    const float sdc = 1.0f, rx = 0.1f, ry = 0.1f, rz = 0.01f, amb = 80.0f;
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        const float *t = a.data();
        float *tn = b.data();
#pragma omp parallel for
        for (int y = 0; y < rows; ++y) {
            int n = y > 0 ? y - 1 : 0, s = y < rows - 1 ? y + 1 : rows - 1;
            for (int x = 0; x < cols; ++x) {
                int w = x > 0 ? x - 1 : 0, e = x < cols - 1 ? x + 1 : cols - 1;
                float c = t[y * cols + x];
                tn[y * cols + x] = c + sdc * (power[y * cols + x] + (t[s * cols + x] + t[n * cols + x] - 2.0f * c) * ry +
                                              (t[y * cols + e] + t[y * cols + w] - 2.0f * c) * rx + (amb - c) * rz);
            }
        }
        std::swap(a, b);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[6]);
    for (int k = 0; k < size; k += 5)
        fprintf(out, "%.7e\n", a[k]);
    fclose(out);
    return 0;
}
