/* MocCUDA: CUDA's 16-bit floating-point types, __half (IEEE binary16) and __nv_bfloat16
 * (bfloat16), with their pairs __half2 and __nv_bfloat162, for cuda_fp16.h and cuda_bf16.h.
 *
 * A value is stored as its 16 bits.  Arithmetic converts to float, computes there and rounds back
 * to nearest even: float has more than twice the precision plus two bits of either type, so the
 * double rounding of +, -, *, / and sqrt gives the correctly rounded 16-bit result, as the GPU's
 * instructions do.  Conversions from double go through float (possible double rounding in the
 * last bit, unlike CUDA's __double2half).
 */
#ifndef MOCCUDA_CUDA2CPU_HALF_H
#define MOCCUDA_CUDA2CPU_HALF_H
#ifdef __cplusplus

#include <math.h>

#include "host_defines.h"
#include "vector_types.h"
#include "cuda2cpu_half_bits.h"

#define MOCCUDA_HD inline __host__ __device__


/* The raw 16 bits, as CUDA names them. */
struct __half_raw {
    unsigned short x;
};
struct __half2_raw {
    unsigned short x, y;
};
struct __nv_bfloat16_raw {
    unsigned short x;
};
struct __nv_bfloat162_raw {
    unsigned short x, y;
};

/* One 16-bit floating-point type: storage, conversions to and from the built-in arithmetic
 * types, and the operators CUDA defines on it. */
#define MOCCUDA_HALF_TYPE(T, RAW, TO_BITS, FROM_BITS)                                               \
    struct __align__(2) T {                                                                         \
        unsigned short __x;                                                                         \
        T() = default;                                                                              \
        __host__ __device__ constexpr T(const RAW &r) : __x(r.x) {}                                 \
        __host__ __device__ T(float f) : __x(TO_BITS(f)) {}                                         \
        __host__ __device__ T(double d) : __x(TO_BITS((float)d)) {}                                 \
        __host__ __device__ T(int i) : __x(TO_BITS((float)i)) {}                                    \
        __host__ __device__ T(unsigned int i) : __x(TO_BITS((float)i)) {}                           \
        __host__ __device__ T(long long i) : __x(TO_BITS((float)i)) {}                              \
        __host__ __device__ T(unsigned long long i) : __x(TO_BITS((float)i)) {}                     \
        __host__ __device__ T(short i) : __x(TO_BITS((float)i)) {}                                  \
        __host__ __device__ T(unsigned short i) : __x(TO_BITS((float)i)) {}                         \
        __host__ __device__ operator float() const { return FROM_BITS(__x); }                       \
        __host__ __device__ operator RAW() const { return RAW{__x}; }                               \
        __host__ __device__ explicit operator bool() const { return (__x & 0x7fffu) != 0; }         \
        __host__ __device__ T &operator=(float f) { __x = TO_BITS(f); return *this; }               \
        __host__ __device__ T &operator=(const RAW &r) { __x = r.x; return *this; }                 \
        __host__ __device__ T &operator+=(const T &o) { return *this = T((float)*this + (float)o); } \
        __host__ __device__ T &operator-=(const T &o) { return *this = T((float)*this - (float)o); } \
        __host__ __device__ T &operator*=(const T &o) { return *this = T((float)*this * (float)o); } \
        __host__ __device__ T &operator/=(const T &o) { return *this = T((float)*this / (float)o); } \
        __host__ __device__ T &operator++() { return *this += T(1.0f); }                            \
        __host__ __device__ T &operator--() { return *this -= T(1.0f); }                            \
        __host__ __device__ T operator++(int) { T old = *this; ++*this; return old; }               \
        __host__ __device__ T operator--(int) { T old = *this; --*this; return old; }               \
    };                                                                                              \
    MOCCUDA_HD T operator+(const T &a, const T &b) { return T((float)a + (float)b); }               \
    MOCCUDA_HD T operator-(const T &a, const T &b) { return T((float)a - (float)b); }               \
    MOCCUDA_HD T operator*(const T &a, const T &b) { return T((float)a * (float)b); }               \
    MOCCUDA_HD T operator/(const T &a, const T &b) { return T((float)a / (float)b); }               \
    MOCCUDA_HD T operator-(const T &a) { return T(RAW{(unsigned short)(a.__x ^ 0x8000u)}); }        \
    MOCCUDA_HD T operator+(const T &a) { return a; }                                                \
    MOCCUDA_HD bool operator==(const T &a, const T &b) { return (float)a == (float)b; }             \
    MOCCUDA_HD bool operator!=(const T &a, const T &b) { return (float)a != (float)b; }             \
    MOCCUDA_HD bool operator<(const T &a, const T &b) { return (float)a < (float)b; }               \
    MOCCUDA_HD bool operator<=(const T &a, const T &b) { return (float)a <= (float)b; }             \
    MOCCUDA_HD bool operator>(const T &a, const T &b) { return (float)a > (float)b; }               \
    MOCCUDA_HD bool operator>=(const T &a, const T &b) { return (float)a >= (float)b; }

