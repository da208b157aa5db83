// streamcluster, OpenMP: for each candidate, one parallel loop over the points computes each
// point's cost at the candidate and accumulates the gains per centre in an array reduction; the
// decision is serial, and a second parallel loop moves the points.
// Usage: streamcluster_omp POINTS DIM CANDIDATES SEED OUTFILE
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: streamcluster_omp POINTS DIM CANDIDATES SEED OUTFILE\n");
        return 2;
    }
    int points = atoi(argv[1]), dim = atoi(argv[2]), ncand = atoi(argv[3]);
    SuiteRng rng(atoll(argv[4]));
    StreamInput in = streamcluster_input(rng, points, dim, ncand);
    std::vector<float> cost(points), x_cost(points);
    std::vector<int> assign(points, 0), center_table(points, 0), is_center(points, 0);
    double total = 0.0;
    for (int i = 0; i < points; ++i) {
        cost[i] = streamcluster_distance(in, points, dim, i, 0) * in.weights[i];
        total += cost[i];
    }
    const double z = total / 64.0;
    std::vector<int> centers(1, 0);
    is_center[0] = 1;
    const float *coords = in.coords.data(), *weights = in.weights.data();
    float *cst = cost.data(), *xc = x_cost.data();
    int *asg = assign.data(), *table = center_table.data();
    std::vector<double> sums;
    std::vector<int> closing;
    double t0 = suite_now();
    for (int x : in.candidates) {
        if (is_center[x])
            continue;
        int k = (int)centers.size();
        sums.assign(k + 1, 0.0);
        double *sum = sums.data();
        // Slot k: what the points that move to x save; slot c: what closing centre c would cost.
#pragma omp parallel for reduction(+ : sum[:k + 1])
        for (int i = 0; i < points; ++i) {
            float distance = 0.0f;
            for (int d = 0; d < dim; ++d) {
                float diff = coords[(size_t)d * points + i] - coords[(size_t)d * points + x];
                distance += diff * diff;
            }
            float mine = distance * weights[i];
            xc[i] = mine;
            if (mine < cst[i])
                sum[k] += mine - cst[i];
            else
                sum[table[asg[i]]] += cst[i] - mine;
        }
        double opening = z + sums[k];
        closing.assign(k, 0);
        for (int c = 0; c < k; ++c) {
            double low = z + sums[c];
            if (low > 0) {
                closing[c] = 1;
                opening -= low;
            }
        }
        if (opening >= 0)
            continue;
        const int *close = closing.data();
#pragma omp parallel for
        for (int i = 0; i < points; ++i)
            if (xc[i] < cst[i] || close[table[asg[i]]]) {
                cst[i] = xc[i];
                asg[i] = x;
            }
        std::vector<int> kept;
        for (int c = 0; c < k; ++c)
            if (closing[c])
                is_center[centers[c]] = 0;
            else
                kept.push_back(centers[c]);
        kept.push_back(x);
        is_center[x] = 1;
        centers.swap(kept);
        for (int c = 0; c < (int)centers.size(); ++c)
            table[centers[c]] = c;
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    double final_cost = z * centers.size();
    for (int i = 0; i < points; ++i)
        final_cost += cost[i];
    FILE *out = suite_open_output(argv[5]);
    fprintf(out, "%d %.17g\n", (int)centers.size(), final_cost);
    for (int i = 0; i < points; ++i)
        fprintf(out, "%d\n", assign[i]);
    fclose(out);
    return 0;
}
