// streamcluster: the facility-location step of online clustering (pgain): for each candidate point
// x, would opening a centre at x, moving to it the points it serves more cheaply and closing the
// centres it makes unprofitable, lower the total cost?  The GPU way: a cost kernel with one thread
// per point, the candidate's coordinates loaded once per block into shared memory (barrier), that
// writes each point's gain and the centre it counts against; a reduction kernel with one block
// per centre that sums those gains with a shared-memory tree (barriers); the host decides, and an
// update kernel moves the points.  Usage: streamcluster POINTS DIM CANDIDATES SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BLOCK 256
#define MAX_DIM 64

__global__ void pgain_cost(int points, int dim, int x, const float *coords, const float *weights, const float *cost,
                           const int *assign, const int *center_table, int centers, float *x_cost, double *gain,
                           int *slot)
{
    __shared__ float candidate[MAX_DIM];
    if (threadIdx.x < dim)
        candidate[threadIdx.x] = coords[(long)threadIdx.x * points + x];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= points)
        return;
    float distance = 0.0f;
    for (int d = 0; d < dim; ++d) {
        float diff = coords[(long)d * points + i] - candidate[d];
        distance += diff * diff;
    }
    float mine = distance * weights[i];
    x_cost[i] = mine;
    if (mine < cost[i]) {
        // The point would move to x: what it saves counts for opening x (slot `centers`).
        gain[i] = mine - cost[i];
        slot[i] = centers;
    } else {
        // The point stays, but if its centre closed it would move to x at this extra cost.
        gain[i] = cost[i] - mine;
        slot[i] = center_table[assign[i]];
    }
}

// Block c sums the gains of the points whose slot is c.
__global__ void pgain_sum(int points, const double *gain, const int *slot, double *sums)
{
    __shared__ double part[BLOCK];
    int t = threadIdx.x, c = blockIdx.x;
    double sum = 0.0;
    for (int i = t; i < points; i += BLOCK)
        if (slot[i] == c)
            sum += gain[i];
    part[t] = sum;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            part[t] += part[t + half];
        __syncthreads();
    }
    if (t == 0)
        sums[c] = part[0];
}

__global__ void pgain_update(int points, int x, const float *x_cost, const int *slot, const int *closing, int centers,
                             float *cost, int *assign)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= points)
        return;
    if (slot[i] == centers || closing[slot[i]]) {
        cost[i] = x_cost[i];
        assign[i] = x;
    }
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: streamcluster POINTS DIM CANDIDATES SEED OUTFILE\n");
        return 2;
    }
    int points = atoi(argv[1]), dim = atoi(argv[2]), ncand = atoi(argv[3]);
    if (dim > MAX_DIM) {
        fprintf(stderr, "DIM is at most %d\n", MAX_DIM);
        return 2;
    }
    SuiteRng rng(atoll(argv[4]));
    StreamInput in = streamcluster_input(rng, points, dim, ncand);
    std::vector<float> cost(points);
    std::vector<int> assign(points, 0), center_table(points, 0), is_center(points, 0);
    double total = 0.0;
    for (int i = 0; i < points; ++i) {
        cost[i] = streamcluster_distance(in, points, dim, i, 0) * in.weights[i];
        total += cost[i];
    }
    const double z = total / 64.0;
    std::vector<int> centers(1, 0);
    is_center[0] = 1;
    float *d_coords, *d_weights, *d_cost, *d_x_cost;
    int *d_assign, *d_table, *d_slot, *d_closing;
    double *d_gain, *d_sums;
    cudaMalloc(&d_coords, in.coords.size() * sizeof(float));
    cudaMalloc(&d_weights, points * sizeof(float));
    cudaMalloc(&d_cost, points * sizeof(float));
    cudaMalloc(&d_x_cost, points * sizeof(float));
    cudaMalloc(&d_assign, points * sizeof(int));
    cudaMalloc(&d_table, points * sizeof(int));
    cudaMalloc(&d_slot, points * sizeof(int));
    cudaMalloc(&d_closing, points * sizeof(int));
    cudaMalloc(&d_gain, points * sizeof(double));
    cudaMalloc(&d_sums, (points + 1) * sizeof(double));
    cudaMemcpy(d_coords, in.coords.data(), in.coords.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weights, in.weights.data(), points * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_cost, cost.data(), points * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_assign, assign.data(), points * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_table, center_table.data(), points * sizeof(int), cudaMemcpyHostToDevice);
    int blocks = (points + BLOCK - 1) / BLOCK;
    std::vector<double> sums;
    std::vector<int> closing;
    double t0 = suite_now();
    for (int x : in.candidates) {
        if (is_center[x])
            continue;
        int k = (int)centers.size();
        pgain_cost<<<blocks, BLOCK>>>(points, dim, x, d_coords, d_weights, d_cost, d_assign, d_table, k, d_x_cost,
                                      d_gain, d_slot);
        pgain_sum<<<k + 1, BLOCK>>>(points, d_gain, d_slot, d_sums);
        sums.resize(k + 1);
        cudaMemcpy(sums.data(), d_sums, (k + 1) * sizeof(double), cudaMemcpyDeviceToHost);
        // Opening x costs z less what the moving points save; closing a centre whose points
        // lose less than z by moving saves the difference.
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
        cudaMemcpy(d_closing, closing.data(), k * sizeof(int), cudaMemcpyHostToDevice);
        pgain_update<<<blocks, BLOCK>>>(points, x, d_x_cost, d_slot, d_closing, k, d_cost, d_assign);
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
            center_table[centers[c]] = c;
        cudaMemcpy(d_table, center_table.data(), points * sizeof(int), cudaMemcpyHostToDevice);
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(cost.data(), d_cost, points * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(assign.data(), d_assign, points * sizeof(int), cudaMemcpyDeviceToHost);
    double final_cost = z * centers.size();
    for (int i = 0; i < points; ++i)
        final_cost += cost[i];
    FILE *out = suite_open_output(argv[5]);
    fprintf(out, "%d %.17g\n", (int)centers.size(), final_cost);
    for (int i = 0; i < points; ++i)
        fprintf(out, "%d\n", assign[i]);
    fclose(out);
    cudaFree(d_coords);
    cudaFree(d_weights);
    cudaFree(d_cost);
    cudaFree(d_x_cost);
    cudaFree(d_assign);
    cudaFree(d_table);
    cudaFree(d_slot);
    cudaFree(d_closing);
    cudaFree(d_gain);
    cudaFree(d_sums);
    return 0;
}
