// The suite's input generators, one per benchmark (or family), shared by the CUDA version and the
// OpenMP version of each benchmark so that both start from the same seeded input.  Host code only:
// cuda2cpu passes this header through to the C++ compiler untouched.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>
#include "suite.h"

// nn: RECORDS (latitude, longitude) pairs, latitude in [-90, 90), longitude in [-180, 180).
inline std::vector<float> nn_records(SuiteRng &rng, int records)
{
    std::vector<float> lat_lng(2 * (size_t)records);
    for (int i = 0; i < records; ++i) {
        lat_lng[2 * i] = 180.0f * rng.uniform() - 90.0f;
        lat_lng[2 * i + 1] = 360.0f * rng.uniform() - 180.0f;
    }
    return lat_lng;
}

// gaussian: an N x N diagonally dominant system a x = b (row-major), each row then its b.
inline void gaussian_input(SuiteRng &rng, int n, std::vector<float> &a, std::vector<float> &b)
{
    a.resize((size_t)n * n);
    b.resize(n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
            a[i * n + j] = rng.uniform() - 0.5f + (i == j ? (float)n : 0.0f);
        b[i] = rng.uniform();
    }
}

// bfs: a random directed graph in compressed rows: node v's 1 .. 2 DEGREE out-edges are
// edges[offsets[v] .. offsets[v + 1]).
inline void bfs_graph(SuiteRng &rng, int n, int degree, std::vector<int> &offsets, std::vector<int> &edges)
{
    offsets.assign(n + 1, 0);
    edges.clear();
    for (int v = 0; v < n; ++v) {
        offsets[v] = (int)edges.size();
        int d = 1 + rng.below(2 * degree);
        for (int k = 0; k < d; ++k)
            edges.push_back(rng.below(n));
    }
    offsets[n] = (int)edges.size();
}

// srad_v2: an image already in the exponential domain, exp of uniform [0, 1).
inline std::vector<float> srad_v2_image(SuiteRng &rng, int size)
{
    std::vector<float> image(size);
    for (int k = 0; k < size; ++k)
        image[k] = expf(rng.uniform());
    return image;
}

// backprop: IN inputs, IN x HIDDEN input weights (row-major, small) and HIDDEN output weights.
inline void backprop_input(SuiteRng &rng, int in, int hidden, std::vector<float> &input, std::vector<float> &weights,
                           std::vector<float> &output_weights)
{
    input.resize(in);
    weights.resize((size_t)in * hidden);
    output_weights.resize(hidden);
    for (int i = 0; i < in; ++i)
        input[i] = rng.uniform();
    for (size_t k = 0; k < weights.size(); ++k)
        weights[k] = 0.01f * (rng.uniform() - 0.5f);
    for (int j = 0; j < hidden; ++j)
        output_weights[j] = rng.uniform() - 0.5f;
}

// kmeans: POINTS x FEATURES features in [0, 1), point-major.
inline std::vector<float> kmeans_features(SuiteRng &rng, int points, int features)
{
    std::vector<float> x((size_t)points * features);
    for (auto &v : x)
        v = rng.uniform();
    return x;
}

