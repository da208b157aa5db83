/* MocCUDA: CUDA's device math that the C library lacks, for kernels compiled as host code.
 *
 * Each function is `inline __host__ __device__`: an ordinary inline function in compile mode, and
 * callable from device code in parse mode.  The "fast" intrinsics (__expf, __sinf, ...) compute
 * the accurate result, which CUDA's error bounds allow; the _rn arithmetic intrinsics assume the
 * default rounding mode (to nearest even), which is the one in effect; the _rz, _ru and _rd ones
 * switch the mode around the one operation.
 */
#ifndef MOCCUDA_CUDA2CPU_MATH_H
#define MOCCUDA_CUDA2CPU_MATH_H
#ifdef __cplusplus

#include <fenv.h>
#include <math.h>

#include <cmath>
#include <limits>

#include "host_defines.h"

#define MOCCUDA_HD inline __host__ __device__

#include "cuda2cpu_device_math.h"

/* ---- fast single-precision intrinsics ----
 * glibc declares these names as extern "C" functions but does not define them, so compile mode
 * defines them with a matching declaration.  Parse mode declares them in cuda2cpu_libdevice.h.
 * They are device code's only (CUDA has no host versions): they compute through
 * moccuda::device_math, which SIMD thread loops vectorize. */
#ifndef __CUDA2CPU_PARSE__
extern "C" {
inline float __expf(float x) noexcept { return moccuda::device_math::expf(x); }
inline float __exp10f(float x) noexcept { return moccuda::device_math::exp10f(x); }
inline float __logf(float x) noexcept { return moccuda::device_math::logf(x); }
inline float __log2f(float x) noexcept { return moccuda::device_math::log2f(x); }
inline float __log10f(float x) noexcept { return moccuda::device_math::log10f(x); }
inline float __sinf(float x) noexcept { return moccuda::device_math::sinf(x); }
inline float __cosf(float x) noexcept { return moccuda::device_math::cosf(x); }
inline float __tanf(float x) noexcept { return moccuda::device_math::tanf(x); }
/* 2 to an integer power (__powf(2, i), the idiom of Rodinia's backprop, per thread in a loop) is
 * exact: built from its exponent bits, the value powf gives, without a call that stops the thread
 * loop from vectorizing.  Every other argument goes to powf. */
inline float __powf(float x, float y) noexcept
{
    if (x == 2.0f && y >= -126.0f && y <= 127.0f && y == (float)(int)y) {
        unsigned int bits = (unsigned int)((int)y + 127) << 23;
        float power;
        __builtin_memcpy(&power, &bits, sizeof power);
        return power;
    }
    return moccuda::device_math::powf(x, y);
}
inline void __sincosf(float x, float *s, float *c) noexcept { sincosf(x, s, c); }
}
#endif

