// Global-memory histogram with atomicAdd on int bins, plus atomicMax/atomicMin on global scalars
// and an unsigned long long atomicAdd total; no shared memory, no barriers.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define BINS 64

__global__ void histogram(const int *data, int n, int *bins, int *maxv, int *minv, unsigned long long *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = data[i];
        atomicAdd(&bins[v % BINS], 1);
        atomicMax(maxv, v);
        atomicMin(minv, v);
        atomicAdd(total, (unsigned long long)v);
    }
}

int main()
{
    const int n = 400000;
    std::vector<int> data(n);
    unsigned state = 12345u;
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;  // LCG
        data[i] = (int)(state >> 8) % 100000;
    }
    int *ddata, *dbins, *dmax, *dmin;
    unsigned long long *dtotal;
    cudaMalloc(&ddata, n * sizeof(int));
    cudaMalloc(&dbins, BINS * sizeof(int));
    cudaMalloc(&dmax, sizeof(int));
    cudaMalloc(&dmin, sizeof(int));
    cudaMalloc(&dtotal, sizeof(unsigned long long));
    std::vector<int> zeros(BINS, 0);
    int lo = 1 << 30, hi = -1;
    unsigned long long zero = 0;
    cudaMemcpy(ddata, data.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dbins, zeros.data(), BINS * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dmax, &hi, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dmin, &lo, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dtotal, &zero, sizeof(zero), cudaMemcpyHostToDevice);
    histogram<<<(n + 255) / 256, 256>>>(ddata, n, dbins, dmax, dmin, dtotal);
    cudaDeviceSynchronize();
    std::vector<int> bins(BINS);
    int gmax, gmin;
    unsigned long long gtotal;
    cudaMemcpy(bins.data(), dbins, BINS * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&gmax, dmax, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&gmin, dmin, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&gtotal, dtotal, sizeof(gtotal), cudaMemcpyDeviceToHost);
    cudaFree(ddata);
    cudaFree(dbins);
    cudaFree(dmax);
    cudaFree(dmin);
    cudaFree(dtotal);
    std::vector<int> ebins(BINS, 0);
    int emax = -1, emin = 1 << 30;
    unsigned long long etotal = 0;
    for (int v : data) {
        ebins[v % BINS]++;
        emax = v > emax ? v : emax;
        emin = v < emin ? v : emin;
        etotal += v;
    }
    for (int b = 0; b < BINS; ++b)
        if (bins[b] != ebins[b]) {
            printf("FAIL: bin %d = %d, expected %d\n", b, bins[b], ebins[b]);
            return 1;
        }
    if (gmax != emax || gmin != emin || gtotal != etotal) {
        printf("FAIL: max/min/total (%d, %d, %llu), expected (%d, %d, %llu)\n", gmax, gmin, gtotal, emax, emin, etotal);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
