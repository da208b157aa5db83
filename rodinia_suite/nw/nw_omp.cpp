// nw, OpenMP: the Needleman-Wunsch score matrix by anti-diagonals of cells, each diagonal one
// parallel loop.  Usage: nw_omp N PENALTY SEED OUTFILE
#include <vector>
#include "inputs.h"

static inline int best(int diagonal, int up, int left)
{
    int m = diagonal > up ? diagonal : up;
    return m > left ? m : left;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: nw_omp N PENALTY SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), penalty = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    int n1 = n + 1;
    std::vector<int> ref, score;
    nw_input(rng, n, penalty, ref, score);
    int *s = score.data();
    const int *r = ref.data();
    double t0 = suite_now();
    // Cells (i, j), 1 <= i, j <= n, with i + j = d depend only on diagonals d - 1 and d - 2.
    for (int d = 2; d <= 2 * n; ++d) {
        int lo = d - n > 1 ? d - n : 1, hi = d - 1 < n ? d - 1 : n;
#pragma omp parallel for
        for (int i = lo; i <= hi; ++i) {
            int j = d - i;
            s[i * n1 + j] = best(s[(i - 1) * n1 + j - 1] + r[i * n1 + j], s[(i - 1) * n1 + j] - penalty,
                                 s[i * n1 + j - 1] - penalty);
        }
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[4]);
    for (int k = 0; k < n1 * n1; k += 11)
        fprintf(out, "%d\n", score[k]);
    fprintf(out, "%d\n", score[n1 * n1 - 1]);
    fclose(out);
    return 0;
}
