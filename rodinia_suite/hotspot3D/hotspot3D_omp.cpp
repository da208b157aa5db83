// hotspot3D, OpenMP: one parallel loop over the layers and rows per time step (collapsed), the
// row's cells innermost; neighbours clamped at the chip's edge and at the bottom and top layers.
// Usage: hotspot3D_omp NX NY NZ ITERS SEED OUTFILE
#include <utility>
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: hotspot3D_omp NX NY NZ ITERS SEED OUTFILE\n");
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]), iters = atoi(argv[4]);
    SuiteRng rng(atoll(argv[5]));
    int cells = nx * ny * nz, plane = nx * ny;
    std::vector<float> a, power;
    thermal_input(rng, cells, a, power);
    std::vector<float> b(cells);
    const float cc = 0.45f, cw = 0.1f, ce = 0.1f, cs = 0.1f, cn = 0.1f, cb = 0.05f, ct = 0.05f, sdc = 0.5f,
                amb = 80.0f;
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        const float *t = a.data(), *p = power.data();
        float *tn = b.data();
#pragma omp parallel for collapse(2)
        for (int z = 0; z < nz; ++z)
            for (int y = 0; y < ny; ++y) {
                int row = z * plane + y * nx;
                int north = y == 0 ? 0 : -nx, south = y == ny - 1 ? 0 : nx;
                int down = z == 0 ? 0 : -plane, up = z == nz - 1 ? 0 : plane;
                for (int x = 0; x < nx; ++x) {
                    int c = row + x;
                    int w = x == 0 ? c : c - 1, e = x == nx - 1 ? c : c + 1;
                    tn[c] = cc * t[c] + cw * t[w] + ce * t[e] + cs * t[c + south] + cn * t[c + north] +
                            cb * t[c + down] + ct * t[c + up] + sdc * p[c] + ct * amb;
                }
            }
        std::swap(a, b);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[6]);
    for (int c = 0; c < cells; c += 7)
        fprintf(out, "%.7e\n", a[c]);
    fclose(out);
    return 0;
}
