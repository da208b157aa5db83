// gaussian, OpenMP: forward elimination, each step's row updates in one parallel loop, then back
// substitution.  Usage: gaussian_omp N SEED OUTFILE
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gaussian_omp N SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    std::vector<float> a, b;
    gaussian_input(rng, n, a, b);
    double t0 = suite_now();
    for (int t = 0; t < n - 1; ++t) {
#pragma omp parallel for
        for (int row = t + 1; row < n; ++row) {
            float m = a[row * n + t] / a[t * n + t];
            for (int col = t; col < n; ++col)
                a[row * n + col] -= m * a[t * n + col];
            b[row] -= m * b[t];
        }
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    std::vector<float> x(n);
    for (int i = n - 1; i >= 0; --i) {
        float s = b[i];
        for (int j = i + 1; j < n; ++j)
            s -= a[i * n + j] * x[j];
        x[i] = s / a[i * n + i];
    }
    FILE *out = suite_open_output(argv[3]);
    for (int i = 0; i < n; ++i)
        fprintf(out, "%.7e\n", x[i]);
    fclose(out);
    return 0;
}