namespace moccuda {
namespace detail {

/* The bits of one type reinterpreted as another of the same size. */
template <class To, class From>
MOCCUDA_HD To bit_cast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
    To to;
    __builtin_memcpy(&to, &from, sizeof to);
    return to;
}

/* A rounded floating-point value converted to an integer type as CUDA does: NaN gives 0, values
 * beyond the type's range give its minimum or maximum. */
template <class I>
MOCCUDA_HD I saturate(double rounded, I lowest, I highest)
{
    if (rounded != rounded)
        return 0;
    if (rounded <= (double)lowest)
        return lowest;
    if (rounded >= (double)highest)
        return highest;
    return (I)rounded;
}

constexpr double pi = 3.141592653589793238462643383279502884;
constexpr double two_over_sqrt_pi = 1.128379167095512573896158903121545172;

/* sin(pi x) and cos(pi x) with the argument reduced exactly, so integers and half-integers give
 * exact zeros and ones. */
MOCCUDA_HD double sinpi(double x)
{
    if (!isfinite(x))
        return x - x;
    double r = remainder(x, 2.0); /* exact, in [-1, 1] */
    double a = fabs(r), s;
    if (a <= 0.25)
        s = sin(pi * a);
    else if (a <= 0.75)
        s = cos(pi * (a - 0.5));
    else
        s = sin(pi * (1.0 - a));
    return copysign(s, r);
}

MOCCUDA_HD double cospi(double x)
{
    if (!isfinite(x))
        return x - x;
    double a = fabs(remainder(x, 2.0));
    if (a <= 0.25)
        return cos(pi * a);
    if (a <= 0.75)
        return sin(pi * (0.5 - a));
    return -cos(pi * (1.0 - a));
}

/* An estimate of t with erf(t) = x, given log((1 - x)(1 + x)) (Winitzki's closed form, within
 * about 2e-3), for Newton's method to polish. */
MOCCUDA_HD double erfinv_estimate(double log_one_minus_x2)
{
    const double a = 0.147;
    double b = 2.0 / (pi * a) + 0.5 * log_one_minus_x2;
    return sqrt(sqrt(b * b - log_one_minus_x2 / a) - b);
}

/* t with erf(t) = x, for |x| <= 0.5: Newton's method on erf, which is well conditioned there. */
MOCCUDA_HD double erfinv_central(double x)
{
    double t = copysign(erfinv_estimate(log((1.0 - x) * (1.0 + x))), x);
    for (int i = 0; i < 4; ++i)
        t -= (erf(t) - x) / (two_over_sqrt_pi * exp(-t * t));
    return t;
}

/* t > 0 with erfc(t) = y, for 0 < y < 0.5: Newton's method on log(erfc(t)), which is nearly
 * quadratic in t, so that the far tail (y down to the smallest double) converges too. */
MOCCUDA_HD double erfcinv_tail(double y)
{
    double t = erfinv_estimate(log(y * (2.0 - y))), log_y = log(y);
    for (int i = 0; i < 8; ++i) {
        double e = erfc(t);
        if (!(e > 0.0))
            break;
        double step = (log(e) - log_y) * e / (two_over_sqrt_pi * exp(-t * t));
        t += step;
        if (fabs(step) <= 1e-16 * t)
            break;
    }
    return t;
}

/* Near +-1 the argument's distance from 1 (exact there) carries the precision, so those go
 * through erfc. */
MOCCUDA_HD double erfinv(double x)
{
    if (!(x > -1.0 && x < 1.0))
        return x == 1.0 ? HUGE_VAL : x == -1.0 ? -HUGE_VAL : NAN;
    if (fabs(x) <= 0.5)
        return erfinv_central(x);
    return copysign(erfcinv_tail(1.0 - fabs(x)), x);
}

MOCCUDA_HD double erfcinv(double y)
{
    if (!(y > 0.0 && y < 2.0))
        return y == 0.0 ? HUGE_VAL : y == 2.0 ? -HUGE_VAL : NAN;
    if (y < 0.5)
        return erfcinv_tail(y);
    if (y > 1.5)
        return -erfcinv_tail(2.0 - y);
    return erfinv_central(1.0 - y);
}

/* exp(x^2) erfc(x).  For large x, where exp(x^2) overflows (and loses digits before that), the
 * asymptotic series 1/(x sqrt(pi)) * sum_n (-1)^n (2n-1)!! / (2x^2)^n, whose terms shrink fast
 * there; otherwise the definition, with x^2 split exactly into x2 + err. */
MOCCUDA_HD double erfcx(double x)
{
    if (x >= 10.0) {
        double sum = 1.0, term = 1.0, inv = 1.0 / (2.0 * x * x);
        for (int n = 1; n <= 16 && fabs(term) > 1e-17; ++n) {
            term *= -(2 * n - 1) * inv;
            sum += term;
        }
        return sum / (x * 1.772453850905516027298);
    }
    double x2 = x * x, err = fma(x, x, -x2);
    return exp(x2) * (1.0 + err) * erfc(x);
}

}  // namespace detail
}  // namespace moccuda

