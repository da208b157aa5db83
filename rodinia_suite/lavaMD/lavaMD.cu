// lavaMD: particle potential and forces within a cutoff given by a 3D grid of boxes, 32 particles
// per box.  One block per box, one thread per particle: for each of the box's up to 27 neighbour
// boxes (itself included), the block loads the neighbour's particles into shared memory, waits, and
// each thread accumulates its particle's interactions (barriers in the neighbour loop).
// Usage: lavaMD BOXES_PER_SIDE SEED OUTFILE
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define PER_BOX 32
#define ALPHA 0.5f

__global__ void lava(const float4 *pos, const float *charge, float4 *force, int side)
{
    __shared__ float4 other_pos[PER_BOX];
    __shared__ float other_charge[PER_BOX];
    int box = blockIdx.x, tx = threadIdx.x;
    int bx = box % side, by = box / side % side, bz = box / (side * side);
    float4 me = pos[box * PER_BOX + tx];
    float a2 = 2.0f * ALPHA * ALPHA;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int nb = 0; nb < 27; ++nb) {
        int nx = bx + nb % 3 - 1, ny = by + nb / 3 % 3 - 1, nz = bz + nb / 9 - 1;
        if (nx < 0 || ny < 0 || nz < 0 || nx >= side || ny >= side || nz >= side)
            continue;
        int other = (nz * side + ny) * side + nx;
        other_pos[tx] = pos[other * PER_BOX + tx];
        other_charge[tx] = charge[other * PER_BOX + tx];
        __syncthreads();
        for (int j = 0; j < PER_BOX; ++j) {
            float4 o = other_pos[j];
            float r2 = me.w + o.w - (me.x * o.x + me.y * o.y + me.z * o.z);
            float vij = expf(-a2 * r2);
            float fs = 2.0f * vij;
            acc.w += other_charge[j] * vij;
            acc.x += other_charge[j] * fs * (me.x - o.x);
            acc.y += other_charge[j] * fs * (me.y - o.y);
            acc.z += other_charge[j] * fs * (me.z - o.z);
        }
        __syncthreads();
    }
    force[box * PER_BOX + tx] = acc;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: lavaMD BOXES_PER_SIDE SEED OUTFILE\n");
        return 2;
    }
    int side = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    int boxes = side * side * side, n = boxes * PER_BOX;
    std::vector<float4> pos(n), force(n);
    std::vector<float> charge(n);
    lavamd_input(rng, n, pos, charge);
    float4 *d_pos, *d_force;
    float *d_charge;
    cudaMalloc(&d_pos, n * sizeof(float4));
    cudaMalloc(&d_force, n * sizeof(float4));
    cudaMalloc(&d_charge, n * sizeof(float));
    cudaMemcpy(d_pos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice);
    cudaMemcpy(d_charge, charge.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    lava<<<boxes, PER_BOX>>>(d_pos, d_charge, d_force, side);
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(force.data(), d_force, n * sizeof(float4), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[3]);
    for (int k = 0; k < n; k += 3)
        fprintf(out, "%.7e %.7e %.7e %.7e\n", force[k].w, force[k].x, force[k].y, force[k].z);
    fclose(out);
    cudaFree(d_pos);
    cudaFree(d_force);
    cudaFree(d_charge);
    return 0;
}
