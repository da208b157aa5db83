// pathfinder, OpenMP: row by row, one parallel loop over the columns per row.
// STEPS is the CUDA version's pyramid height and is unused here.
// Usage: pathfinder_omp ROWS COLS STEPS SEED OUTFILE
#include <utility>
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: pathfinder_omp ROWS COLS STEPS SEED OUTFILE\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]);
    SuiteRng rng(atoll(argv[4]));
    std::vector<int> wall = pathfinder_wall(rng, rows, cols);
    std::vector<int> src(wall.begin(), wall.begin() + cols), dst(cols);
    double t0 = suite_now();
    for (int row = 1; row < rows; ++row) {
        const int *s = src.data(), *cost = wall.data() + (size_t)row * cols;
        int *d = dst.data();
#pragma omp parallel for
        for (int j = 0; j < cols; ++j) {
            int w = j > 0 ? j - 1 : 0, e = j < cols - 1 ? j + 1 : cols - 1;
            int m = s[w] < s[j] ? s[w] : s[j];
            m = m < s[e] ? m : s[e];
            d[j] = m + cost[j];
        }
        std::swap(src, dst);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[5]);
    for (int j = 0; j < cols; ++j)
        fprintf(out, "%d\n", src[j]);
    fclose(out);
    return 0;
}