/* ---- single-precision arithmetic with a named rounding mode ---- */
MOCCUDA_HD float __fdividef(float x, float y) { return x / y; }
MOCCUDA_HD float fdividef(float x, float y) { return x / y; }
MOCCUDA_HD float __fadd_rn(float x, float y) { return x + y; }
MOCCUDA_HD float __fsub_rn(float x, float y) { return x - y; }
MOCCUDA_HD float __fmul_rn(float x, float y) { return x * y; }
MOCCUDA_HD float __fdiv_rn(float x, float y) { return x / y; }
MOCCUDA_HD float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
MOCCUDA_HD float __frcp_rn(float x) { return 1.0f / x; }
MOCCUDA_HD float __fsqrt_rn(float x) { return sqrtf(x); }
MOCCUDA_HD float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
MOCCUDA_HD double __dadd_rn(double x, double y) { return x + y; }
MOCCUDA_HD double __dsub_rn(double x, double y) { return x - y; }
MOCCUDA_HD double __dmul_rn(double x, double y) { return x * y; }
MOCCUDA_HD double __ddiv_rn(double x, double y) { return x / y; }
MOCCUDA_HD double __fma_rn(double x, double y, double z) { return fma(x, y, z); }
MOCCUDA_HD double __drcp_rn(double x) { return 1.0 / x; }
MOCCUDA_HD double __dsqrt_rn(double x) { return sqrt(x); }
MOCCUDA_HD float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); } /* NaN -> 0 */

/* ---- the same with the other rounding modes: rz toward zero, ru up, rd down ----
 * Addition, subtraction, multiplication, division, reciprocal and square root: the result rounded
 * to nearest, moved one step in the mode's direction when the exact result lies that way, which
 * the operation's exact error says (Knuth's two-sum; for the others, fma gives the exact remainder).
 * That needs no change of the rounding mode, which cost about a hundred times the operation
 * (cuda-samples' interval spent 87% of its time in fesetround).  Where the error may not be exact
 * (results near the underflow threshold, overflow) and for the other operations, the CPU computes
 * under that rounding mode (per thread, as the GPU's is per instruction), the operands and the result
 * passing through volatile objects so that the compiler can neither fold the operation at compile
 * time nor move it out of the region where the mode is in effect. */
namespace moccuda {
namespace detail {
template <class T, class Operation>
MOCCUDA_HD T rounded(int mode, Operation operation)
{
    int saved = fegetround();
    fesetround(mode);
    volatile T result = operation();
    fesetround(saved);
    return result;
}

/* The smallest magnitude at which the exact error of a product, quotient or square root rounded
 * to nearest is itself a number of the type: 2^(emin + 2p), with room to spare. */
template <class T>
struct exact_error_threshold;
/* 2^-76 and 2^-914, written in decimal (exactly those powers once rounded): hexadecimal floating
 * literals are C++17, and the header compiles as C++11 and C++14 too. */
template <>
struct exact_error_threshold<float> {
    static constexpr float value = 1.3234889800848443e-23f;
};
template <>
struct exact_error_threshold<double> {
    static constexpr double value = 7.220777503459318e-276;
};

MOCCUDA_HD float fused(float a, float b, float c) { return fmaf(a, b, c); }
MOCCUDA_HD double fused(double a, double b, double c) { return fma(a, b, c); }

/* r, an exact result x rounded to nearest, rounded in `mode` instead: `error` has the sign of x - r. */
template <class T>
MOCCUDA_HD T from_nearest(int mode, T r, T error)
{
    if (!(error != 0))
        return r;
    bool up = error > 0;
    if (mode == FE_UPWARD)
        return up ? nextafter(r, (T)INFINITY) : r;
    if (mode == FE_DOWNWARD)
        return up ? r : nextafter(r, -(T)INFINITY);
    return (r > 0) != up ? nextafter(r, (T)0) : r;  /* toward zero */
}

template <class T>
MOCCUDA_HD bool safe_for_error(T v)
{
    return fabs(v) >= exact_error_threshold<T>::value && fabs(v) <= std::numeric_limits<T>::max();
}

template <class T>
MOCCUDA_HD T add_rounded(int mode, T a, T b)
{
    T s = a + b;
    if (!std::isfinite(a) || !std::isfinite(b))
        return s;
    T b_part = s - a, error = (a - (s - b_part)) + (b - b_part);
    if (s == 0 || !std::isfinite(s) || !std::isfinite(error))  /* the sign of a zero sum is the mode's; overflow */
        return rounded<T>(mode, [=] { volatile T x = a, y = b; return x + y; });
    return from_nearest(mode, s, error);
}

template <class T>
MOCCUDA_HD T mul_rounded(int mode, T a, T b)
{
    T p = a * b;
    if (!safe_for_error(p))
        return p == 0 && (a == 0 || b == 0) ? p : rounded<T>(mode, [=] { volatile T x = a, y = b; return x * y; });
    return from_nearest(mode, p, fused(a, b, -p));
}

template <class T>
MOCCUDA_HD T div_rounded(int mode, T a, T b)
{
    T q = a / b;
    if (!safe_for_error(q) || !safe_for_error(a) || !safe_for_error(b))
        return rounded<T>(mode, [=] { volatile T x = a, y = b; return x / y; });
    T remainder = fused(-q, b, a);  /* a - q b, exactly: the error of q times b */
    return from_nearest(mode, q, b > 0 ? remainder : -remainder);
}

template <class T>
MOCCUDA_HD T sqrt_rounded(int mode, T a)
{
    T r = sqrt(a);
    if (!safe_for_error(a))
        return rounded<T>(mode, [=] { volatile T x = a; return sqrt(x); });
    return from_nearest(mode, r, fused(-r, r, a));
}
}  // namespace detail
}  // namespace moccuda
#define MOCCUDA_ROUNDED_1(R, NAME, T, EXPR, SUFFIX, MODE)                                           \
    MOCCUDA_HD R NAME##_##SUFFIX(T x)                                                               \
    {                                                                                               \
        return moccuda::detail::rounded<R>(MODE, [=] { volatile T a = x; return EXPR; });           \
    }
