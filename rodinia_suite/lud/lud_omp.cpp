// lud, OpenMP: right-looking in-place LU decomposition (no pivoting), each step's trailing update
// one parallel loop over the rows.  Usage: lud_omp N SEED OUTFILE
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: lud_omp N SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    std::vector<float> m = lud_matrix(rng, n);
    float *a = m.data();
    double t0 = suite_now();
    for (int k = 0; k < n - 1; ++k) {
#pragma omp parallel for
        for (int i = k + 1; i < n; ++i) {
            float l = a[i * n + k] / a[k * n + k];
            a[i * n + k] = l;
            for (int j = k + 1; j < n; ++j)
                a[i * n + j] -= l * a[k * n + j];
        }
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[3]);
    for (int k = 0; k < n * n; k += 13)
        fprintf(out, "%.7e\n", a[k]);
    fclose(out);
    return 0;
}
