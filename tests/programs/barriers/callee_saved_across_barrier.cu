// Many values live across each __syncthreads(): under --lowering=fallback every barrier is a call
// that switches fibers, so the compiler keeps them in callee-saved registers (integer and
// floating point), which the context switch must save and restore for each CUDA thread.
#include <cstdio>

#define BLOCK 128
#define ROUNDS 3

__global__ void mix(const int *in, int *iout, double *fout, int n)
{
    __shared__ int ring[BLOCK];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    const int v = i < n ? in[i] : 0;
    int b0 = v + 1, b1 = v * 3, b2 = v ^ 5, b3 = v - 7, b4 = v * v, b5 = v + 11, b6 = v * 13, b7 = v | 17,
        b8 = v - 19, b9 = v * 23;
    double a0 = v * 0.5, a1 = v + 1.25, a2 = v * 2.0, a3 = v - 3.5, a4 = v * 4.0, a5 = v + 5.75, a6 = v * 6.0,
           a7 = v - 7.25, a8 = v * 8.0, a9 = v + 9.5;
    int carried = 0;
    for (int r = 0; r < ROUNDS; ++r) {
        ring[t] = v + r;
        __syncthreads();
        carried += ring[(t + r + 1) % BLOCK];
        __syncthreads();
        b0 += r; b1 -= r; b2 ^= r; b3 += 2 * r; b4 -= 3 * r; b5 += b0; b6 -= b1; b7 ^= b2; b8 += b3; b9 -= b4;
        a0 += r; a1 -= r; a2 *= 2.0; a3 += a0; a4 -= a1; a5 += 0.5 * r; a6 -= a2; a7 += a3; a8 -= 0.25; a9 += a4;
    }
    if (i < n) {
        iout[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9 + carried;
        fout[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
    }
}

int main()
{
    const int n = 4 * BLOCK - 37;
    int host_in[4 * BLOCK], host_iout[4 * BLOCK];
    double host_fout[4 * BLOCK];
    for (int i = 0; i < n; ++i)
        host_in[i] = (i * 37 + 11) % 101 - 50;
    int *in, *iout;
    double *fout;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&iout, n * sizeof(int));
    cudaMalloc(&fout, n * sizeof(double));
    cudaMemcpy(in, host_in, n * sizeof(int), cudaMemcpyHostToDevice);
    mix<<<4, BLOCK>>>(in, iout, fout, n);
    cudaMemcpy(host_iout, iout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(host_fout, fout, n * sizeof(double), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        const int block = i / BLOCK, t = i % BLOCK, v = host_in[i];
        int b0 = v + 1, b1 = v * 3, b2 = v ^ 5, b3 = v - 7, b4 = v * v, b5 = v + 11, b6 = v * 13, b7 = v | 17,
            b8 = v - 19, b9 = v * 23;
        double a0 = v * 0.5, a1 = v + 1.25, a2 = v * 2.0, a3 = v - 3.5, a4 = v * 4.0, a5 = v + 5.75, a6 = v * 6.0,
               a7 = v - 7.25, a8 = v * 8.0, a9 = v + 9.5;
        int carried = 0;
        for (int r = 0; r < ROUNDS; ++r) {
            const int j = block * BLOCK + (t + r + 1) % BLOCK;
            carried += (j < n ? host_in[j] : 0) + r;
            b0 += r; b1 -= r; b2 ^= r; b3 += 2 * r; b4 -= 3 * r; b5 += b0; b6 -= b1; b7 ^= b2; b8 += b3; b9 -= b4;
            a0 += r; a1 -= r; a2 *= 2.0; a3 += a0; a4 -= a1; a5 += 0.5 * r; a6 -= a2; a7 += a3; a8 -= 0.25; a9 += a4;
        }
        const int want_i = b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9 + carried;
        const double want_f = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
        if (host_iout[i] != want_i || host_fout[i] != want_f) {
            printf("FAIL: thread %d: %d %.17g, want %d %.17g\n", i, host_iout[i], host_fout[i], want_i, want_f);
            return 1;
        }
    }
    cudaFree(in);
    cudaFree(iout);
    cudaFree(fout);
    printf("PASS\n");
    return 0;
}