#define MOCCUDA_ROUNDED_2(R, NAME, T, EXPR, SUFFIX, MODE)                                           \
    MOCCUDA_HD R NAME##_##SUFFIX(T x, T y)                                                          \
    {                                                                                               \
        return moccuda::detail::rounded<R>(MODE, [=] { volatile T a = x, b = y; return EXPR; });    \
    }
#define MOCCUDA_ROUNDED_3(R, NAME, T, EXPR, SUFFIX, MODE)                                           \
    MOCCUDA_HD R NAME##_##SUFFIX(T x, T y, T z)                                                     \
    {                                                                                               \
        return moccuda::detail::rounded<R>(MODE, [=] { volatile T a = x, b = y, c = z; return EXPR; }); \
    }
#define MOCCUDA_ROUNDED_FAST(R, NAME, CALL, SUFFIX, MODE, ...)                                       \
    MOCCUDA_HD R NAME##_##SUFFIX(__VA_ARGS__) { return moccuda::detail::CALL; }
#define MOCCUDA_ROUNDED_MODES(SUFFIX, MODE)                                                         \
    MOCCUDA_ROUNDED_FAST(float, __fadd, add_rounded<float>(MODE, x, y), SUFFIX, MODE, float x, float y) \
    MOCCUDA_ROUNDED_FAST(float, __fsub, add_rounded<float>(MODE, x, -y), SUFFIX, MODE, float x, float y) \
    MOCCUDA_ROUNDED_FAST(float, __fmul, mul_rounded<float>(MODE, x, y), SUFFIX, MODE, float x, float y) \
    MOCCUDA_ROUNDED_FAST(float, __fdiv, div_rounded<float>(MODE, x, y), SUFFIX, MODE, float x, float y) \
    MOCCUDA_ROUNDED_3(float, __fmaf, float, fmaf(a, b, c), SUFFIX, MODE)                            \
    MOCCUDA_ROUNDED_FAST(float, __frcp, div_rounded<float>(MODE, 1.0f, x), SUFFIX, MODE, float x)     \
    MOCCUDA_ROUNDED_FAST(float, __fsqrt, sqrt_rounded<float>(MODE, x), SUFFIX, MODE, float x)         \
    MOCCUDA_ROUNDED_FAST(double, __dadd, add_rounded<double>(MODE, x, y), SUFFIX, MODE, double x, double y) \
    MOCCUDA_ROUNDED_FAST(double, __dsub, add_rounded<double>(MODE, x, -y), SUFFIX, MODE, double x, double y) \
    MOCCUDA_ROUNDED_FAST(double, __dmul, mul_rounded<double>(MODE, x, y), SUFFIX, MODE, double x, double y) \
    MOCCUDA_ROUNDED_FAST(double, __ddiv, div_rounded<double>(MODE, x, y), SUFFIX, MODE, double x, double y) \
    MOCCUDA_ROUNDED_3(double, __fma, double, fma(a, b, c), SUFFIX, MODE)                            \
    MOCCUDA_ROUNDED_FAST(double, __drcp, div_rounded<double>(MODE, 1.0, x), SUFFIX, MODE, double x)   \
    MOCCUDA_ROUNDED_FAST(double, __dsqrt, sqrt_rounded<double>(MODE, x), SUFFIX, MODE, double x)      \
    MOCCUDA_ROUNDED_1(float, __int2float, int, (float)a, SUFFIX, MODE)                              \
    MOCCUDA_ROUNDED_1(float, __uint2float, unsigned int, (float)a, SUFFIX, MODE)                    \
    MOCCUDA_ROUNDED_1(float, __ll2float, long long, (float)a, SUFFIX, MODE)                         \
    MOCCUDA_ROUNDED_1(float, __ull2float, unsigned long long, (float)a, SUFFIX, MODE)               \
    MOCCUDA_ROUNDED_1(double, __ll2double, long long, (double)a, SUFFIX, MODE)                      \
    MOCCUDA_ROUNDED_1(double, __ull2double, unsigned long long, (double)a, SUFFIX, MODE)            \
    MOCCUDA_ROUNDED_1(float, __double2float, double, (float)a, SUFFIX, MODE)
