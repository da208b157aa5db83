// bfs: breadth-first search over a random graph in compressed-sparse-row form, one level per pair
// of launches: expand the frontier (one thread per node), then promote the newly reached nodes to
// the next frontier and raise the host's "not done" flag.  Usage: bfs NODES DEGREE SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

__global__ void expand(const int *offsets, const int *edges, char *frontier, char *updated,
                       const char *visited, int *cost, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v])
        return;
    frontier[v] = 0;
    for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
        int w = edges[e];
        if (!visited[w]) {
            cost[w] = cost[v] + 1;
            updated[w] = 1;
        }
    }
}

__global__ void promote(char *frontier, char *updated, char *visited, int *not_done, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && updated[v]) {
        frontier[v] = 1;
        visited[v] = 1;
        *not_done = 1;
        updated[v] = 0;
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bfs NODES DEGREE SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), degree = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    std::vector<int> offsets, edges;
    bfs_graph(rng, n, degree, offsets, edges);
    int m = (int)edges.size();
    std::vector<char> frontier(n, 0), visited(n, 0);
    std::vector<int> cost(n, -1);
    frontier[0] = visited[0] = 1;
    cost[0] = 0;
    int *d_offsets, *d_edges, *d_cost, *d_not_done;
    char *d_frontier, *d_updated, *d_visited;
    cudaMalloc(&d_offsets, (n + 1) * sizeof(int));
    cudaMalloc(&d_edges, m * sizeof(int));
    cudaMalloc(&d_cost, n * sizeof(int));
    cudaMalloc(&d_not_done, sizeof(int));
    cudaMalloc(&d_frontier, n);
    cudaMalloc(&d_updated, n);
    cudaMalloc(&d_visited, n);
    cudaMemcpy(d_offsets, offsets.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_edges, edges.data(), m * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cost, cost.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_frontier, frontier.data(), n, cudaMemcpyHostToDevice);
    cudaMemcpy(d_visited, visited.data(), n, cudaMemcpyHostToDevice);
    cudaMemset(d_updated, 0, n);
    double t0 = suite_now();
    const int block = 256, grid = (n + block - 1) / block;
    int not_done = 1;
    while (not_done) {
        not_done = 0;
        cudaMemcpy(d_not_done, &not_done, sizeof(int), cudaMemcpyHostToDevice);
        expand<<<grid, block>>>(d_offsets, d_edges, d_frontier, d_updated, d_visited, d_cost, n);
        promote<<<grid, block>>>(d_frontier, d_updated, d_visited, d_not_done, n);
        cudaMemcpy(&not_done, d_not_done, sizeof(int), cudaMemcpyDeviceToHost);
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(cost.data(), d_cost, n * sizeof(int), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[4]);
    for (int v = 0; v < n; ++v)
        fprintf(out, "%d\n", cost[v]);
    fclose(out);
    cudaFree(d_offsets);
    cudaFree(d_edges);
    cudaFree(d_cost);
    cudaFree(d_not_done);
    cudaFree(d_frontier);
    cudaFree(d_updated);
    cudaFree(d_visited);
    return 0;
}
