// srad_v1, OpenMP: per iteration a parallel reduction (in double) of the image's sum and sum of
// squares, then two parallel loops over the rows for the diffusion coefficient and the update,
// neighbours clamped at the image's edge.  Usage: srad_v1_omp ROWS COLS ITERS SEED OUTFILE
#include <cmath>
#include <vector>
#include "inputs.h"

#define LAMBDA 0.5f

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: srad_v1_omp ROWS COLS ITERS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), iters = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    int n = rows * cols;
    std::vector<float> image = srad_image(rng, rows, cols);
    std::vector<float> dN(n), dS(n), dW(n), dE(n), c(n);
    float *img = image.data(), *cn = dN.data(), *cs = dS.data(), *cw = dW.data(), *ce = dE.data(), *co = c.data();
    double t0 = suite_now();
#pragma omp parallel for
    for (int k = 0; k < n; ++k)
        img[k] = expf(img[k] / 255.0f);
    for (int it = 0; it < iters; ++it) {
        double total = 0.0, total2 = 0.0;
#pragma omp parallel for reduction(+ : total, total2)
        for (int k = 0; k < n; ++k) {
            total += img[k];
            total2 += (double)img[k] * img[k];
        }
        float mean = (float)(total / n);
        float var = (float)(total2 / n) - mean * mean;
        float q0sqr = var / (mean * mean);
#pragma omp parallel for
        for (int i = 0; i < rows; ++i) {
            int north = i > 0 ? i - 1 : 0, south = i < rows - 1 ? i + 1 : rows - 1;
            for (int j = 0; j < cols; ++j) {
                int west = j > 0 ? j - 1 : 0, east = j < cols - 1 ? j + 1 : cols - 1;
                int k = i * cols + j;
                float jc = img[k];
                float dn = img[north * cols + j] - jc, ds = img[south * cols + j] - jc;
                float dw = img[i * cols + west] - jc, de = img[i * cols + east] - jc;
                float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
                float l = (dn + ds + dw + de) / jc;
                float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
                float den = 1.0f + 0.25f * l;
                float qsqr = num / (den * den);
                den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
                float coefficient = 1.0f / (1.0f + den);
                cn[k] = dn;
                cs[k] = ds;
                cw[k] = dw;
                ce[k] = de;
                co[k] = coefficient < 0.0f ? 0.0f : (coefficient > 1.0f ? 1.0f : coefficient);
            }
        }
#pragma omp parallel for
        for (int i = 0; i < rows; ++i) {
            int south = i < rows - 1 ? i + 1 : rows - 1;
            for (int j = 0; j < cols; ++j) {
                int east = j < cols - 1 ? j + 1 : cols - 1;
                int k = i * cols + j;
                float cc = co[k];
                float d = cc * cn[k] + co[south * cols + j] * cs[k] + cc * cw[k] + co[i * cols + east] * ce[k];
                img[k] = img[k] + 0.25f * LAMBDA * d;
            }
        }
    }
#pragma omp parallel for
    for (int k = 0; k < n; ++k)
        img[k] = logf(img[k]) * 255.0f;
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[5]);
    for (int k = 0; k < n; k += 3)
        fprintf(out, "%.6e\n", image[k]);
    fclose(out);
    return 0;
}
