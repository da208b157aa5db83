/* MocCUDA: cuda_fp8.h, CUDA's 8-bit floating-point types and their conversions.
 *
 * The two formats (OCP 8-bit floating point, as CUDA names them):
 *  - E4M3 (__NV_E4M3): sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities; S.1111.111
 *    is NaN; the largest finite magnitude is 1.75 * 2^8 = 448, the smallest normal 2^-6, the
 *    smallest subnormal 2^-9.
 *  - E5M2 (__NV_E5M2): sign, 5 exponent bits (bias 15), 2 mantissa bits, as IEEE binary16 without
 *    its low byte: S.11111.00 is infinity, S.11111.xx (xx != 0) NaN; the largest finite magnitude
 *    is 1.75 * 2^15 = 57344, the smallest normal 2^-14, the smallest subnormal 2^-16.
 *
 * Narrowing conversions round the exact value (every float, double, __half and __nv_bfloat16 is a
 * double) to nearest, ties to even, once.  A result beyond the largest finite magnitude, and an
 * infinity, is that magnitude with __NV_SATFINITE, and with __NV_NOSAT infinity in E5M2 and NaN in
 * E4M3 (which has no infinity).  The sign is kept, zeros and underflows included; NaN stays NaN
 * (sign kept; 0x7F for E4M3, 0x7E for E5M2).  Widening conversions are exact.  The classes'
 * constructors convert with __NV_SATFINITE, as CUDA's do; their conversions to integers round
 * toward zero and saturate, NaN giving 0.
 */
#ifndef MOCCUDA_CUDA_FP8_H
#define MOCCUDA_CUDA_FP8_H
#ifdef __cplusplus

#include <math.h>

#include <limits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "host_defines.h"
#include "vector_types.h"

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace moccuda {
namespace fp8 {

/* One format's parameters. */
struct Format {
    int mantissa_bits;
    int bias;
    bool has_infinity;
    unsigned char nan;       /* the NaN a conversion gives, without the sign */
    unsigned char max_code;  /* the largest finite magnitude's code */
    double max_finite;
};

inline __host__ __device__ Format format(__nv_fp8_interpretation_t kind)
{
    if (kind == __NV_E4M3)
        return Format{3, 7, false, 0x7f, 0x7e, 448.0};
    return Format{2, 15, true, 0x7e, 0x7b, 57344.0};
}

/* x rounded to nearest even into the format, with the saturation asked for. */
inline __host__ __device__ __nv_fp8_storage_t from_double(double x, __nv_saturation_t saturate,
                                                          __nv_fp8_interpretation_t kind)
{
    const Format f = format(kind);
    const unsigned char sign = signbit(x) ? 0x80 : 0x00;
    if (isnan(x))
        return (__nv_fp8_storage_t)(sign | f.nan);
    const double magnitude = fabs(x);
    const int min_exponent = 1 - f.bias;  /* of the normal numbers, and the subnormals' scale */
    double value = magnitude;  /* infinity overflows below */
    if (!isinf(magnitude)) {
        int k;
        frexp(magnitude, &k);  /* magnitude = m * 2^k, m in [0.5, 1) (k unused for 0) */
        int exponent = magnitude == 0.0 ? min_exponent : k - 1;
        if (exponent < min_exponent)
            exponent = min_exponent;
        const double ulp = ldexp(1.0, exponent - f.mantissa_bits);
        const double scaled = magnitude / ulp;  /* exact: a division by a power of two */
        double units = floor(scaled);
        const double rest = scaled - units;
        if (rest > 0.5 || (rest == 0.5 && fmod(units, 2.0) != 0.0))
            units += 1.0;
        value = units * ulp;
    }
    if (value > f.max_finite) {
        if (saturate == __NV_SATFINITE)
            return (__nv_fp8_storage_t)(sign | f.max_code);
        return (__nv_fp8_storage_t)(sign | (f.has_infinity ? 0x7c : f.nan));
    }
    if (value == 0.0)
        return (__nv_fp8_storage_t)sign;
    int k;
    frexp(value, &k);
    const int exponent = k - 1;
    if (exponent < min_exponent)  /* subnormal: a multiple of the smallest one */
        return (__nv_fp8_storage_t)(sign | (unsigned char)ldexp(value, f.bias - 1 + f.mantissa_bits));
    const unsigned mantissa = (unsigned)ldexp(value, f.mantissa_bits - exponent) - (1u << f.mantissa_bits);
    return (__nv_fp8_storage_t)(sign | (unsigned)(exponent + f.bias) << f.mantissa_bits | mantissa);
}

/* The exact value of a code (NaN for NaN codes, an infinity for E5M2's). */
inline __host__ __device__ double to_double(__nv_fp8_storage_t code, __nv_fp8_interpretation_t kind)
{
    const Format f = format(kind);
    const double sign = (code & 0x80) ? -1.0 : 1.0;
    const unsigned exponent = (code & 0x7fu) >> f.mantissa_bits;
    const unsigned mantissa = code & ((1u << f.mantissa_bits) - 1u);
    const unsigned top = (1u << (7 - f.mantissa_bits)) - 1u;
    if (kind == __NV_E4M3 && (code & 0x7fu) == 0x7fu)
        return NAN;
    if (kind == __NV_E5M2 && exponent == top)
        return mantissa ? (double)NAN : sign * (double)INFINITY;
    if (exponent == 0)
        return sign * ldexp((double)mantissa, 1 - f.bias - f.mantissa_bits);
    return sign * ldexp((double)((1u << f.mantissa_bits) | mantissa), (int)exponent - f.bias - f.mantissa_bits);
}

/* The 16 bits of the binary16 value of a code (exact: both formats fit in binary16). */
inline __host__ __device__ unsigned short to_half_bits(__nv_fp8_storage_t code, __nv_fp8_interpretation_t kind)
{
    if (kind == __NV_E5M2)  /* binary16's high byte */
        return (unsigned short)(code << 8);
    if ((code & 0x7fu) == 0x7fu)
        return (unsigned short)((code & 0x80u) << 8 | 0x7fffu);
    return moccuda::detail::float_to_half_bits((float)to_double(code, kind));
}

/* An integer of the type T from a value: toward zero, saturated, NaN giving 0. */
template <class T>
inline __host__ __device__ T to_integer(double v)
{
    if (isnan(v))
        return T(0);
    if (v <= (double)std::numeric_limits<T>::lowest())
        return std::numeric_limits<T>::lowest();
    if (v >= (double)std::numeric_limits<T>::max())
        return std::numeric_limits<T>::max();
    return (T)trunc(v);
}

/* A pair's storage: the first value in the low byte. */
inline __host__ __device__ __nv_fp8x2_storage_t pair(__nv_fp8_storage_t first, __nv_fp8_storage_t second)
{
    return (__nv_fp8x2_storage_t)(first | second << 8);
}

}  // namespace fp8
}  // namespace moccuda

