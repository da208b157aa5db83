// lavaMD, OpenMP: particle potential and forces within neighbouring boxes; one parallel loop over
// the boxes.  Usage: lavaMD_omp BOXES_PER_SIDE SEED OUTFILE
#include <cmath>
#include <vector>
#include "inputs.h"

#define PER_BOX 32
#define ALPHA 0.5f

struct Vec4 {
    float x, y, z, w;
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: lavaMD_omp BOXES_PER_SIDE SEED OUTFILE\n");
        return 2;
    }
    int side = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    int boxes = side * side * side, n = boxes * PER_BOX;
    std::vector<Vec4> pos(n), force(n);
    std::vector<float> charge(n);
    lavamd_input(rng, n, pos, charge);
    const float a2 = 2.0f * ALPHA * ALPHA;
    double t0 = suite_now();
#pragma omp parallel for schedule(dynamic)
    for (int box = 0; box < boxes; ++box) {
        int bx = box % side, by = box / side % side, bz = box / (side * side);
        for (int i = 0; i < PER_BOX; ++i) {
            Vec4 me = pos[box * PER_BOX + i], acc = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int nb = 0; nb < 27; ++nb) {
                int nx = bx + nb % 3 - 1, ny = by + nb / 3 % 3 - 1, nz = bz + nb / 9 - 1;
                if (nx < 0 || ny < 0 || nz < 0 || nx >= side || ny >= side || nz >= side)
                    continue;
                int other = (nz * side + ny) * side + nx;
                for (int j = 0; j < PER_BOX; ++j) {
                    Vec4 o = pos[other * PER_BOX + j];
                    float q = charge[other * PER_BOX + j];
                    float r2 = me.w + o.w - (me.x * o.x + me.y * o.y + me.z * o.z);
                    float vij = expf(-a2 * r2);
                    float fs = 2.0f * vij;
                    acc.w += q * vij;
                    acc.x += q * fs * (me.x - o.x);
                    acc.y += q * fs * (me.y - o.y);
                    acc.z += q * fs * (me.z - o.z);
                }
            }
            force[box * PER_BOX + i] = acc;
        }
    }
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    FILE *out = suite_open_output(argv[3]);
    for (int k = 0; k < n; k += 3)
        fprintf(out, "%.7e %.7e %.7e %.7e\n", force[k].w, force[k].x, force[k].y, force[k].z);
    fclose(out);
    return 0;
}