// lud: an N x N diagonally dominant matrix (row-major), so elimination needs no pivoting.
inline std::vector<float> lud_matrix(SuiteRng &rng, int n)
{
    std::vector<float> a((size_t)n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            a[i * n + j] = rng.uniform() + (i == j ? (float)n : 0.0f);
    return a;
}

// nw: the (N+1) x (N+1) similarity scores of two random sequences (row and column 0 unused) in
// [-4, 5], and the score matrix with its first row and column set to the gap penalties.
inline void nw_input(SuiteRng &rng, int n, int penalty, std::vector<int> &ref, std::vector<int> &score)
{
    int n1 = n + 1;
    ref.assign((size_t)n1 * n1, 0);
    score.assign((size_t)n1 * n1, 0);
    for (int i = 1; i < n1; ++i)
        for (int j = 1; j < n1; ++j)
            ref[i * n1 + j] = rng.below(10) - 4;
    for (int i = 0; i < n1; ++i) {
        score[i * n1] = -i * penalty;
        score[i] = -i * penalty;
    }
}

// lavaMD: particle positions in [0, 1) within their box, w = |p|^2 / 2 (so that r^2 / 2 =
// w_i + w_j - p_i.p_j), and charges in [0, 1).  Vec4 is any type with float x, y, z, w.
template <typename Vec4>
inline void lavamd_input(SuiteRng &rng, int n, std::vector<Vec4> &pos, std::vector<float> &charge)
{
    pos.resize(n);
    charge.resize(n);
    for (int k = 0; k < n; ++k) {
        pos[k].x = rng.uniform();
        pos[k].y = rng.uniform();
        pos[k].z = rng.uniform();
        pos[k].w = 0.5f * (pos[k].x * pos[k].x + pos[k].y * pos[k].y + pos[k].z * pos[k].z);
        charge[k] = rng.uniform();
    }
}

// pathfinder: a ROWS x COLS grid of step costs 0..9.
inline std::vector<int> pathfinder_wall(SuiteRng &rng, int rows, int cols)
{
    std::vector<int> wall((size_t)rows * cols);
    for (auto &w : wall)
        w = rng.below(10);
    return wall;
}

// hotspot, hotspot3D: initial temperature around 320-330 K and a power map in [0, 0.5).
inline void thermal_input(SuiteRng &rng, int cells, std::vector<float> &temp, std::vector<float> &power)
{
    temp.resize(cells);
    power.resize(cells);
    for (int k = 0; k < cells; ++k) {
        temp[k] = 320.0f + 10.0f * rng.uniform();
        power[k] = 0.5f * rng.uniform();
    }
}

// cfd: an unstructured-looking mesh of NX x NY cells with NNB = 4 faces each.  The cells of a
// structured grid are numbered in a seeded random order, so neighbours are far apart in memory as
// in a real unstructured mesh; each face has a perturbed normal scaled by its area.  Faces
// on the x edges see the far field (-2), faces on the y edges are walls (-1).  Normals point
// into the cell, so a flux through a face adds to the cell.  Layouts are the GPU
// ones (structure of arrays): neighbour j of cell i at [i + j * cells], normal component d of
// face j at [i + (j + d * NNB) * cells].  bump perturbs each cell's initial density.
struct CfdMesh {
    int cells;
    std::vector<int> neighbours;
    std::vector<double> normals, areas, bump;
};

inline CfdMesh cfd_mesh(SuiteRng &rng, int nx, int ny)
{
    const int nnb = 4;
    CfdMesh m;
    m.cells = nx * ny;
    std::vector<int> number(m.cells);
    for (int c = 0; c < m.cells; ++c)
        number[c] = c;
    for (int c = m.cells - 1; c > 0; --c) {
        int other = rng.below(c + 1);
        int keep = number[c];
        number[c] = number[other];
        number[other] = keep;
    }
    m.neighbours.assign(m.cells * nnb, 0);
    m.normals.assign(m.cells * nnb * 3, 0.0);
    m.areas.assign(m.cells, 0.0);
    m.bump.assign(m.cells, 0.0);
    const int dx[nnb] = {-1, 1, 0, 0}, dy[nnb] = {0, 0, -1, 1};
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            int i = number[y * nx + x];
            m.areas[i] = 1.0 + 0.1 * rng.uniform();
            m.bump[i] = 1.0 + 0.05 * (rng.uniform() - 0.5);
            for (int j = 0; j < nnb; ++j) {
                int nx_ = x + dx[j], ny_ = y + dy[j];
                int nb = nx_ < 0 || nx_ >= nx ? -2 : ny_ < 0 || ny_ >= ny ? -1 : number[ny_ * nx + nx_];
                m.neighbours[i + j * m.cells] = nb;
                double area = 1.0 + 0.2 * rng.uniform();
                double tilt = 0.05 * (rng.uniform() - 0.5);
                m.normals[i + (j + 0 * nnb) * m.cells] = -area * (dx[j] + tilt);
                m.normals[i + (j + 1 * nnb) * m.cells] = -area * (dy[j] - tilt);
                m.normals[i + (j + 2 * nnb) * m.cells] = -area * tilt;
            }
        }
    return m;
}

// b+tree: a B+ tree over KEYS sorted distinct keys, stored in an array of fixed-size nodes as a
// GPU wants it.  Every node holds up to BPT_ORDER entries (filled to 3/4, as a tree grown by
// insertions would be); entry t of an internal node is the smallest key under child t (the first
// entry INT_MIN, so every key finds a child) and the child's node number, entry t of a leaf is a
// key and its record's number.  Unused entries have the key INT_MAX.  Leaves come first in the
// array, the root last; all leaves are at the same depth.  Record r holds the value of the r-th
// smallest key.  Queries: half of them existing keys, half random values that may be absent;
// ranges: from an existing key to one up to 100 keys further.
#define BPT_ORDER 64

struct BptNode {
    int keys[BPT_ORDER + 1];
    int indices[BPT_ORDER + 1];
    int num_keys;
    int is_leaf;
};

struct BptInput {
    std::vector<BptNode> nodes;
    int root, height;  // height: the number of levels, leaves included
    std::vector<int> records, queries, range_start, range_end;
};