/* A pair of one 16-bit type, with CUDA's lane-wise operators. */
#define MOCCUDA_HALF2_TYPE(T2, T, RAW2)                                                             \
    struct __align__(4) T2 {                                                                        \
        T x, y;                                                                                     \
        T2() = default;                                                                             \
        __host__ __device__ T2(const T &a, const T &b) : x(a), y(b) {}                              \
        __host__ __device__ T2(const RAW2 &r) : x(__half_raw_of<T>(r.x)), y(__half_raw_of<T>(r.y)) {} \
        __host__ __device__ operator RAW2() const { return RAW2{x.__x, y.__x}; }                    \
        __host__ __device__ T2 &operator+=(const T2 &o) { x += o.x; y += o.y; return *this; }       \
        __host__ __device__ T2 &operator-=(const T2 &o) { x -= o.x; y -= o.y; return *this; }       \
        __host__ __device__ T2 &operator*=(const T2 &o) { x *= o.x; y *= o.y; return *this; }       \
        __host__ __device__ T2 &operator/=(const T2 &o) { x /= o.x; y /= o.y; return *this; }       \
    };                                                                                              \
    MOCCUDA_HD T2 operator+(const T2 &a, const T2 &b) { return T2(a.x + b.x, a.y + b.y); }         \
    MOCCUDA_HD T2 operator-(const T2 &a, const T2 &b) { return T2(a.x - b.x, a.y - b.y); }         \
    MOCCUDA_HD T2 operator*(const T2 &a, const T2 &b) { return T2(a.x * b.x, a.y * b.y); }         \
    MOCCUDA_HD T2 operator/(const T2 &a, const T2 &b) { return T2(a.x / b.x, a.y / b.y); }         \
    MOCCUDA_HD T2 operator-(const T2 &a) { return T2(-a.x, -a.y); }                                \
    MOCCUDA_HD bool operator==(const T2 &a, const T2 &b) { return a.x == b.x && a.y == b.y; }      \
    MOCCUDA_HD bool operator!=(const T2 &a, const T2 &b) { return a.x != b.x || a.y != b.y; }

/* A 16-bit value from its raw bits, for the pair constructors. */
template <class T>
MOCCUDA_HD T __half_raw_of(unsigned short bits);

MOCCUDA_HALF_TYPE(__half, __half_raw, moccuda::detail::float_to_half_bits, moccuda::detail::half_bits_to_float)
MOCCUDA_HALF_TYPE(__nv_bfloat16, __nv_bfloat16_raw, moccuda::detail::float_to_bfloat16_bits,
                  moccuda::detail::bfloat16_bits_to_float)