MOCCUDA_ROUNDED_MODES(rz, FE_TOWARDZERO)
MOCCUDA_ROUNDED_MODES(ru, FE_UPWARD)
MOCCUDA_ROUNDED_MODES(rd, FE_DOWNWARD)
#undef MOCCUDA_ROUNDED_MODES
#undef MOCCUDA_ROUNDED_1
#undef MOCCUDA_ROUNDED_2
#undef MOCCUDA_ROUNDED_3
#undef MOCCUDA_ROUNDED_FAST

/* ---- CUDA's math functions beyond C's ---- */
MOCCUDA_HD float rsqrtf(float x) { return 1.0f / sqrtf(x); }
MOCCUDA_HD double rsqrt(double x) { return 1.0 / sqrt(x); }
MOCCUDA_HD float rcbrtf(float x) { return 1.0f / cbrtf(x); }
MOCCUDA_HD double rcbrt(double x) { return 1.0 / cbrt(x); }
MOCCUDA_HD float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
MOCCUDA_HD double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
MOCCUDA_HD double sinpi(double x) { return moccuda::detail::sinpi(x); }
MOCCUDA_HD float sinpif(float x) { return (float)moccuda::detail::sinpi(x); }
MOCCUDA_HD double cospi(double x) { return moccuda::detail::cospi(x); }
MOCCUDA_HD float cospif(float x) { return (float)moccuda::detail::cospi(x); }
MOCCUDA_HD void sincospi(double x, double *s, double *c)
{
    *s = moccuda::detail::sinpi(x);
    *c = moccuda::detail::cospi(x);
}
MOCCUDA_HD void sincospif(float x, float *s, float *c)
{
    *s = (float)moccuda::detail::sinpi(x);
    *c = (float)moccuda::detail::cospi(x);
}
/* Euclidean norms, through hypot so that no intermediate square overflows or underflows. */
MOCCUDA_HD double norm3d(double a, double b, double c) { return hypot(hypot(a, b), c); }
MOCCUDA_HD float norm3df(float a, float b, float c) { return (float)norm3d(a, b, c); }
MOCCUDA_HD double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
MOCCUDA_HD float rnorm3df(float a, float b, float c) { return (float)(1.0 / norm3d(a, b, c)); }
MOCCUDA_HD double norm4d(double a, double b, double c, double d) { return hypot(hypot(a, b), hypot(c, d)); }
MOCCUDA_HD float norm4df(float a, float b, float c, float d) { return (float)norm4d(a, b, c, d); }
MOCCUDA_HD double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
MOCCUDA_HD float rnorm4df(float a, float b, float c, float d) { return (float)(1.0 / norm4d(a, b, c, d)); }
MOCCUDA_HD double norm(int dim, const double *p)
{
    double r = 0.0;
    for (int i = 0; i < dim; ++i)
        r = hypot(r, p[i]);
    return r;
}
MOCCUDA_HD float normf(int dim, const float *p)
{
    double r = 0.0;
    for (int i = 0; i < dim; ++i)
        r = hypot(r, (double)p[i]);
    return (float)r;
}
MOCCUDA_HD double rnorm(int dim, const double *p) { return 1.0 / norm(dim, p); }
MOCCUDA_HD float rnormf(int dim, const float *p) { return 1.0f / normf(dim, p); }
MOCCUDA_HD double normcdf(double x) { return 0.5 * erfc(-x * 0.707106781186547524400844362104849039); }
MOCCUDA_HD float normcdff(float x) { return (float)normcdf(x); }
MOCCUDA_HD double erfinv(double x) { return moccuda::detail::erfinv(x); }
MOCCUDA_HD float erfinvf(float x) { return (float)moccuda::detail::erfinv(x); }
MOCCUDA_HD double erfcinv(double y) { return moccuda::detail::erfcinv(y); }
MOCCUDA_HD float erfcinvf(float y) { return (float)moccuda::detail::erfcinv(y); }
MOCCUDA_HD double normcdfinv(double p) { return -1.414213562373095048801688724209698079 * moccuda::detail::erfcinv(2.0 * p); }
MOCCUDA_HD float normcdfinvf(float p) { return (float)normcdfinv(p); }
MOCCUDA_HD double erfcx(double x) { return moccuda::detail::erfcx(x); }
MOCCUDA_HD float erfcxf(float x) { return (float)moccuda::detail::erfcx(x); }

