// nw: Needleman-Wunsch global alignment score matrix.  The (N+1)^2 matrix is cut into 16x16 tiles
// swept by anti-diagonals of tiles, one launch per tile diagonal; inside a tile, a block of 16
// threads walks the tile's cell anti-diagonals in shared memory, a barrier after each (barriers in
// two loops).  N is a multiple of 16.  Usage: nw N PENALTY SEED OUTFILE
#include <vector>
#include <cuda_runtime.h>
#include "inputs.h"

#define BS 16

__device__ int best(int diagonal, int up, int left)
{
    int m = diagonal > up ? diagonal : up;
    return m > left ? m : left;
}

__global__ void nw_tile(int *score, const int *ref, int n1, int tiles, int diag, int penalty)
{
    __shared__ int s[BS + 1][BS + 1];
    __shared__ int r[BS][BS];
    int tx = threadIdx.x;
    int first = diag - tiles + 1 > 0 ? diag - tiles + 1 : 0;
    int ti = first + blockIdx.x, tj = diag - ti;
    int row0 = ti * BS, col0 = tj * BS;
    for (int k = 0; k < BS; ++k)
        r[k][tx] = ref[(row0 + 1 + k) * n1 + col0 + 1 + tx];
    if (tx == 0)
        s[0][0] = score[row0 * n1 + col0];
    s[0][tx + 1] = score[row0 * n1 + col0 + 1 + tx];
    s[tx + 1][0] = score[(row0 + 1 + tx) * n1 + col0];
    __syncthreads();
    for (int m = 0; m < BS; ++m) {
        if (tx <= m) {
            int y = tx + 1, x = m - tx + 1;
            s[y][x] = best(s[y - 1][x - 1] + r[y - 1][x - 1], s[y - 1][x] - penalty, s[y][x - 1] - penalty);
        }
        __syncthreads();
    }
    for (int m = BS - 2; m >= 0; --m) {
        if (tx <= m) {
            int y = tx + BS - m, x = BS - tx;
            s[y][x] = best(s[y - 1][x - 1] + r[y - 1][x - 1], s[y - 1][x] - penalty, s[y][x - 1] - penalty);
        }
        __syncthreads();
    }
    for (int k = 0; k < BS; ++k)
        score[(row0 + 1 + k) * n1 + col0 + 1 + tx] = s[k + 1][tx + 1];
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: nw N PENALTY SEED OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]), penalty = atoi(argv[2]);
    SuiteRng rng(atoll(argv[3]));
    int n1 = n + 1;
    std::vector<int> ref, score;
    nw_input(rng, n, penalty, ref, score);
    int *d_ref, *d_score;
    cudaMalloc(&d_ref, n1 * n1 * sizeof(int));
    cudaMalloc(&d_score, n1 * n1 * sizeof(int));
    cudaMemcpy(d_ref, ref.data(), n1 * n1 * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_score, score.data(), n1 * n1 * sizeof(int), cudaMemcpyHostToDevice);
    int tiles = n / BS;
    double t0 = suite_now();
    for (int diag = 0; diag < 2 * tiles - 1; ++diag) {
        int first = diag - tiles + 1 > 0 ? diag - tiles + 1 : 0;
        int last = diag < tiles - 1 ? diag : tiles - 1;
        nw_tile<<<last - first + 1, BS>>>(d_score, d_ref, n1, tiles, diag, penalty);
    }
    cudaDeviceSynchronize();
    double t1 = suite_now();
    suite_report_time(t1 - t0);
    cudaMemcpy(score.data(), d_score, n1 * n1 * sizeof(int), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[4]);
    for (int k = 0; k < n1 * n1; k += 11)
        fprintf(out, "%d\n", score[k]);
    fprintf(out, "%d\n", score[n1 * n1 - 1]);
    fclose(out);
    cudaFree(d_ref);
    cudaFree(d_score);
    return 0;
}
