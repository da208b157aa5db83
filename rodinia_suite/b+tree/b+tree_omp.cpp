// b+tree, OpenMP: a parallel loop over the queries; each walks down the tree alone, choosing the
// child in a node by binary search over the node's keys, and answers from the leaf.
// Usage: b+tree_omp KEYS QUERIES SEED OUTFILE
#include <algorithm>
#include <vector>
#include "inputs.h"

// The entry of `node` whose key range holds `key`: the last entry with a key not above it.
static inline int entry_for(const BptNode &node, int key)
{
    return (int)(std::upper_bound(node.keys, node.keys + node.num_keys, key) - node.keys) - 1;
}

static inline int leaf_for(const BptInput &in, int key)
{
    int node = in.root;
    for (int level = 1; level < in.height; ++level)
        node = in.nodes[node].indices[entry_for(in.nodes[node], key)];
    return node;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: b+tree_omp KEYS QUERIES SEED OUTFILE\n");
        return 2;
    }
    int keys = atoi(argv[1]), queries = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    BptInput in = bptree_input(rng, keys, queries);
    std::vector<int> answers(queries), first(queries), length(queries);
    double t0 = suite_now();
#pragma omp parallel for schedule(static)
    for (int q = 0; q < queries; ++q) {
        const BptNode &leaf = in.nodes[leaf_for(in, in.queries[q])];
        int e = entry_for(leaf, in.queries[q]);
        answers[q] = e >= 0 && leaf.keys[e] == in.queries[q] ? in.records[leaf.indices[e]] : -1;
    }
#pragma omp parallel for schedule(static)
    for (int q = 0; q < queries; ++q) {
        const BptNode &a = in.nodes[leaf_for(in, in.range_start[q])];
        const BptNode &b = in.nodes[leaf_for(in, in.range_end[q])];
        first[q] = a.indices[entry_for(a, in.range_start[q])];
        length[q] = b.indices[entry_for(b, in.range_end[q])] - first[q] + 1;
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[4]);
    for (int q = 0; q < queries; ++q)
        fprintf(out, "%d %d %d\n", answers[q], first[q], length[q]);
    fclose(out);
    return 0;
}