/* ---- reinterpretation of bits ---- */
MOCCUDA_HD float __int_as_float(int v) { return moccuda::detail::bit_cast<float>(v); }
MOCCUDA_HD int __float_as_int(float f) { return moccuda::detail::bit_cast<int>(f); }
MOCCUDA_HD float __uint_as_float(unsigned int v) { return moccuda::detail::bit_cast<float>(v); }
MOCCUDA_HD unsigned int __float_as_uint(float f) { return moccuda::detail::bit_cast<unsigned int>(f); }
MOCCUDA_HD double __longlong_as_double(long long v) { return moccuda::detail::bit_cast<double>(v); }
MOCCUDA_HD long long __double_as_longlong(double d) { return moccuda::detail::bit_cast<long long>(d); }
MOCCUDA_HD int __double2hiint(double d) { return (int)(__double_as_longlong(d) >> 32); }
MOCCUDA_HD int __double2loint(double d) { return (int)(unsigned int)__double_as_longlong(d); }
MOCCUDA_HD double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double((long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo));
}

/* ---- conversions: rn = to nearest even, rz = toward zero, ru = up, rd = down; saturating ---- */
#define MOCCUDA_CONVERSIONS(FROM, NAME, TO, LOWEST, HIGHEST)                                          \
    MOCCUDA_HD TO __##NAME##_rn(FROM x) { return moccuda::detail::saturate<TO>(nearbyint((double)x), LOWEST, HIGHEST); } \
    MOCCUDA_HD TO __##NAME##_rz(FROM x) { return moccuda::detail::saturate<TO>(trunc((double)x), LOWEST, HIGHEST); } \
    MOCCUDA_HD TO __##NAME##_ru(FROM x) { return moccuda::detail::saturate<TO>(ceil((double)x), LOWEST, HIGHEST); } \
    MOCCUDA_HD TO __##NAME##_rd(FROM x) { return moccuda::detail::saturate<TO>(floor((double)x), LOWEST, HIGHEST); }
