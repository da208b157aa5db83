// The C library's math functions in kernels' thread loops, as device code spells them (erff,
// erf on a float, std::exp, ::log, in a template on a dependent type, in __device__ helpers kept as
// written), each kernel launched with blocks of 1, 7, 32, 100 and 256 threads (vector loops and
// their remainders), checked against the host's values within CUDA's documented error bounds.
// Specials (zeros, infinities, NaN, subnormals, extremes) are among the arguments.  The host's own
// loop over erff must give glibc's scalar values bit for bit: host code is not vectorized through
// device math.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define N 50000

// ---- kernels: one per call, so that each thread loop vectorizes (or not) by itself ----
#define KERNEL(T, kernel, expr)                                                                    \
    __global__ void kernel(const T *xs, const T *ys, T *out, int n)                                \
    {                                                                                              \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
        if (i < n) {                                                                               \
            T x = xs[i], y = ys[i];                                                                \
            (void)y;                                                                               \
            out[i] = expr;                                                                         \
        }                                                                                          \
    }
#define FLOAT_KERNEL(kernel, expr) KERNEL(float, kernel, expr)
#define DOUBLE_KERNEL(kernel, expr) KERNEL(double, kernel, expr)

template <class T>
__device__ T gelu(T x) { return x * T(0.5) * (T(1) + erf(x * T(0.70710678118654752))); }
__device__ float softplus(float x) { return logf(1.0f + expf(x)); }
__host__ __device__ float logistic(float x) { return 1.0f / (1.0f + expf(-x)); }

FLOAT_KERNEL(k_erff, erff(x))
FLOAT_KERNEL(k_erf_overload, erf(x))
FLOAT_KERNEL(k_std_exp, std::exp(x))
FLOAT_KERNEL(k_global_log, ::log(x))
FLOAT_KERNEL(k_expf, expf(x))
FLOAT_KERNEL(k_exp2f, exp2f(x))
FLOAT_KERNEL(k_exp10f, exp10f(x))
FLOAT_KERNEL(k_expm1f, expm1f(x))
FLOAT_KERNEL(k_logf, logf(x))
FLOAT_KERNEL(k_log2f, log2f(x))
FLOAT_KERNEL(k_log10f, log10f(x))
FLOAT_KERNEL(k_log1pf, log1pf(x))
FLOAT_KERNEL(k_sinf, sinf(x))
FLOAT_KERNEL(k_cosf, cosf(x))
FLOAT_KERNEL(k_tanf, tanf(x))
FLOAT_KERNEL(k_asinf, asinf(x))
FLOAT_KERNEL(k_acosf, acosf(x))
FLOAT_KERNEL(k_atanf, atanf(x))
FLOAT_KERNEL(k_sinhf, sinhf(x))
FLOAT_KERNEL(k_coshf, coshf(x))
FLOAT_KERNEL(k_tanhf, tanhf(x))
FLOAT_KERNEL(k_asinhf, asinhf(x))
FLOAT_KERNEL(k_acoshf, acoshf(x))
FLOAT_KERNEL(k_atanhf, atanhf(x))
FLOAT_KERNEL(k_erfcf, erfcf(x))
FLOAT_KERNEL(k_cbrtf, cbrtf(x))
FLOAT_KERNEL(k_powf, powf(x, y))
FLOAT_KERNEL(k_atan2f, atan2f(x, y))
FLOAT_KERNEL(k_hypotf, hypotf(x, y))
FLOAT_KERNEL(k_fast_expf, __expf(x))
FLOAT_KERNEL(k_gelu, gelu(x))
FLOAT_KERNEL(k_softplus, softplus(x))
FLOAT_KERNEL(k_logistic, logistic(x))
DOUBLE_KERNEL(k_exp, exp(x))
DOUBLE_KERNEL(k_log, log(x))
DOUBLE_KERNEL(k_sin, sin(x))
DOUBLE_KERNEL(k_cos, cos(x))
DOUBLE_KERNEL(k_erf, erf(x))
DOUBLE_KERNEL(k_erfc, erfc(x))
DOUBLE_KERNEL(k_atan, atan(x))
DOUBLE_KERNEL(k_asinh, asinh(x))
DOUBLE_KERNEL(k_acosh, acosh(x))
DOUBLE_KERNEL(k_atanh, atanh(x))
DOUBLE_KERNEL(k_log10, log10(x))
DOUBLE_KERNEL(k_pow, pow(x, y))
DOUBLE_KERNEL(k_atan2, atan2(x, y))
DOUBLE_KERNEL(k_hypot, hypot(x, y))
DOUBLE_KERNEL(k_gelu_double, gelu(x))
// C's exp10 of double only (a float argument converts), and <cmath>'s integer overloads: double.
DOUBLE_KERNEL(k_exp10_of_float, exp10((float)x))
DOUBLE_KERNEL(k_pow_float_int, pow((float)x, 2))
DOUBLE_KERNEL(k_exp_of_int, exp((int)(x > -700.0 && x < 700.0 ? x : 0.0)))

