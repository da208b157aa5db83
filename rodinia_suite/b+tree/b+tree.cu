// b+tree: key and range search in a B+ tree stored as an array of nodes.  The GPU way: one block
// per query and one thread per entry of a node (BPT_ORDER threads).  At each level every thread
// tests whether the key falls between its entry and the next one; the one thread that matches
// writes the child's number to shared memory, a barrier, thread 0 moves the block down, another
// barrier.  At the leaf the thread whose key equals the query writes the record.  The range
// search walks down to the start and the end key at once and writes where the range starts and
// how many records it holds.  Usage: b+tree KEYS QUERIES SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

__global__ void find_k(const BptNode *nodes, int root, int height, const int *records, const int *queries,
                       int *answers)
{
    __shared__ int node, next;
    int t = threadIdx.x, key = queries[blockIdx.x];
    if (t == 0)
        node = root;
    __syncthreads();
    for (int level = 1; level < height; ++level) {
        if (nodes[node].keys[t] <= key && key < nodes[node].keys[t + 1])
            next = nodes[node].indices[t];
        __syncthreads();
        if (t == 0)
            node = next;
        __syncthreads();
    }
    if (nodes[node].keys[t] == key)
        answers[blockIdx.x] = records[nodes[node].indices[t]];
}

__global__ void find_range_k(const BptNode *nodes, int root, int height, const int *starts, const int *ends,
                             int *range_first, int *range_length)
{
    __shared__ int node_start, node_end, next_start, next_end, first;
    int t = threadIdx.x, start = starts[blockIdx.x], end = ends[blockIdx.x];
    if (t == 0) {
        node_start = root;
        node_end = root;
    }
    __syncthreads();
    for (int level = 1; level < height; ++level) {
        if (nodes[node_start].keys[t] <= start && start < nodes[node_start].keys[t + 1])
            next_start = nodes[node_start].indices[t];
        if (nodes[node_end].keys[t] <= end && end < nodes[node_end].keys[t + 1])
            next_end = nodes[node_end].indices[t];
        __syncthreads();
        if (t == 0) {
            node_start = next_start;
            node_end = next_end;
        }
        __syncthreads();
    }
    if (nodes[node_start].keys[t] == start) {
        first = nodes[node_start].indices[t];
        range_first[blockIdx.x] = first;
    }
    __syncthreads();
    if (nodes[node_end].keys[t] == end)
        range_length[blockIdx.x] = nodes[node_end].indices[t] - first + 1;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: b+tree KEYS QUERIES SEED OUTFILE\n");
        return 2;
    }
    int keys = atoi(argv[1]), queries = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    BptInput in = bptree_input(rng, keys, queries);
    BptNode *d_nodes;
    int *d_records, *d_queries, *d_answers, *d_starts, *d_ends, *d_first, *d_length;
    cudaMalloc(&d_nodes, in.nodes.size() * sizeof(BptNode));
    cudaMalloc(&d_records, keys * sizeof(int));
    cudaMalloc(&d_queries, queries * sizeof(int));
    cudaMalloc(&d_answers, queries * sizeof(int));
    cudaMalloc(&d_starts, queries * sizeof(int));
    cudaMalloc(&d_ends, queries * sizeof(int));
    cudaMalloc(&d_first, queries * sizeof(int));
    cudaMalloc(&d_length, queries * sizeof(int));
    cudaMemcpy(d_nodes, in.nodes.data(), in.nodes.size() * sizeof(BptNode), cudaMemcpyHostToDevice);
    cudaMemcpy(d_records, in.records.data(), keys * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_queries, in.queries.data(), queries * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_starts, in.range_start.data(), queries * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_ends, in.range_end.data(), queries * sizeof(int), cudaMemcpyHostToDevice);
    // Absent keys answer -1 (every byte 0xff).
    cudaMemset(d_answers, 0xff, queries * sizeof(int));
    double t0 = suite_now();
    find_k<<<queries, BPT_ORDER>>>(d_nodes, in.root, in.height, d_records, d_queries, d_answers);
    find_range_k<<<queries, BPT_ORDER>>>(d_nodes, in.root, in.height, d_starts, d_ends, d_first, d_length);
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    std::vector<int> answers(queries), first(queries), length(queries);
    cudaMemcpy(answers.data(), d_answers, queries * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(first.data(), d_first, queries * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(length.data(), d_length, queries * sizeof(int), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[4]);
    for (int q = 0; q < queries; ++q)
        fprintf(out, "%d %d %d\n", answers[q], first[q], length[q]);
    fclose(out);
    cudaFree(d_nodes);
    cudaFree(d_records);
    cudaFree(d_queries);
    cudaFree(d_answers);
    cudaFree(d_starts);
    cudaFree(d_ends);
    cudaFree(d_first);
    cudaFree(d_length);
    return 0;
}
