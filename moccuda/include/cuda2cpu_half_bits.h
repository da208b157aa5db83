/* MocCUDA: conversions between float and the bits of the 16-bit floating-point types (binary16
 * and bfloat16), shared by cuda2cpu_half.h and the texture fetches of 16-bit float textures. */
#ifndef MOCCUDA_CUDA2CPU_HALF_BITS_H
#define MOCCUDA_CUDA2CPU_HALF_BITS_H
#ifdef __cplusplus

#include <math.h>

#include "host_defines.h"

#define MOCCUDA_HD inline __host__ __device__

namespace moccuda {
namespace detail {

MOCCUDA_HD unsigned int float_bits(float f)
{
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
}

MOCCUDA_HD float bits_float(unsigned int u)
{
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}

/* float -> binary16 bits, rounded to nearest even; overflow gives infinity, NaN stays NaN. */
MOCCUDA_HD unsigned short float_to_half_bits(float f)
{
    unsigned int x = float_bits(f);
    unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u)
        return (unsigned short)(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (x < 0x38800000u) {
        /* Below the smallest normal half (2^-14): a multiple of 2^-24.  Scaling by 2^24 is exact
         * and nearbyint rounds to nearest even; 1024 is the smallest normal's encoding. */
        return (unsigned short)(sign | (unsigned int)nearbyintf(bits_float(x) * 16777216.0f));
    }
    unsigned int exponent = (x >> 23) - 127 + 15, mantissa = x & 0x7fffffu;
    if (exponent >= 31)
        return (unsigned short)(sign | 0x7c00u);
    unsigned int h = (exponent << 10) | (mantissa >> 13), rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        ++h; /* a carry into the exponent is right, up to infinity (0x7c00) */
    return (unsigned short)(sign | h);
}

MOCCUDA_HD float half_bits_to_float(unsigned short h)
{
    unsigned int sign = (unsigned int)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float magnitude = (float)mantissa * (1.0f / 16777216.0f); /* exact */
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31)
        return bits_float(sign | 0x7f800000u | (mantissa << 13));
    return bits_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

/* float -> bfloat16 bits (the float's top half), rounded to nearest even; NaN stays quiet NaN. */
MOCCUDA_HD unsigned short float_to_bfloat16_bits(float f)
{
    unsigned int x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((x >> 16) | 0x40u);
    return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

MOCCUDA_HD float bfloat16_bits_to_float(unsigned short b) { return bits_float((unsigned int)b << 16); }

}  // namespace detail
}  // namespace moccuda

#undef MOCCUDA_HD
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_HALF_BITS_H */
