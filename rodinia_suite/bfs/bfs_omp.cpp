// bfs, OpenMP: level-synchronous breadth-first search; each level is one parallel loop over the
// frontier's nodes and one that promotes the reached nodes.  Usage: bfs_omp NODES DEGREE SEED OUTFILE
#include <vector>
#include "inputs.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bfs_omp NODES DEGREE SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), degree = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    std::vector<int> offsets, edges;
    bfs_graph(rng, n, degree, offsets, edges);
    std::vector<char> frontier(n, 0), updated(n, 0), visited(n, 0);
    std::vector<int> cost(n, -1);
    frontier[0] = visited[0] = 1;
    cost[0] = 0;
    double t0 = suite_now();
    // Every node reached at a level gets cost level + 1 whichever frontier node writes it.
    bool more = true;
    while (more) {
        more = false;
#pragma omp parallel for schedule(dynamic, 1024)
        for (int v = 0; v < n; ++v) {
            if (!frontier[v])
                continue;
            frontier[v] = 0;
            for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
                int w = edges[e];
                if (!visited[w]) {
                    cost[w] = cost[v] + 1;
                    updated[w] = 1;
                }
            }
        }
#pragma omp parallel for reduction(|| : more)
        for (int v = 0; v < n; ++v) {
            if (updated[v]) {
                frontier[v] = visited[v] = 1;
                updated[v] = 0;
                more = true;
            }
        }
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[4]);
    for (int v = 0; v < n; ++v)
        fprintf(out, "%d\n", cost[v]);
    fclose(out);
    return 0;
}
