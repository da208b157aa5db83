// The directed-rounding intrinsics (__dadd_rd, __fmul_ru, __ddiv_rz, __dsqrt_ru, ...), compared
// bit for bit with the host's arithmetic under fesetround, on operands in the normal range and on
// the edge cases (zero sums, products and quotients near the underflow threshold, overflow, inf).
// In the normal range they must not change the CPU's rounding mode (interval arithmetic calls them
// for every operation, and a mode switch costs a hundred times the operation): the program counts
// its calls of fesetround while the first kernel runs.
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <cuda_runtime.h>

static int mode_switches = 0;

// The program's own fesetround, before the C library's: it counts, then sets the mode.
extern "C" int fesetround(int mode) noexcept
{
    static int (*library)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fesetround");
    ++mode_switches;
    return library(mode);
}

#define OPS 24

__global__ void rounded(const double *x, const double *y, const float *xf, const float *yf, double *d, float *f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = x[i], b = y[i];
    float p = xf[i], q = yf[i];
    double *o = d + i * OPS;
    float *g = f + i * OPS;
    o[0] = __dadd_rd(a, b); o[1] = __dadd_ru(a, b); o[2] = __dadd_rz(a, b);
    o[3] = __dsub_rd(a, b); o[4] = __dsub_ru(a, b); o[5] = __dsub_rz(a, b);
    o[6] = __dmul_rd(a, b); o[7] = __dmul_ru(a, b); o[8] = __dmul_rz(a, b);
    o[9] = __ddiv_rd(a, b); o[10] = __ddiv_ru(a, b); o[11] = __ddiv_rz(a, b);
    o[12] = __dsqrt_rd(fabs(a)); o[13] = __dsqrt_ru(fabs(a)); o[14] = __dsqrt_rz(fabs(a));
    o[15] = __drcp_rd(b); o[16] = __drcp_ru(b); o[17] = __drcp_rz(b);
    g[0] = __fadd_rd(p, q); g[1] = __fadd_ru(p, q); g[2] = __fadd_rz(p, q);
    g[3] = __fsub_rd(p, q); g[4] = __fsub_ru(p, q); g[5] = __fsub_rz(p, q);
    g[6] = __fmul_rd(p, q); g[7] = __fmul_ru(p, q); g[8] = __fmul_rz(p, q);
    g[9] = __fdiv_rd(p, q); g[10] = __fdiv_ru(p, q); g[11] = __fdiv_rz(p, q);
    g[12] = __fsqrt_rd(fabsf(p)); g[13] = __fsqrt_ru(fabsf(p)); g[14] = __fsqrt_rz(fabsf(p));
    g[15] = __frcp_rd(q); g[16] = __frcp_ru(q); g[17] = __frcp_rz(q);
}

static const int MODES[3] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};

// The host's results under each mode, through volatile objects so that g++ folds nothing.
static void reference(double a, double b, float p, float q, double *o, float *g)
{
    for (int m = 0; m < 3; ++m) {
        int saved = fegetround();
        fesetround(MODES[m]);
        volatile double va = a, vb = b, aa = fabs(a);
        volatile float vp = p, vq = q, ap = fabsf(p);
        o[m] = va + vb; o[3 + m] = va - vb; o[6 + m] = va * vb; o[9 + m] = va / vb;
        o[12 + m] = sqrt(aa); o[15 + m] = 1.0 / vb;
        g[m] = vp + vq; g[3 + m] = vp - vq; g[6 + m] = vp * vq; g[9 + m] = vp / vq;
        g[12 + m] = sqrtf(ap); g[15 + m] = 1.0f / vq;
        fesetround(saved);
    }
}

static unsigned lcg = 12345;
static double uniform() { lcg = lcg * 1664525u + 1013904223u; return (lcg >> 8) / 16777216.0; }

