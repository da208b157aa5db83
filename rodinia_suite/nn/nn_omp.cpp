// nn, OpenMP: distance of every record to the target in one parallel loop, then the k nearest.
// Usage: nn_omp RECORDS K SEED OUTFILE
#include <cmath>
#include <vector>
#include <algorithm>
#include "inputs.h"

struct Record {
    float lat, lng;
};

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: nn_omp RECORDS K SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), k = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    std::vector<float> lat_lng = nn_records(rng, n);
    std::vector<Record> records(n);
    for (int i = 0; i < n; ++i) {
        records[i].lat = lat_lng[2 * i];
        records[i].lng = lat_lng[2 * i + 1];
    }
    float lat = 30.0f, lng = 90.0f;
    std::vector<float> dist(n);
    double t0 = suite_now();
#pragma omp parallel for
    for (int i = 0; i < n; ++i) {
        float dlat = records[i].lat - lat;
        float dlng = records[i].lng - lng;
        dist[i] = sqrtf(dlat * dlat + dlng * dlng);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i)
        order[i] = i;
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return dist[a] < dist[b] || (dist[a] == dist[b] && a < b);
    });
    FILE *out = suite_open_output(argv[4]);
    for (int j = 0; j < k; ++j)
        fprintf(out, "%d %.6e\n", order[j], dist[order[j]]);
    fclose(out);
    return 0;
}
