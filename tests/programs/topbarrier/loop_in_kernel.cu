// Per-thread loops with no barriers: a `for` loop (matrix-vector product, one row per thread),
// a `while` loop with data-dependent trip count and `break`, and a `for` with `continue`.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void matvec(const float *m, const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c)
            acc += m[r * cols + c] * x[c];
        y[r] = acc;
    }
}

// Collatz steps of i+1, capped at `cap` (break), and the number of odd digits of i (continue).
__global__ void per_thread_loops(int *steps, int *odd_digits, int n, int cap)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long v = i + 1;
        int k = 0;
        while (v != 1) {
            if (k == cap)
                break;
            v = (v % 2 == 0) ? v / 2 : 3 * v + 1;
            ++k;
        }
        steps[i] = k;
        int odd = 0;
        for (int d = i; d > 0; d /= 10) {
            if ((d % 10) % 2 == 0)
                continue;
            odd++;
        }
        odd_digits[i] = odd;
    }
}

int main()
{
    const int rows = 700, cols = 333;
    std::vector<float> m(rows * cols), x(cols), y(rows);
    for (int i = 0; i < rows * cols; ++i)
        m[i] = (float)((i * 29) % 19) * 0.125f - 1.0f;
    for (int c = 0; c < cols; ++c)
        x[c] = (float)(c % 13) * 0.25f;
    float *dm, *dx, *dy;
    cudaMalloc(&dm, rows * cols * sizeof(float));
    cudaMalloc(&dx, cols * sizeof(float));
    cudaMalloc(&dy, rows * sizeof(float));
    cudaMemcpy(dm, m.data(), rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x.data(), cols * sizeof(float), cudaMemcpyHostToDevice);
    matvec<<<(rows + 63) / 64, 64>>>(dm, dx, dy, rows, cols);
    cudaDeviceSynchronize();
    cudaMemcpy(y.data(), dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dm);
    cudaFree(dx);
    cudaFree(dy);
    for (int r = 0; r < rows; ++r) {
        double e = 0;
        for (int c = 0; c < cols; ++c)
            e += (double)m[r * cols + c] * x[c];
        if (std::fabs(y[r] - e) > 1e-4 * (1 + std::fabs(e))) {
            printf("FAIL: y[%d] = %g, expected %g\n", r, y[r], e);
            return 1;
        }
    }

    const int n = 100000, cap = 100;
    std::vector<int> steps(n), odd(n);
    int *dsteps, *dodd;
    cudaMalloc(&dsteps, n * sizeof(int));
    cudaMalloc(&dodd, n * sizeof(int));
    per_thread_loops<<<(n + 255) / 256, 256>>>(dsteps, dodd, n, cap);
    cudaDeviceSynchronize();
    cudaMemcpy(steps.data(), dsteps, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(odd.data(), dodd, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dsteps);
    cudaFree(dodd);
    for (int i = 0; i < n; ++i) {
        long long v = i + 1;
        int k = 0;
        while (v != 1 && k < cap) {
            v = v % 2 == 0 ? v / 2 : 3 * v + 1;
            ++k;
        }
        int o = 0;
        for (int d = i; d > 0; d /= 10)
            o += (d % 10) % 2;
        if (steps[i] != k || odd[i] != o) {
            printf("FAIL: index %d: got (%d, %d), expected (%d, %d)\n", i, steps[i], odd[i], k, o);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