// ---- host references: double (long double) functions, the error in ulps of the result ----
static double ulp_error(double got, long double want, int mantissa, int min_exponent)
{
    if (std::isnan(want) || std::isnan(got))
        return std::isnan(want) && std::isnan(got) ? 0 : 1e9;
    if (std::isinf(got) || std::isinf(want))
        return got == (double)want ? 0 : 1e9;
    int e = want == 0 ? min_exponent : std::ilogb(want);
    if (e < min_exponent)
        e = min_exponent;
    return (double)(std::fabs((long double)got - want) / std::ldexp(1.0L, e - mantissa));
}
static double float_ulps(float got, double want)
{
    float rounded = (float)want;  // a value beyond the float range is an infinity for a float function
    if (std::isinf(rounded) && !std::isinf(want))
        return got == rounded ? 0 : 1e9;
    return ulp_error(got, want, 23, -126);
}
static double double_ulps(double got, long double want) { return ulp_error(got, want, 52, -1022); }

static int failures = 0;

template <class T, class Launch, class Reference, class Error>
static void check(const char *name, Launch launch, const T *xs, const T *ys, Reference reference, Error error,
                  double bound)
{
    static const int blocks[] = {1, 7, 32, 100, 256};
    T *dx, *dy, *dout;
    cudaMalloc(&dx, N * sizeof(T));
    cudaMalloc(&dy, N * sizeof(T));
    cudaMalloc(&dout, N * sizeof(T));
    cudaMemcpy(dx, xs, N * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, ys, N * sizeof(T), cudaMemcpyHostToDevice);
    T *out = (T *)malloc(N * sizeof(T));
    for (int b : blocks) {
        cudaMemset(dout, 0, N * sizeof(T));
        launch((N + b - 1) / b, b, dx, dy, dout);
        cudaMemcpy(out, dout, N * sizeof(T), cudaMemcpyDeviceToHost);
        double worst = 0;
        int at = 0;
        for (int i = 0; i < N; i++) {
            double e = error(out[i], reference(xs[i], ys[i]));
            if (e > worst) {
                worst = e;
                at = i;
            }
        }
        if (worst > bound) {
            printf("FAIL: %s with blocks of %d: %g ulps at x = %a, y = %a: %a (bound %g)\n", name, b, worst,
                   (double)xs[at], (double)ys[at], (double)out[at], bound);
            failures++;
        }
    }
    free(out);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
}

