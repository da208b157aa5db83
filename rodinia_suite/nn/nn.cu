// nn: distance of every record (latitude, longitude) to a target point, one thread per record;
// the host then picks the k nearest.  Usage: nn RECORDS K SEED OUTFILE
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "inputs.h"

__global__ void distances(const float2 *records, float *dist, int n, float lat, float lng)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float dlat = records[i].x - lat;
        float dlng = records[i].y - lng;
        dist[i] = sqrtf(dlat * dlat + dlng * dlng);
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: nn RECORDS K SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), k = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    std::vector<float> lat_lng = nn_records(rng, n);
    std::vector<float2> records(n);
    for (int i = 0; i < n; ++i) {
        records[i].x = lat_lng[2 * i];
        records[i].y = lat_lng[2 * i + 1];
    }
    float lat = 30.0f, lng = 90.0f;
    float2 *d_records;
    float *d_dist;
    cudaMalloc(&d_records, n * sizeof(float2));
    cudaMalloc(&d_dist, n * sizeof(float));
    cudaMemcpy(d_records, records.data(), n * sizeof(float2), cudaMemcpyHostToDevice);
    std::vector<float> dist(n);
    double t0 = suite_now();
    const int block = 256;
    distances<<<(n + block - 1) / block, block>>>(d_records, d_dist, n, lat, lng);
    cudaDeviceSynchronize();
    cudaMemcpy(dist.data(), d_dist, n * sizeof(float), cudaMemcpyDeviceToHost);
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    // The k nearest, ties broken by index, so both versions list the same records.
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
    cudaFree(d_records);
    cudaFree(d_dist);
    return 0;
}
