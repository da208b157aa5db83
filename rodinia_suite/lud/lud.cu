// lud: in-place LU decomposition (no pivoting; the matrix is diagonally dominant), blocked in 16x16
// tiles.  Per step: the diagonal kernel factors the diagonal tile in shared memory (barriers in the
// elimination loop), the perimeter kernel solves the tiles right of it (U) and below it (L), and the
// internal kernel updates the trailing tiles from shared copies of their L and U tiles.
// N is a multiple of 16.  Usage: lud N SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BS 16

__global__ void lud_diagonal(float *a, int n, int offset)
{
    __shared__ float s[BS][BS];
    int tx = threadIdx.x;
    for (int i = 0; i < BS; ++i)
        s[i][tx] = a[(offset + i) * n + offset + tx];
    __syncthreads();
    for (int k = 0; k < BS; ++k) {
        if (tx > k)
            s[tx][k] /= s[k][k];
        __syncthreads();
        if (tx > k)
            for (int j = k + 1; j < BS; ++j)
                s[tx][j] -= s[tx][k] * s[k][j];
        __syncthreads();
    }
    for (int i = 0; i < BS; ++i)
        a[(offset + i) * n + offset + tx] = s[i][tx];
}

// Block b: the U tile at (offset, offset + 16 (b + 1)) and the L tile at (offset + 16 (b + 1), offset).
// Thread tx owns a column of the U tile and a row of the L tile.
__global__ void lud_perimeter(float *a, int n, int offset)
{
    __shared__ float dia[BS][BS];
    __shared__ float row[BS][BS];
    __shared__ float col[BS][BS];
    int tx = threadIdx.x;
    int other = offset + BS * (blockIdx.x + 1);
    for (int i = 0; i < BS; ++i) {
        dia[i][tx] = a[(offset + i) * n + offset + tx];
        row[i][tx] = a[(offset + i) * n + other + tx];
        col[i][tx] = a[(other + i) * n + offset + tx];
    }
    __syncthreads();
    for (int i = 1; i < BS; ++i)
        for (int j = 0; j < i; ++j)
            row[i][tx] -= dia[i][j] * row[j][tx];
    for (int j = 0; j < BS; ++j) {
        float sum = col[tx][j];
        for (int k = 0; k < j; ++k)
            sum -= col[tx][k] * dia[k][j];
        col[tx][j] = sum / dia[j][j];
    }
    __syncthreads();
    for (int i = 0; i < BS; ++i) {
        a[(offset + i) * n + other + tx] = row[i][tx];
        a[(other + i) * n + offset + tx] = col[i][tx];
    }
}

__global__ void lud_internal(float *a, int n, int offset)
{
    __shared__ float l[BS][BS];
    __shared__ float u[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int gy = offset + BS * (blockIdx.y + 1) + ty, gx = offset + BS * (blockIdx.x + 1) + tx;
    l[ty][tx] = a[gy * n + offset + tx];
    u[ty][tx] = a[(offset + ty) * n + gx];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < BS; ++k)
        sum += l[ty][k] * u[k][tx];
    a[gy * n + gx] -= sum;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: lud N SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]);
    SuiteRng rng(atoll(argv[2]));
    std::vector<float> a = lud_matrix(rng, n);
    float *d_a;
    cudaMalloc(&d_a, n * n * sizeof(float));
    cudaMemcpy(d_a, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    int offset = 0;
    for (; offset < n - BS; offset += BS) {
        lud_diagonal<<<1, BS>>>(d_a, n, offset);
        int rest = (n - offset) / BS - 1;
        lud_perimeter<<<rest, BS>>>(d_a, n, offset);
        lud_internal<<<dim3(rest, rest), dim3(BS, BS)>>>(d_a, n, offset);
    }
    lud_diagonal<<<1, BS>>>(d_a, n, offset);
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(a.data(), d_a, n * n * sizeof(float), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[3]);
    for (int k = 0; k < n * n; k += 13)
        fprintf(out, "%.7e\n", a[k]);
    fclose(out);
    cudaFree(d_a);
    return 0;
}