template <>
MOCCUDA_HD __half __half_raw_of<__half>(unsigned short bits) { return __half(__half_raw{bits}); }
template <>
MOCCUDA_HD __nv_bfloat16 __half_raw_of<__nv_bfloat16>(unsigned short bits)
{
    return __nv_bfloat16(__nv_bfloat16_raw{bits});
}
MOCCUDA_HALF2_TYPE(__half2, __half, __half2_raw)
MOCCUDA_HALF2_TYPE(__nv_bfloat162, __nv_bfloat16, __nv_bfloat162_raw)
#undef MOCCUDA_HALF_TYPE
#undef MOCCUDA_HALF2_TYPE

typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* The arithmetic and comparison intrinsics shared by both types (__hadd(__half, __half),
 * __hadd(__nv_bfloat16, __nv_bfloat16), ...), and their pair forms (__hadd2, ...). */
#define MOCCUDA_HALF_FUNCTIONS(T, T2)                                                               \
    MOCCUDA_HD T __hadd(T a, T b) { return a + b; }                                                 \
    MOCCUDA_HD T __hsub(T a, T b) { return a - b; }                                                 \
    MOCCUDA_HD T __hmul(T a, T b) { return a * b; }                                                 \
    MOCCUDA_HD T __hdiv(T a, T b) { return a / b; }                                                 \
    MOCCUDA_HD T __hadd_sat(T a, T b) { return T(__saturatef((float)(a + b))); }                    \
    MOCCUDA_HD T __hsub_sat(T a, T b) { return T(__saturatef((float)(a - b))); }                    \
    MOCCUDA_HD T __hmul_sat(T a, T b) { return T(__saturatef((float)(a * b))); }                    \
    /* fused: one rounding of the exact a*b+c, which fmaf gives in float and the final rounding    \
     * keeps (a*b is exact in float) */                                                             \
    MOCCUDA_HD T __hfma(T a, T b, T c) { return T(fmaf((float)a, (float)b, (float)c)); }            \
    MOCCUDA_HD T __hfma_sat(T a, T b, T c) { return T(__saturatef(fmaf((float)a, (float)b, (float)c))); } \
    MOCCUDA_HD T __hneg(T a) { return -a; }                                                         \
    MOCCUDA_HD T __habs(T a) { return __half_raw_of<T>((unsigned short)(a.__x & 0x7fffu)); }        \
    MOCCUDA_HD T __hmax(T a, T b) { return T(fmaxf((float)a, (float)b)); }                          \
    MOCCUDA_HD T __hmin(T a, T b) { return T(fminf((float)a, (float)b)); }                          \
    MOCCUDA_HD bool __heq(T a, T b) { return a == b; }                                              \
    MOCCUDA_HD bool __hne(T a, T b) { return a != b; }                                              \
    MOCCUDA_HD bool __hlt(T a, T b) { return a < b; }                                               \
    MOCCUDA_HD bool __hle(T a, T b) { return a <= b; }                                              \
    MOCCUDA_HD bool __hgt(T a, T b) { return a > b; }                                               \
    MOCCUDA_HD bool __hge(T a, T b) { return a >= b; }                                              \
    MOCCUDA_HD bool __hisnan(T a) { return (float)a != (float)a; }                                  \
    MOCCUDA_HD int __hisinf(T a) { float f = (float)a; return isinf(f) ? (f > 0 ? 1 : -1) : 0; }    \
    MOCCUDA_HD T hsqrt(T a) { return T(sqrtf((float)a)); }                                          \
    MOCCUDA_HD T hrsqrt(T a) { return T(1.0f / sqrtf((float)a)); }                                  \
    MOCCUDA_HD T hrcp(T a) { return T(1.0f / (float)a); }                                           \
    MOCCUDA_HD T hexp(T a) { return T(expf((float)a)); }                                            \
    MOCCUDA_HD T hexp2(T a) { return T(exp2f((float)a)); }                                          \
    MOCCUDA_HD T hexp10(T a) { return T(exp10f((float)a)); }                                        \
    MOCCUDA_HD T hlog(T a) { return T(logf((float)a)); }                                            \
    MOCCUDA_HD T hlog2(T a) { return T(log2f((float)a)); }                                          \
    MOCCUDA_HD T hlog10(T a) { return T(log10f((float)a)); }                                        \
    MOCCUDA_HD T hsin(T a) { return T(sinf((float)a)); }                                            \
    MOCCUDA_HD T hcos(T a) { return T(cosf((float)a)); }                                            \
    MOCCUDA_HD T hfloor(T a) { return T(floorf((float)a)); }                                        \
    MOCCUDA_HD T hceil(T a) { return T(ceilf((float)a)); }                                          \
    MOCCUDA_HD T htrunc(T a) { return T(truncf((float)a)); }                                        \
    MOCCUDA_HD T hrint(T a) { return T(nearbyintf((float)a)); }                                     \
    MOCCUDA_HD T htanh(T a) { return T(tanhf((float)a)); }                                          \
    /* the _approx forms: the correctly rounded value, which is within their error bound */        \
    MOCCUDA_HD T htanh_approx(T a) { return htanh(a); }                                             \
    MOCCUDA_HD T2 __hadd2(T2 a, T2 b) { return a + b; }                                             \
    MOCCUDA_HD T2 __hsub2(T2 a, T2 b) { return a - b; }                                             \
    MOCCUDA_HD T2 __hmul2(T2 a, T2 b) { return a * b; }                                             \
    MOCCUDA_HD T2 __h2div(T2 a, T2 b) { return a / b; }                                             \
    MOCCUDA_HD T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); } \
    MOCCUDA_HD T2 __hneg2(T2 a) { return -a; }                                                      \
    MOCCUDA_HD T2 __habs2(T2 a) { return T2(__habs(a.x), __habs(a.y)); }                            \
    MOCCUDA_HD T2 __hmax2(T2 a, T2 b) { return T2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }            \
    MOCCUDA_HD T2 __hmin2(T2 a, T2 b) { return T2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }            \
    MOCCUDA_HD T __low2half(T2 a) { return a.x; }                                                   \
    MOCCUDA_HD T __high2half(T2 a) { return a.y; }                                                  \
    MOCCUDA_HD T2 __halves2half2(T a, T b) { return T2(a, b); }                                     \
    MOCCUDA_HD T2 __half2half2(T a) { return T2(a, a); }                                            \
    MOCCUDA_HD T2 __lowhigh2highlow(T2 a) { return T2(a.y, a.x); }                                  \
    MOCCUDA_HD float __low2float(T2 a) { return (float)a.x; }                                       \
    MOCCUDA_HD float __high2float(T2 a) { return (float)a.y; }                                      \
    MOCCUDA_HD float2 __half22float2(T2 a) { return make_float2((float)a.x, (float)a.y); }          \
    MOCCUDA_HD T __hadd_rn(T a, T b) { return a + b; }                                              \
    MOCCUDA_HD T __hsub_rn(T a, T b) { return a - b; }                                              \
    MOCCUDA_HD T __hmul_rn(T a, T b) { return a * b; }                                              \
    MOCCUDA_HD T __hmax_nan(T a, T b) { return __hisnan(a) || __hisnan(b) ? T(NAN) : __hmax(a, b); } \
    MOCCUDA_HD T __hmin_nan(T a, T b) { return __hisnan(a) || __hisnan(b) ? T(NAN) : __hmin(a, b); } \
    MOCCUDA_HD T __hfma_relu(T a, T b, T c)                                                         \
    {                                                                                               \
        T r = __hfma(a, b, c);                                                                      \
        return __hisnan(r) ? r : __hmax(r, T(0.0f));                                                \
    }                                                                                               \
    /* Lane-wise comparisons: 1.0 or 0.0 per lane (__heq2 ...), or whether both hold (__hbeq2 ...). */ \
    MOCCUDA_HD T2 __heq2(T2 a, T2 b) { return T2(T(a.x == b.x ? 1.0f : 0.0f), T(a.y == b.y ? 1.0f : 0.0f)); } \
    MOCCUDA_HD T2 __hne2(T2 a, T2 b) { return T2(T(a.x != b.x ? 1.0f : 0.0f), T(a.y != b.y ? 1.0f : 0.0f)); } \
    MOCCUDA_HD T2 __hlt2(T2 a, T2 b) { return T2(T(a.x < b.x ? 1.0f : 0.0f), T(a.y < b.y ? 1.0f : 0.0f)); } \
    MOCCUDA_HD T2 __hle2(T2 a, T2 b) { return T2(T(a.x <= b.x ? 1.0f : 0.0f), T(a.y <= b.y ? 1.0f : 0.0f)); } \
    MOCCUDA_HD T2 __hgt2(T2 a, T2 b) { return T2(T(a.x > b.x ? 1.0f : 0.0f), T(a.y > b.y ? 1.0f : 0.0f)); } \
    MOCCUDA_HD T2 __hge2(T2 a, T2 b) { return T2(T(a.x >= b.x ? 1.0f : 0.0f), T(a.y >= b.y ? 1.0f : 0.0f)); } \
    MOCCUDA_HD T2 __hisnan2(T2 a) { return T2(T(__hisnan(a.x) ? 1.0f : 0.0f), T(__hisnan(a.y) ? 1.0f : 0.0f)); } \
    MOCCUDA_HD bool __hbeq2(T2 a, T2 b) { return a.x == b.x && a.y == b.y; }                        \
    MOCCUDA_HD bool __hbne2(T2 a, T2 b) { return a.x != b.x && a.y != b.y; }                        \
    MOCCUDA_HD bool __hblt2(T2 a, T2 b) { return a.x < b.x && a.y < b.y; }                          \
    MOCCUDA_HD bool __hble2(T2 a, T2 b) { return a.x <= b.x && a.y <= b.y; }                        \
    MOCCUDA_HD bool __hbgt2(T2 a, T2 b) { return a.x > b.x && a.y > b.y; }                          \
    MOCCUDA_HD bool __hbge2(T2 a, T2 b) { return a.x >= b.x && a.y >= b.y; }                        \
    MOCCUDA_HD T2 __hadd2_sat(T2 a, T2 b) { return T2(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)); } \
    MOCCUDA_HD T2 __hmul2_sat(T2 a, T2 b) { return T2(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)); } \
    MOCCUDA_HD T2 h2sqrt(T2 a) { return T2(hsqrt(a.x), hsqrt(a.y)); }                               \
    MOCCUDA_HD T2 h2rsqrt(T2 a) { return T2(hrsqrt(a.x), hrsqrt(a.y)); }                            \
    MOCCUDA_HD T2 h2rcp(T2 a) { return T2(hrcp(a.x), hrcp(a.y)); }                                  \
    MOCCUDA_HD T2 h2exp(T2 a) { return T2(hexp(a.x), hexp(a.y)); }                                  \
    MOCCUDA_HD T2 h2exp2(T2 a) { return T2(hexp2(a.x), hexp2(a.y)); }                               \
    MOCCUDA_HD T2 h2exp10(T2 a) { return T2(hexp10(a.x), hexp10(a.y)); }                            \
    MOCCUDA_HD T2 h2log2(T2 a) { return T2(hlog2(a.x), hlog2(a.y)); }                               \
    MOCCUDA_HD T2 h2log10(T2 a) { return T2(hlog10(a.x), hlog10(a.y)); }                            \
    MOCCUDA_HD T2 h2rint(T2 a) { return T2(hrint(a.x), hrint(a.y)); }                               \
    MOCCUDA_HD T2 h2tanh(T2 a) { return T2(htanh(a.x), htanh(a.y)); }                               \
    MOCCUDA_HD T2 h2tanh_approx(T2 a) { return h2tanh(a); }                                         \
    MOCCUDA_HD T2 h2log(T2 a) { return T2(hlog(a.x), hlog(a.y)); }                                  \
    MOCCUDA_HD T2 h2sin(T2 a) { return T2(hsin(a.x), hsin(a.y)); }                                  \
    MOCCUDA_HD T2 h2cos(T2 a) { return T2(hcos(a.x), hcos(a.y)); }                                  \
    MOCCUDA_HD T2 h2floor(T2 a) { return T2(hfloor(a.x), hfloor(a.y)); }                            \
    MOCCUDA_HD T2 h2ceil(T2 a) { return T2(hceil(a.x), hceil(a.y)); }                               \
    MOCCUDA_HD T2 h2trunc(T2 a) { return T2(htrunc(a.x), htrunc(a.y)); }                            \
    MOCCUDA_HD T atomicAdd(T *p, T v)                                                               \
    {                                                                                               \
        return moccuda::detail::atomic_update(p, [v](T old) { return old + v; });                   \
    }                                                                                               \
    MOCCUDA_HD T2 atomicAdd(T2 *p, T2 v)                                                            \
    {                                                                                               \
        return moccuda::detail::atomic_update(p, [v](T2 old) { return old + v; });                  \
    }