/* ---- the conversion functions ---- */

inline __host__ __device__ __nv_fp8_storage_t __nv_cvt_double_to_fp8(const double x, const __nv_saturation_t saturate,
                                                                     const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::from_double(x, saturate, fp8_interpretation);
}
inline __host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_fp8(const float x, const __nv_saturation_t saturate,
                                                                    const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::from_double(x, saturate, fp8_interpretation);
}
inline __host__ __device__ __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(const __half_raw x, const __nv_saturation_t saturate,
                                                                      const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::from_double(moccuda::detail::half_bits_to_float(x.x), saturate, fp8_interpretation);
}
inline __host__ __device__ __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(
    const __nv_bfloat16_raw x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::from_double(moccuda::detail::bfloat16_bits_to_float(x.x), saturate, fp8_interpretation);
}

inline __host__ __device__ __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(
    const double2 x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::pair(__nv_cvt_double_to_fp8(x.x, saturate, fp8_interpretation),
                         __nv_cvt_double_to_fp8(x.y, saturate, fp8_interpretation));
}
inline __host__ __device__ __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(
    const float2 x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::pair(__nv_cvt_float_to_fp8(x.x, saturate, fp8_interpretation),
                         __nv_cvt_float_to_fp8(x.y, saturate, fp8_interpretation));
}
inline __host__ __device__ __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(
    const __half2_raw x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::pair(__nv_cvt_halfraw_to_fp8(__half_raw{x.x}, saturate, fp8_interpretation),
                         __nv_cvt_halfraw_to_fp8(__half_raw{x.y}, saturate, fp8_interpretation));
}
inline __host__ __device__ __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(
    const __nv_bfloat162_raw x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation)
{
    return moccuda::fp8::pair(__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.x}, saturate, fp8_interpretation),
                         __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.y}, saturate, fp8_interpretation));
}

