/* MocCUDA torch compat: CUDA's half type, for PyTorch extensions on the CPU.
 *
 * PyTorch's c10/util/Half.h includes this header when __CUDACC__ is defined (while cuda2cpu
 * parses a .cu file, and in the translated C++, which keeps __CUDACC__) and converts c10::Half to
 * and from __half by copying the 16 bits.  So __half is a 16-bit IEEE half, and the conversions
 * to and from float are exact in one direction and round to nearest even in the other, as CUDA's.
 */
#ifndef MOCCUDA_TORCH_COMPAT_CUDA_FP16_H
#define MOCCUDA_TORCH_COMPAT_CUDA_FP16_H

#include <stdint.h>
#include <string.h>

struct __half_raw {
    unsigned short x;
};

inline __host__ __device__ float moccuda_half_bits_to_float(unsigned short h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
    if (exponent == 0x1fu) {
        bits = sign | 0x7f800000u | (mantissa << 13);  // infinity, NaN
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);  // normal: rebias 15 -> 127
    } else if (mantissa == 0) {
        bits = sign;  // zero
    } else {  // subnormal: normalize
        exponent = 113u;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

inline __host__ __device__ unsigned short moccuda_float_to_half_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u)
        return (unsigned short)(sign | 0x7e00u);  // NaN
    if (magnitude >= 0x477ff000u)
        return (unsigned short)(sign | 0x7c00u);  // rounds to infinity
    if (magnitude < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        if (magnitude < 0x33000001u)
            return (unsigned short)sign;
        uint32_t exponent = magnitude >> 23, mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - exponent;  // places the value in units of 2^-24
        uint32_t result = mantissa >> shift, rest = mantissa & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (result & 1u)))
            ++result;
        return (unsigned short)(sign | result);
    }
    uint32_t result = magnitude - 0x38000000u;  // rebias 127 -> 15, still 13 extra mantissa bits
    uint32_t rest = result & 0x1fffu;
    result >>= 13;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
        ++result;
    return (unsigned short)(sign | result);
}

struct __align__(2) __half {
    unsigned short __x;
    __half() = default;
    __host__ __device__ __half(const __half_raw &r) : __x(r.x) {}
    __host__ __device__ __half(float f) : __x(moccuda_float_to_half_bits(f)) {}
    __host__ __device__ operator float() const { return moccuda_half_bits_to_float(__x); }
};
inline __host__ __device__ float __half2float(const __half h) { return moccuda_half_bits_to_float(h.__x); }
inline __host__ __device__ __half __float2half(const float f) { return __half(f); }
inline __host__ __device__ __half __float2half_rn(const float f) { return __half(f); }
typedef __half half;

#endif /* MOCCUDA_TORCH_COMPAT_CUDA_FP16_H */