#include "cuda2cpu_math.h"
#include "cuda2cpu_atomic.h"

MOCCUDA_HALF_FUNCTIONS(__half, __half2)
MOCCUDA_HALF_FUNCTIONS(__nv_bfloat16, __nv_bfloat162)
#undef MOCCUDA_HALF_FUNCTIONS

/* ---- conversions, named as CUDA names them ---- */
MOCCUDA_HD __half __float2half(float f) { return __half(f); }
MOCCUDA_HD __half __float2half_rn(float f) { return __half(f); }
MOCCUDA_HD __half __double2half(double d) { return __half(d); }
MOCCUDA_HD float __half2float(__half h) { return (float)h; }
MOCCUDA_HD __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
MOCCUDA_HD __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
MOCCUDA_HD __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
MOCCUDA_HD __half2 make_half2(__half a, __half b) { return __half2(a, b); }
MOCCUDA_HD __half __int2half_rn(int i) { return __half(i); }
MOCCUDA_HD __half __uint2half_rn(unsigned int i) { return __half(i); }
MOCCUDA_HD int __half2int_rn(__half h) { return __float2int_rn((float)h); }
MOCCUDA_HD int __half2int_rz(__half h) { return __float2int_rz((float)h); }
MOCCUDA_HD int __half2int_rd(__half h) { return __float2int_rd((float)h); }
MOCCUDA_HD int __half2int_ru(__half h) { return __float2int_ru((float)h); }
MOCCUDA_HD unsigned int __half2uint_rn(__half h) { return __float2uint_rn((float)h); }
MOCCUDA_HD short __half_as_short(__half h) { return (short)h.__x; }
MOCCUDA_HD unsigned short __half_as_ushort(__half h) { return h.__x; }
MOCCUDA_HD __half __short_as_half(short s) { return __half(__half_raw{(unsigned short)s}); }
MOCCUDA_HD __half __ushort_as_half(unsigned short s) { return __half(__half_raw{s}); }
MOCCUDA_HD __half __short2half_rn(short i) { return __half(i); }
MOCCUDA_HD __half __ushort2half_rn(unsigned short i) { return __half(i); }
MOCCUDA_HD __half __ll2half_rn(long long i) { return __half(i); }
MOCCUDA_HD short __half2short_rn(__half h) { return (short)__float2int_rn((float)h); } /* |h| < 65520 */
MOCCUDA_HD long long __half2ll_rn(__half h) { return __float2ll_rn((float)h); }
/* float -> half in the other rounding modes: the nearest half on the required side. */
MOCCUDA_HD __half __float2half_rz(float f)
{
    __half h(f);
    float back = (float)h;
    if (!(fabsf(back) > fabsf(f)))
        return h; /* exact, toward zero already, or NaN */
    return __half(__half_raw{(unsigned short)(h.__x - 1)}); /* one step toward zero (also from inf) */
}
MOCCUDA_HD __half __float2half_rd(float f)
{
    __half h(f);
    if (!((float)h > f))
        return h;
    return f < 0 || h.__x == 0 ? __half(__half_raw{(unsigned short)(h.__x == 0 ? 0x8001u : h.__x + 1)})
                               : __half(__half_raw{(unsigned short)(h.__x - 1)});
}
MOCCUDA_HD __half __float2half_ru(float f)
{
    __half h(f);
    if (!((float)h < f))
        return h;
    return f > 0 || h.__x == 0x8000u ? __half(__half_raw{(unsigned short)(h.__x == 0x8000u ? 0x0001u : h.__x + 1)})
                                     : __half(__half_raw{(unsigned short)(h.__x - 1)});
}