#define LAUNCH(kernel) [](int g, int b, auto *x, auto *y, auto *o) { kernel<<<g, b>>>(x, y, o, N); }
// CUDA's bound (ulps against the correctly rounded value) + 0.5: the error against the exact one.
#define CHECK_FLOAT(kernel, bound, reference) \
    check<float>(#kernel, LAUNCH(kernel), fx, fy, [](float x, float y) -> double { (void)y; return reference; }, float_ulps, bound + 0.5)
#define CHECK_DOUBLE(kernel, bound, reference)                                                     \
    check<double>(#kernel, LAUNCH(kernel), dx, dy,                                                 \
                  [](double x, double y) -> long double { (void)y; return reference; }, double_ulps, bound + 0.5)

// The same composition as the device's, with the host's functions: agreement within `tolerance`
// relative to the value (or absolute, near zero).
static double relative(double got, double want)
{
    if (std::isnan(want) || std::isnan(got))
        return std::isnan(want) && std::isnan(got) ? 0 : 1e9;
    if (std::isinf(got) || std::isinf(want))
        return got == want ? 0 : 1e9;
    return std::fabs(got - want) / std::fmax(1.0, std::fabs(want));
}
static float host_gelu(float x) { return (float)(x * 0.5 * (1.0 + erf(x * 0.70710678118654752))); }
static float host_softplus(float x) { return logf(1.0f + expf(x)); }  // overflowing as the device's

static float bits_float(unsigned int bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int main()
{
    static float fx[N], fy[N];
    static double dx[N], dy[N];
    const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, 2.0f, 1e-45f, -1e-45f,
                              1.17549435e-38f, 3.40282347e38f, -3.40282347e38f, 88.7f, -87.3f, 89.0f, -104.0f,
                              1e-8f, -1e-8f, 0.35f, -0.35f, 3.9f, -3.9f, 1e30f, 39.0f, -39.0f};
    const int nspecial = sizeof specials / sizeof specials[0];
    for (int i = 0; i < N; i++) {
        float x;
        if (i < nspecial)
            x = specials[i];
        else if (i % 3 == 0)
            x = bits_float((unsigned int)i * 85899u * 1009u);  // spread over the bit patterns
        else
            x = -12.0f + 24.0f * (float)i / N;  // where the functions vary most
        fx[i] = x != x ? NAN : x;  // a quiet NaN: the C library's functions differ at signaling ones
        fy[i] = i % 5 == 0 ? specials[i / 5 % nspecial] : -6.0f + 12.0f * (float)((i * 7919) % N) / N;
        dx[i] = i % 3 == 0 ? (double)fx[i] : -12.0 + 24.0 * i / N + 1e-9 * i;
        dy[i] = i % 5 == 0 ? (double)fy[i] : -6.0 + 12.0 * ((i * 7919) % N) / N + 3e-10 * i;
    }

    CHECK_FLOAT(k_erff, 2, erf((double)x));
    CHECK_FLOAT(k_erf_overload, 2, erf((double)x));
    CHECK_FLOAT(k_std_exp, 2, exp((double)x));
    CHECK_FLOAT(k_global_log, 1, log((double)x));
    CHECK_FLOAT(k_expf, 2, exp((double)x));
    CHECK_FLOAT(k_exp2f, 2, exp2((double)x));
    CHECK_FLOAT(k_exp10f, 2, exp10((double)x));
    CHECK_FLOAT(k_expm1f, 1, expm1((double)x));
    CHECK_FLOAT(k_logf, 1, log((double)x));
    CHECK_FLOAT(k_log2f, 1, log2((double)x));
    CHECK_FLOAT(k_log10f, 2, log10((double)x));
    CHECK_FLOAT(k_log1pf, 1, log1p((double)x));
    CHECK_FLOAT(k_sinf, 2, sin((double)x));
    CHECK_FLOAT(k_cosf, 2, cos((double)x));
    CHECK_FLOAT(k_tanf, 4, tan((double)x));
    CHECK_FLOAT(k_asinf, 4, asin((double)x));
    CHECK_FLOAT(k_acosf, 3, acos((double)x));
    CHECK_FLOAT(k_atanf, 2, atan((double)x));
    CHECK_FLOAT(k_sinhf, 3, sinh((double)x));
    CHECK_FLOAT(k_coshf, 2, cosh((double)x));
    CHECK_FLOAT(k_tanhf, 2, tanh((double)x));
    CHECK_FLOAT(k_asinhf, 3, asinh((double)x));
    CHECK_FLOAT(k_acoshf, 4, acosh((double)x));
    CHECK_FLOAT(k_atanhf, 3, atanh((double)x));
    CHECK_FLOAT(k_erfcf, 4, erfc((double)x));
    CHECK_FLOAT(k_cbrtf, 1, cbrt((double)x));
    CHECK_FLOAT(k_powf, 8, pow((double)x, (double)y));
    CHECK_FLOAT(k_atan2f, 3, atan2((double)x, (double)y));
    CHECK_FLOAT(k_hypotf, 3, hypot((double)x, (double)y));
    // __expf: CUDA's bound is 2 + floor(|1.16 x|) ulps; the accurate value is within 2.
    CHECK_FLOAT(k_fast_expf, 2, exp((double)x));
    CHECK_DOUBLE(k_exp, 1, expl(x));
    CHECK_DOUBLE(k_log, 1, logl(x));
    CHECK_DOUBLE(k_sin, 1, sinl(x));
    CHECK_DOUBLE(k_cos, 1, cosl(x));
    CHECK_DOUBLE(k_erf, 2, erfl(x));
    CHECK_DOUBLE(k_erfc, 4, erfcl(x));
    CHECK_DOUBLE(k_atan, 2, atanl(x));
    CHECK_DOUBLE(k_asinh, 2, asinhl(x));
    CHECK_DOUBLE(k_acosh, 2, acoshl(x));
    CHECK_DOUBLE(k_atanh, 2, atanhl(x));
    CHECK_DOUBLE(k_log10, 2, log10l(x));  // glibc's log10 (2 ulps; CUDA's is 1): its variants are no better
    CHECK_DOUBLE(k_pow, 2, powl(x, y));
    CHECK_DOUBLE(k_atan2, 2, atan2l(x, y));
    CHECK_DOUBLE(k_hypot, 2, hypotl(x, y));
    // A double result from a float argument: exp10 of the float (glibc's exp10 is within 2 ulps).
    CHECK_DOUBLE(k_exp10_of_float, 2, exp10l((float)x));
    CHECK_DOUBLE(k_pow_float_int, 0, (double)(float)x * (double)(float)x);
    CHECK_DOUBLE(k_exp_of_int, 1, expl((int)(x > -700.0 && x < 700.0 ? x : 0.0)));

    // Compositions in __device__ helpers kept as written, against the host's.
    check<float>("k_gelu", LAUNCH(k_gelu), fx, fy, [](float x, float) -> double { return host_gelu(x); }, relative,
                 1e-6);
    check<double>("k_gelu_double", LAUNCH(k_gelu_double), dx, dy,
                  [](double x, double) -> long double { return x * 0.5 * (1.0 + erf(x * 0.70710678118654752)); },
                  [](double got, long double want) { return relative(got, (double)want); }, 1e-15);
    check<float>("k_softplus", LAUNCH(k_softplus), fx, fy, [](float x, float) -> double { return host_softplus(x); },
                 relative, 1e-6);
    check<float>("k_logistic", LAUNCH(k_logistic), fx, fy, [](float x, float) -> double { return 1.0 / (1.0 + exp(-(double)x)); },
                 relative, 1e-6);

    // The host's loop over erff (which gcc may vectorize) gives glibc's scalar erff bit for bit.
    static float host[N];
    for (int i = 0; i < N; i++)
        host[i] = erff(fx[i]) + logistic(fx[i]);
    float (*volatile scalar_erff)(float) = erff;
    for (int i = 0; i < N; i++) {
        float want = scalar_erff(fx[i]) + 1.0f / (1.0f + expf(-fx[i]));
        if (memcmp(&host[i], &want, sizeof want) != 0 && !(host[i] != host[i] && want != want)) {
            printf("FAIL: the host's erff(%a) = %a, glibc's scalar erff %a\n", fx[i], host[i], want);
            failures++;
            break;
        }
    }

    if (failures == 0)
        printf("PASS\n");
    return failures != 0;
}