/* The compilers' predefined limits, since <limits.h> is not always usable in parse mode. */
#define MOCCUDA_INT_MAX __INT_MAX__
#define MOCCUDA_INT_MIN (-__INT_MAX__ - 1)
#define MOCCUDA_UINT_MAX (__INT_MAX__ * 2u + 1u)
#define MOCCUDA_LLONG_MAX __LONG_LONG_MAX__
#define MOCCUDA_LLONG_MIN (-__LONG_LONG_MAX__ - 1ll)
#define MOCCUDA_ULLONG_MAX (__LONG_LONG_MAX__ * 2ull + 1ull)
MOCCUDA_CONVERSIONS(float, float2int, int, MOCCUDA_INT_MIN, MOCCUDA_INT_MAX)
MOCCUDA_CONVERSIONS(float, float2uint, unsigned int, 0u, MOCCUDA_UINT_MAX)
MOCCUDA_CONVERSIONS(float, float2ll, long long, MOCCUDA_LLONG_MIN, MOCCUDA_LLONG_MAX)
MOCCUDA_CONVERSIONS(float, float2ull, unsigned long long, 0ull, MOCCUDA_ULLONG_MAX)
MOCCUDA_CONVERSIONS(double, double2int, int, MOCCUDA_INT_MIN, MOCCUDA_INT_MAX)
MOCCUDA_CONVERSIONS(double, double2uint, unsigned int, 0u, MOCCUDA_UINT_MAX)
MOCCUDA_CONVERSIONS(double, double2ll, long long, MOCCUDA_LLONG_MIN, MOCCUDA_LLONG_MAX)
MOCCUDA_CONVERSIONS(double, double2ull, unsigned long long, 0ull, MOCCUDA_ULLONG_MAX)
#undef MOCCUDA_CONVERSIONS
#undef MOCCUDA_INT_MAX
#undef MOCCUDA_INT_MIN
#undef MOCCUDA_UINT_MAX
#undef MOCCUDA_LLONG_MAX
#undef MOCCUDA_LLONG_MIN
#undef MOCCUDA_ULLONG_MAX
MOCCUDA_HD float __int2float_rn(int x) { return (float)x; }
MOCCUDA_HD float __uint2float_rn(unsigned int x) { return (float)x; }
MOCCUDA_HD float __ll2float_rn(long long x) { return (float)x; }
MOCCUDA_HD float __ull2float_rn(unsigned long long x) { return (float)x; }
MOCCUDA_HD double __int2double_rn(int x) { return (double)x; }
MOCCUDA_HD double __uint2double_rn(unsigned int x) { return (double)x; }
MOCCUDA_HD double __ll2double_rn(long long x) { return (double)x; }
MOCCUDA_HD double __ull2double_rn(unsigned long long x) { return (double)x; }
MOCCUDA_HD float __double2float_rn(double x) { return (float)x; }

/* ---- integer intrinsics ---- */
MOCCUDA_HD int __mul24(int a, int b)
{
    /* The low 24 bits of each operand, sign-extended, multiplied; the low 32 bits kept. */
    long long x = (int)((unsigned int)a << 8) >> 8, y = (int)((unsigned int)b << 8) >> 8;
    return (int)(unsigned int)(x * y);
}
MOCCUDA_HD unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
MOCCUDA_HD int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
MOCCUDA_HD unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a * b) >> 32); }
/* __extension__: 128-bit integers are a GCC and clang extension (-Wpedantic would say so). */
MOCCUDA_HD long long __mul64hi(long long a, long long b) { return __extension__(long long)(((__int128)a * b) >> 64); }
MOCCUDA_HD unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return __extension__(unsigned long long)(((unsigned __int128)a * b) >> 64);
}
MOCCUDA_HD int __popc(unsigned int x) { return __builtin_popcount(x); }
MOCCUDA_HD int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
MOCCUDA_HD int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
MOCCUDA_HD int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
MOCCUDA_HD int __ffs(int x) { return __builtin_ffs(x); }
MOCCUDA_HD int __ffsll(long long x) { return __builtin_ffsll(x); }
MOCCUDA_HD unsigned int __brev(unsigned int x)
{
    /* Swap ever larger groups: adjacent bits, pairs, nibbles, then the bytes. */
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
MOCCUDA_HD unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
MOCCUDA_HD unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    /* Byte i of the result is byte (s >> 4i) & 7 of the 8-byte value y:x. */
    unsigned long long both = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; ++i)
        r |= (unsigned int)((both >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
MOCCUDA_HD unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)((((unsigned long long)hi << 32 | lo) << (shift & 31)) >> 32);
}
MOCCUDA_HD unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)((((unsigned long long)hi << 32 | lo) << (shift < 32 ? shift : 32)) >> 32);
}
MOCCUDA_HD unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)(((unsigned long long)hi << 32 | lo) >> (shift & 31));
}
MOCCUDA_HD unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)(((unsigned long long)hi << 32 | lo) >> (shift < 32 ? shift : 32));
}
MOCCUDA_HD unsigned int __sad(int x, int y, unsigned int z)
{
    return z + (unsigned int)(x > y ? (long long)x - y : (long long)y - x);
}
MOCCUDA_HD unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
MOCCUDA_HD int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
MOCCUDA_HD int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
MOCCUDA_HD unsigned int __uhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y) >> 1); }
MOCCUDA_HD unsigned int __urhadd(unsigned int x, unsigned int y)
{
    return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}