MOCCUDA_HD __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
MOCCUDA_HD __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
MOCCUDA_HD __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
MOCCUDA_HD float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
MOCCUDA_HD __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162(__nv_bfloat16(f), __nv_bfloat16(f)); }
MOCCUDA_HD __nv_bfloat162 __floats2bfloat162_rn(float a, float b)
{
    return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b));
}
MOCCUDA_HD __nv_bfloat162 __float22bfloat162_rn(float2 f)
{
    return __nv_bfloat162(__nv_bfloat16(f.x), __nv_bfloat16(f.y));
}
MOCCUDA_HD __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
MOCCUDA_HD __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16(i); }
MOCCUDA_HD int __bfloat162int_rn(__nv_bfloat16 b) { return __float2int_rn((float)b); }
MOCCUDA_HD int __bfloat162int_rz(__nv_bfloat16 b) { return __float2int_rz((float)b); }
MOCCUDA_HD short __bfloat16_as_short(__nv_bfloat16 b) { return (short)b.__x; }
MOCCUDA_HD unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
MOCCUDA_HD __nv_bfloat16 __short_as_bfloat16(short s) { return __nv_bfloat16(__nv_bfloat16_raw{(unsigned short)s}); }
MOCCUDA_HD __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) { return __nv_bfloat16(__nv_bfloat16_raw{s}); }
MOCCUDA_HD __nv_bfloat16 __float2bfloat16_rz(float f)
{
    return __nv_bfloat16(__nv_bfloat16_raw{(unsigned short)(moccuda::detail::float_bits(f) >> 16)});
}
MOCCUDA_HD __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
MOCCUDA_HD __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
MOCCUDA_HD __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
MOCCUDA_HD __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
MOCCUDA_HD float2 __bfloat1622float2(__nv_bfloat162 a) { return make_float2((float)a.x, (float)a.y); }
/* Between the two 16-bit types, through float (exact: every half value is a float value). */
MOCCUDA_HD __nv_bfloat16 __half2bfloat16(__half h) { return __nv_bfloat16((float)h); }

#ifdef __CUDA2CPU_PARSE__
/* Warp shuffles of the 16-bit types and their pairs, as cuda_fp16.h and cuda_bf16.h declare them;
 * cuda2cpu lowers each call to an exchange of the value (moccuda::warp in cuda2cpu_warp.h). */
#define MOCCUDA_HALF_SHUFFLES(T)                                                                    \
    __device__ T __shfl_sync(unsigned int mask, T var, int src_lane, int width = 32);               \
    __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);      \
    __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);    \
    __device__ T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32);
MOCCUDA_HALF_SHUFFLES(__half)
MOCCUDA_HALF_SHUFFLES(__half2)
MOCCUDA_HALF_SHUFFLES(__nv_bfloat16)
MOCCUDA_HALF_SHUFFLES(__nv_bfloat162)
#undef MOCCUDA_HALF_SHUFFLES
#endif

#undef MOCCUDA_HD
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_HALF_H */
