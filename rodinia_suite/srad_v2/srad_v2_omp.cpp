// srad_v2, OpenMP: speckle-reducing anisotropic diffusion; per iteration the speckle statistic over
// the region of interest, then two parallel loops over the image's rows: derivatives and diffusion
// coefficient, then the update.  Usage: srad_v2_omp ROWS COLS ITERS SEED OUTFILE
#include <cmath>
#include <vector>
#include "inputs.h"

#define ROI 32

static float speckle(const float *J, int cols)
{
    double sum = 0.0, sum2 = 0.0;
    for (int i = 0; i < ROI; ++i)
        for (int j = 0; j < ROI; ++j) {
            double v = J[i * cols + j];
            sum += v;
            sum2 += v * v;
        }
    double mean = sum / (ROI * ROI);
    double var = sum2 / (ROI * ROI) - mean * mean;
    return (float)(var / (mean * mean));
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: srad_v2_omp ROWS COLS ITERS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), iters = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    int size = rows * cols;
    std::vector<float> J = srad_v2_image(rng, size);
    std::vector<float> C(size), dN(size), dS(size), dW(size), dE(size);
    const float lambda = 0.5f;
    double t0 = suite_now();
    for (int it = 0; it < iters; ++it) {
        float q0sqr = speckle(J.data(), cols);
#pragma omp parallel for
        for (int i = 0; i < rows; ++i) {
            int up = i > 0 ? i - 1 : 0, down = i < rows - 1 ? i + 1 : rows - 1;
            for (int j = 0; j < cols; ++j) {
                int k = i * cols + j;
                int left = j > 0 ? j - 1 : 0, right = j < cols - 1 ? j + 1 : cols - 1;
                float jc = J[k];
                float n = J[up * cols + j] - jc, s = J[down * cols + j] - jc;
                float w = J[i * cols + left] - jc, e = J[i * cols + right] - jc;
                float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
                float l = (n + s + w + e) / jc;
                float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
                float den = 1.0f + 0.25f * l;
                float qsqr = num / (den * den);
                den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
                float c = 1.0f / (1.0f + den);
                dN[k] = n;
                dS[k] = s;
                dW[k] = w;
                dE[k] = e;
                C[k] = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
            }
        }
#pragma omp parallel for
        for (int i = 0; i < rows; ++i) {
            int down = i < rows - 1 ? i + 1 : rows - 1;
            for (int j = 0; j < cols; ++j) {
                int k = i * cols + j;
                int right = j < cols - 1 ? j + 1 : cols - 1;
                float cc = C[k], cs = C[down * cols + j], ce = C[i * cols + right];
                float d = cc * dN[k] + cs * dS[k] + cc * dW[k] + ce * dE[k];
                J[k] = J[k] + 0.25f * lambda * d;
            }
        }
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[5]);
    for (int k = 0; k < size; k += 7)
        fprintf(out, "%.7e\n", J[k]);
    fclose(out);
    return 0;
}
