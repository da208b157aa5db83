// Single- and double-precision math in device code: sqrtf, expf, __expf, logf, sinf, cosf, powf,
// fabsf, fminf, fmaxf, floorf, fmodf, rsqrtf, tanhf, sqrt/exp (double) and device min/max on int;
// compared against <cmath> on the host with relative tolerances (looser for __expf).
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define NOUT 8

__global__ void math_kernel(const float *x, float *out, double *dout, int *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float a = fabsf(v) + 0.5f;
        out[i * NOUT + 0] = sqrtf(a) + rsqrtf(a);
        out[i * NOUT + 1] = expf(v * 0.5f);
        out[i * NOUT + 2] = __expf(v * 0.5f);
        out[i * NOUT + 3] = logf(a) * sinf(v) + cosf(v);
        out[i * NOUT + 4] = powf(a, 1.5f);
        out[i * NOUT + 5] = fminf(v, 1.0f) + fmaxf(v, -1.0f);
        out[i * NOUT + 6] = floorf(v * 3.0f) + fmodf(a * 7.0f, 2.5f);
        out[i * NOUT + 7] = tanhf(v);
        dout[i] = sqrt((double)a) * exp((double)v / 8.0);
        iout[i] = max(min((int)floorf(v * 10.0f), 25), -25);
    }
}

int main()
{
    const int n = 100000;
    std::vector<float> x(n), out(n * NOUT);
    std::vector<double> dres(n);
    std::vector<int> ires(n);
    for (int i = 0; i < n; ++i)
        x[i] = -6.0f + 12.0f * (float)((i * 7919) % n) / n;
    float *dx, *dout;
    double *ddout;
    int *diout;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dout, n * NOUT * sizeof(float));
    cudaMalloc(&ddout, n * sizeof(double));
    cudaMalloc(&diout, n * sizeof(int));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    math_kernel<<<(n + 255) / 256, 256>>>(dx, dout, ddout, diout, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, n * NOUT * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(dres.data(), ddout, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(ires.data(), diout, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dout);
    cudaFree(ddout);
    cudaFree(diout);
    for (int i = 0; i < n; ++i) {
        double v = x[i];
        double a = std::fabs(v) + 0.5;
        double e[NOUT] = {std::sqrt(a) + 1.0 / std::sqrt(a),
                          std::exp(v * 0.5),
                          std::exp(v * 0.5),
                          std::log(a) * std::sin(v) + std::cos(v),
                          std::pow(a, 1.5),
                          std::fmin(v, 1.0) + std::fmax(v, -1.0),
                          0.0,
                          std::tanh(v)};
        for (int k = 0; k < NOUT; ++k) {
            if (k == 6)
                continue;  // floorf/fmodf: checked exactly below
            double tol = k == 2 ? 1e-3 : 1e-5;
            if (std::fabs(out[i * NOUT + k] - e[k]) > tol * (1.0 + std::fabs(e[k]))) {
                printf("FAIL: x=%g result %d = %.9g, expected %.9g\n", v, k, out[i * NOUT + k], e[k]);
                return 1;
            }
        }
        float af = std::fabs(x[i]) + 0.5f;
        float e6 = std::floor(x[i] * 3.0f) + std::fmod(af * 7.0f, 2.5f);
        if (out[i * NOUT + 6] != e6) {
            printf("FAIL: x=%g floor/fmod = %.9g, expected %.9g\n", v, out[i * NOUT + 6], e6);
            return 1;
        }
        double ed = std::sqrt((double)af) * std::exp(v / 8.0);
        if (std::fabs(dres[i] - ed) > 1e-12 * (1.0 + ed)) {
            printf("FAIL: x=%g double result %.17g, expected %.17g\n", v, dres[i], ed);
            return 1;
        }
        int ei = (int)std::floor(x[i] * 10.0f);
        ei = ei > 25 ? 25 : ei < -25 ? -25 : ei;
        if (ires[i] != ei) {
            printf("FAIL: x=%g min/max = %d, expected %d\n", v, ires[i], ei);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