static int check(int n, const double *x, const double *y, const float *xf, const float *yf, int *switches)
{
    double *dx, *dy, *dd;
    float *dxf, *dyf, *df;
    cudaMalloc(&dx, n * sizeof(double)); cudaMalloc(&dy, n * sizeof(double));
    cudaMalloc(&dxf, n * sizeof(float)); cudaMalloc(&dyf, n * sizeof(float));
    cudaMalloc(&dd, n * OPS * sizeof(double)); cudaMalloc(&df, n * OPS * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dxf, xf, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dyf, yf, n * sizeof(float), cudaMemcpyHostToDevice);
    mode_switches = 0;
    rounded<<<(n + 63) / 64, 64>>>(dx, dy, dxf, dyf, dd, df, n);
    cudaDeviceSynchronize();
    *switches = mode_switches;
    static double d[4096 * OPS];
    static float f[4096 * OPS];
    cudaMemcpy(d, dd, n * OPS * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(f, df, n * OPS * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy); cudaFree(dxf); cudaFree(dyf); cudaFree(dd); cudaFree(df);
    for (int i = 0; i < n; ++i) {
        double o[OPS];
        float g[OPS];
        reference(x[i], y[i], xf[i], yf[i], o, g);
        for (int k = 0; k < 18; ++k) {
            if (memcmp(&o[k], &d[i * OPS + k], sizeof(double)) != 0 && !(std::isnan(o[k]) && std::isnan(d[i * OPS + k]))) {
                printf("FAIL: double operation %d (mode %d) of %a and %a: %a, expected %a\n", k / 3, k % 3, x[i], y[i],
                       d[i * OPS + k], o[k]);
                return 1;
            }
            if (memcmp(&g[k], &f[i * OPS + k], sizeof(float)) != 0 && !(std::isnan(g[k]) && std::isnan(f[i * OPS + k]))) {
                printf("FAIL: float operation %d (mode %d) of %a and %a: %a, expected %a\n", k / 3, k % 3, xf[i], yf[i],
                       f[i * OPS + k], g[k]);
                return 1;
            }
        }
    }
    return 0;
}

int main()
{
    const int n = 4096;
    static double x[n], y[n];
    static float xf[n], yf[n];
    for (int i = 0; i < n; ++i) {
        // Operands of both signs and magnitudes 2^-20 .. 2^20: results in the normal range.
        x[i] = (uniform() < 0.5 ? -1 : 1) * (0.5 + uniform()) * ldexp(1.0, (int)(uniform() * 40) - 20);
        y[i] = (uniform() < 0.5 ? -1 : 1) * (0.5 + uniform()) * ldexp(1.0, (int)(uniform() * 40) - 20);
        if (i % 7 == 0)
            y[i] = -x[i] * (1 + ldexp(1.0, -20));  // sums with cancellation, not to zero
        xf[i] = (float)x[i];
        yf[i] = (float)y[i];
    }
    int switches = 0;
    if (check(n, x, y, xf, yf, &switches))
        return 1;
    if (switches != 0) {
        printf("FAIL: %d changes of the rounding mode for operations in the normal range\n", switches);
        return 1;
    }
    const double dmin = 2.2250738585072014e-308, dmax = 1.7976931348623157e308;
    const float fmin = 1.17549435e-38f, fmax = 3.40282347e38f;
    double ex[] = {1.0, -1.0, 0.0, -0.0, 3.0, dmin, 3 * dmin, dmax, -dmax, INFINITY, 1e-200, 1.5, dmax, 1e300, 0.1};
    double ey[] = {-1.0, 1.0, -0.0, -0.0, 1e-320, 0.3, 0.7, dmax, 1e-10, 2.0, 1e-200, 1e308, 1e-300, -1e300, 3.0};
    float exf[] = {1.0f, -1.0f, 0.0f, -0.0f, 3.0f, fmin, 3 * fmin, fmax, -fmax, INFINITY, 1e-30f, 1.5f, fmax, 1e30f, 0.1f};
    float eyf[] = {-1.0f, 1.0f, -0.0f, -0.0f, 1e-44f, 0.3f, 0.7f, fmax, 1e-10f, 2.0f, 1e-20f, 1e38f, 1e-30f, -1e30f, 3.0f};
    if (check(sizeof ex / sizeof ex[0], ex, ey, exf, eyf, &switches))
        return 1;
    printf("PASS\n");
    return 0;
}