inline __host__ __device__ __half_raw __nv_cvt_fp8_to_halfraw(const __nv_fp8_storage_t x,
                                                              const __nv_fp8_interpretation_t fp8_interpretation)
{
    return __half_raw{moccuda::fp8::to_half_bits(x, fp8_interpretation)};
}
inline __host__ __device__ __half2_raw __nv_cvt_fp8x2_to_halfraw2(const __nv_fp8x2_storage_t x,
                                                                  const __nv_fp8_interpretation_t fp8_interpretation)
{
    return __half2_raw{moccuda::fp8::to_half_bits((__nv_fp8_storage_t)(x & 0xffu), fp8_interpretation),
                       moccuda::fp8::to_half_bits((__nv_fp8_storage_t)(x >> 8), fp8_interpretation)};
}

/* ---- the classes ---- */

/* One value of a format KIND: constructors from the arithmetic types (__NV_SATFINITE), and
 * explicit conversions back, as CUDA's. */
#define MOCCUDA_FP8_TYPE(T, KIND)                                                                       \
    struct __align__(1) T {                                                                             \
        __nv_fp8_storage_t __x;                                                                         \
        T() = default;                                                                                  \
        explicit __host__ __device__ T(const double f) : __x(__nv_cvt_double_to_fp8(f, __NV_SATFINITE, KIND)) {} \
        explicit __host__ __device__ T(const float f) : __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, KIND)) {}   \
        explicit __host__ __device__ T(const __half f)                                                  \
            : __x(__nv_cvt_halfraw_to_fp8(static_cast<__half_raw>(f), __NV_SATFINITE, KIND)) {}         \
        explicit __host__ __device__ T(const __nv_bfloat16 f)                                           \
            : __x(__nv_cvt_bfloat16raw_to_fp8(static_cast<__nv_bfloat16_raw>(f), __NV_SATFINITE, KIND)) {} \
        explicit __host__ __device__ T(const unsigned short int v) : T((double)v) {}                    \
        explicit __host__ __device__ T(const unsigned int v) : T((double)v) {}                          \
        explicit __host__ __device__ T(const unsigned long int v) : T((double)v) {}                     \
        explicit __host__ __device__ T(const unsigned long long int v) : T((double)v) {}                \
        explicit __host__ __device__ T(const short int v) : T((double)v) {}                             \
        explicit __host__ __device__ T(const int v) : T((double)v) {}                                   \
        explicit __host__ __device__ T(const long int v) : T((double)v) {}                              \
        explicit __host__ __device__ T(const long long int v) : T((double)v) {}                         \
        explicit __host__ __device__ operator __half_raw() const { return __nv_cvt_fp8_to_halfraw(__x, KIND); } \
        explicit __host__ __device__ operator __half() const { return __half(__nv_cvt_fp8_to_halfraw(__x, KIND)); } \
        explicit __host__ __device__ operator float() const { return (float)moccuda::fp8::to_double(__x, KIND); } \
        explicit __host__ __device__ operator double() const { return moccuda::fp8::to_double(__x, KIND); }     \
        explicit __host__ __device__ operator __nv_bfloat16() const { return __nv_bfloat16((float)*this); }     \
        explicit __host__ __device__ operator unsigned char() const { return integer<unsigned char>(); }   \
        explicit __host__ __device__ operator unsigned short int() const                                \
        { return integer<unsigned short int>(); }                                               \
        explicit __host__ __device__ operator unsigned int() const { return integer<unsigned int>(); } \
        explicit __host__ __device__ operator unsigned long int() const                                 \
        { return integer<unsigned long int>(); }                               \
        explicit __host__ __device__ operator unsigned long long int() const                            \
        { return integer<unsigned long long int>(); }                          \
        explicit __host__ __device__ operator signed char() const { return integer<signed char>(); }    \
        explicit __host__ __device__ operator short int() const { return integer<short int>(); }    \
        explicit __host__ __device__ operator int() const { return integer<int>(); }  \
        explicit __host__ __device__ operator long int() const                                          \
        { return integer<long int>(); }                     \
        explicit __host__ __device__ operator long long int() const                                     \
        { return integer<long long int>(); }                \
        explicit __host__ __device__ operator bool() const { return (__x & 0x7fu) != 0; }               \
                                                                                                        \
      private:                                                                                          \
        template <class I>                                                                              \
        __host__ __device__ I integer() const                                                           \
        {                                                                                               \
            return moccuda::fp8::to_integer<I>(moccuda::fp8::to_double(__x, KIND));                     \
        }                                                                                               \
    };