/* ---- min and max: CUDA's overloads in the global namespace (not templates) ----
 * A mixed signed/unsigned pair compares as unsigned, and float with double as double. */
#define MOCCUDA_MIN_MAX(R, A, B)                                                                    \
    MOCCUDA_HD R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                                \
    MOCCUDA_HD R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
MOCCUDA_MIN_MAX(int, int, int)
MOCCUDA_MIN_MAX(unsigned int, unsigned int, unsigned int)
MOCCUDA_MIN_MAX(unsigned int, int, unsigned int)
MOCCUDA_MIN_MAX(unsigned int, unsigned int, int)
MOCCUDA_MIN_MAX(long, long, long)
MOCCUDA_MIN_MAX(unsigned long, unsigned long, unsigned long)
MOCCUDA_MIN_MAX(unsigned long, long, unsigned long)
MOCCUDA_MIN_MAX(unsigned long, unsigned long, long)
MOCCUDA_MIN_MAX(long long, long long, long long)
MOCCUDA_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
MOCCUDA_MIN_MAX(unsigned long long, long long, unsigned long long)
MOCCUDA_MIN_MAX(unsigned long long, unsigned long long, long long)
#undef MOCCUDA_MIN_MAX
/* Floating point as fmin/fmax: a NaN operand yields the other operand. */
MOCCUDA_HD float min(float a, float b) { return fminf(a, b); }
MOCCUDA_HD float max(float a, float b) { return fmaxf(a, b); }
MOCCUDA_HD double min(double a, double b) { return fmin(a, b); }
MOCCUDA_HD double max(double a, double b) { return fmax(a, b); }
MOCCUDA_HD double min(float a, double b) { return fmin((double)a, b); }
MOCCUDA_HD double max(float a, double b) { return fmax((double)a, b); }
MOCCUDA_HD double min(double a, float b) { return fmin(a, (double)b); }
MOCCUDA_HD double max(double a, float b) { return fmax(a, (double)b); }

/* The integer minimum and maximum named by their type (CUDA's device math API). */
MOCCUDA_HD unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
MOCCUDA_HD unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
MOCCUDA_HD long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
MOCCUDA_HD long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
MOCCUDA_HD unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
MOCCUDA_HD unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }

/* ---- loads and stores with cache hints: plain accesses on the CPU ---- */
template <class T> MOCCUDA_HD T __ldg(const T *p) { return *p; }
template <class T> MOCCUDA_HD T __ldcg(const T *p) { return *p; }
template <class T> MOCCUDA_HD T __ldca(const T *p) { return *p; }
template <class T> MOCCUDA_HD T __ldcs(const T *p) { return *p; }
template <class T> MOCCUDA_HD T __ldlu(const T *p) { return *p; }
template <class T> MOCCUDA_HD T __ldcv(const T *p) { return *p; }
template <class T> MOCCUDA_HD void __stwb(T *p, T v) { *p = v; }
template <class T> MOCCUDA_HD void __stcg(T *p, T v) { *p = v; }
template <class T> MOCCUDA_HD void __stcs(T *p, T v) { *p = v; }
template <class T> MOCCUDA_HD void __stwt(T *p, T v) { *p = v; }

#undef MOCCUDA_HD
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_MATH_H */