inline BptInput bptree_input(SuiteRng &rng, int keys, int queries)
{
    const int fill = BPT_ORDER * 3 / 4;
    BptInput in;
    std::vector<int> sorted(keys);
    int key = 0;
    for (int r = 0; r < keys; ++r) {
        key += 1 + rng.below(8);
        sorted[r] = key;
        in.records.push_back(key % 1000003 * 7 + 1);
    }
    // One level: nodes over `firsts` (the smallest key under each entry) and `targets`.
    std::vector<int> firsts = sorted, targets(keys);
    for (int r = 0; r < keys; ++r)
        targets[r] = r;
    in.height = 0;
    bool leaf = true;
    do {
        std::vector<int> up_firsts, up_targets;
        for (size_t start = 0; start < firsts.size(); start += fill) {
            BptNode node;
            node.is_leaf = leaf;
            node.num_keys = (int)std::min(firsts.size() - start, (size_t)fill);
            for (int t = 0; t <= BPT_ORDER; ++t) {
                node.keys[t] = t < node.num_keys ? firsts[start + t] : INT_MAX;
                node.indices[t] = t < node.num_keys ? targets[start + t] : 0;
            }
            if (!leaf)
                node.keys[0] = INT_MIN;
            up_firsts.push_back(firsts[start]);
            up_targets.push_back((int)in.nodes.size());
            in.nodes.push_back(node);
        }
        firsts.swap(up_firsts);
        targets.swap(up_targets);
        leaf = false;
        ++in.height;
    } while (firsts.size() > 1);
    in.root = targets[0];
    for (int q = 0; q < queries; ++q) {
        in.queries.push_back(q % 2 ? sorted[rng.below(keys)] : rng.below(key + 10));
        int a = rng.below(keys), b = std::min(keys - 1, a + rng.below(100));
        in.range_start.push_back(sorted[a]);
        in.range_end.push_back(sorted[b]);
    }
    return in;
}

// srad_v1: a speckled ROWS x COLS grey image in (0, 255): smooth structure times noise.
inline std::vector<float> srad_image(SuiteRng &rng, int rows, int cols)
{
    std::vector<float> image(rows * cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            float structure = 120.0f + 60.0f * std::sin(0.05f * i) * std::cos(0.07f * j);
            image[i * cols + j] = structure * (0.75f + 0.5f * rng.uniform());
        }
    return image;
}

// streamcluster: POINTS points of DIM coordinates on an integer grid 0..15 (so every distance and
// cost below is an integer, exactly represented, and both versions take the same decisions),
// stored coordinate-major as the GPU reads them (coordinate d of point i at [d * points + i]),
// integer weights 1..3, and the sequence of candidate centres to try.
struct StreamInput {
    std::vector<float> coords, weights;
    std::vector<int> candidates;
};

inline StreamInput streamcluster_input(SuiteRng &rng, int points, int dim, int candidates)
{
    StreamInput in;
    in.coords.resize((size_t)points * dim);
    for (auto &c : in.coords)
        c = (float)rng.below(16);
    in.weights.resize(points);
    for (auto &w : in.weights)
        w = (float)(1 + rng.below(3));
    for (int k = 0; k < candidates; ++k)
        in.candidates.push_back(rng.below(points));
    return in;
}

// Both versions start from one centre, point 0, and price opening a centre at 1/64 of the cost of
// serving every point from it.
inline float streamcluster_distance(const StreamInput &in, int points, int dim, int a, int b)
{
    float sum = 0.0f;
    for (int d = 0; d < dim; ++d) {
        float diff = in.coords[(size_t)d * points + a] - in.coords[(size_t)d * points + b];
        sum += diff * diff;
    }
    return sum;
}

// particlefilter: FRAMES video frames of ROWS x COLS pixels, a disk of radius 5 (intensity 228 on
// a background of 100, plus noise) moving by (+1, -2) pixels per frame from the centre; the frame
// k pixel (y, x) is at [(k * rows + y) * cols + x].  Also each particle's random seed and the
// offsets of the pixels of the disk the likelihood looks at.
inline std::vector<int> particlefilter_video(SuiteRng &rng, int rows, int cols, int frames)
{
    std::vector<int> video((size_t)frames * rows * cols);
    for (int k = 0; k < frames; ++k) {
        int cy = rows / 2 - 2 * k, cx = cols / 2 + k;
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                bool inside = (y - cy) * (y - cy) + (x - cx) * (x - cx) <= 25;
                video[((size_t)k * rows + y) * cols + x] = (inside ? 228 : 100) + rng.below(9) - 4;
            }
    }
    return video;
}

inline std::vector<int> particlefilter_seeds(SuiteRng &rng, int particles)
{
    std::vector<int> seeds(particles);
    for (auto &s : seeds)
        s = (int)(rng.next() & 0x7fffffff);
    return seeds;
}

// (dy, dx) pairs of the pixels within distance `radius` of the centre.
inline std::vector<int> disk_offsets(int radius)
{
    std::vector<int> offsets;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            if (dy * dy + dx * dx <= radius * radius) {
                offsets.push_back(dy);
                offsets.push_back(dx);
            }
    return offsets;
}