/* Two values (the first in the low byte). */
#define MOCCUDA_FP8X2_TYPE(T2, KIND)                                                                    \
    struct __align__(2) T2 {                                                                            \
        __nv_fp8x2_storage_t __x;                                                                       \
        T2() = default;                                                                                 \
        explicit __host__ __device__ T2(const double2 f) : __x(__nv_cvt_double2_to_fp8x2(f, __NV_SATFINITE, KIND)) {} \
        explicit __host__ __device__ T2(const float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, KIND)) {}   \
        explicit __host__ __device__ T2(const __half2 f)                                                \
            : __x(__nv_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(f), __NV_SATFINITE, KIND)) {}     \
        explicit __host__ __device__ T2(const __nv_bfloat162 f)                                         \
            : __x(__nv_cvt_bfloat16raw2_to_fp8x2(static_cast<__nv_bfloat162_raw>(f), __NV_SATFINITE, KIND)) {} \
        explicit __host__ __device__ operator __half2_raw() const { return __nv_cvt_fp8x2_to_halfraw2(__x, KIND); } \
        explicit __host__ __device__ operator __half2() const { return __half2(__nv_cvt_fp8x2_to_halfraw2(__x, KIND)); } \
        explicit __host__ __device__ operator float2() const                                            \
        {                                                                                               \
            return make_float2((float)moccuda::fp8::to_double((__nv_fp8_storage_t)(__x & 0xffu), KIND), \
                               (float)moccuda::fp8::to_double((__nv_fp8_storage_t)(__x >> 8), KIND));   \
        }                                                                                               \
    };

/* Four values (the first in the low byte). */
#define MOCCUDA_FP8X4_TYPE(T4, T2, KIND)                                                                \
    struct __align__(4) T4 {                                                                            \
        __nv_fp8x4_storage_t __x;                                                                       \
        T4() = default;                                                                                 \
        explicit __host__ __device__ T4(const double4 f)                                                \
            : __x(pack(__nv_cvt_double2_to_fp8x2(make_double2(f.x, f.y), __NV_SATFINITE, KIND),        \
                       __nv_cvt_double2_to_fp8x2(make_double2(f.z, f.w), __NV_SATFINITE, KIND))) {}      \
        explicit __host__ __device__ T4(const float4 f)                                                 \
            : __x(pack(__nv_cvt_float2_to_fp8x2(make_float2(f.x, f.y), __NV_SATFINITE, KIND),           \
                       __nv_cvt_float2_to_fp8x2(make_float2(f.z, f.w), __NV_SATFINITE, KIND))) {}         \
        explicit __host__ __device__ T4(const __half2 low, const __half2 high)                          \
            : __x(pack(T2(low).__x, T2(high).__x)) {}                                                   \
        explicit __host__ __device__ T4(const __nv_bfloat162 low, const __nv_bfloat162 high)            \
            : __x(pack(T2(low).__x, T2(high).__x)) {}                                                   \
        explicit __host__ __device__ operator float4() const                                            \
        {                                                                                               \
            return make_float4((float)moccuda::fp8::to_double((__nv_fp8_storage_t)(__x & 0xffu), KIND), \
                               (float)moccuda::fp8::to_double((__nv_fp8_storage_t)(__x >> 8 & 0xffu), KIND), \
                               (float)moccuda::fp8::to_double((__nv_fp8_storage_t)(__x >> 16 & 0xffu), KIND), \
                               (float)moccuda::fp8::to_double((__nv_fp8_storage_t)(__x >> 24), KIND));  \
        }                                                                                               \
                                                                                                        \
      private:                                                                                          \
        static __host__ __device__ __nv_fp8x4_storage_t pack(__nv_fp8x2_storage_t low, __nv_fp8x2_storage_t high) \
        {                                                                                               \
            return (__nv_fp8x4_storage_t)low | (__nv_fp8x4_storage_t)high << 16;                        \
        }                                                                                               \
    };

MOCCUDA_FP8_TYPE(__nv_fp8_e4m3, __NV_E4M3)
MOCCUDA_FP8_TYPE(__nv_fp8_e5m2, __NV_E5M2)
MOCCUDA_FP8X2_TYPE(__nv_fp8x2_e4m3, __NV_E4M3)
MOCCUDA_FP8X2_TYPE(__nv_fp8x2_e5m2, __NV_E5M2)
MOCCUDA_FP8X4_TYPE(__nv_fp8x4_e4m3, __nv_fp8x2_e4m3, __NV_E4M3)
MOCCUDA_FP8X4_TYPE(__nv_fp8x4_e5m2, __nv_fp8x2_e5m2, __NV_E5M2)
#undef MOCCUDA_FP8_TYPE
#undef MOCCUDA_FP8X2_TYPE
#undef MOCCUDA_FP8X4_TYPE

#endif /* __cplusplus */
#endif
