// The suite's input generators, one per benchmark (or family), shared by the CUDA version and the
// OpenMP version of each benchmark so that both start from the same seeded input.  Host code only:
// cuda2cpu passes this header through to the C++ compiler untouched.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>
#include "suite.h"

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
