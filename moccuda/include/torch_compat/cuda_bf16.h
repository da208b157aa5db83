/* MocCUDA torch compat: CUDA's bfloat16 type (see cuda_fp16.h): the upper 16 bits of a float,
 * rounded to nearest even. */
#ifndef MOCCUDA_TORCH_COMPAT_CUDA_BF16_H
#define MOCCUDA_TORCH_COMPAT_CUDA_BF16_H

#include <stdint.h>
#include <string.h>

struct __nv_bfloat16_raw {
    unsigned short x;
};

struct __align__(2) __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
    __host__ __device__ __nv_bfloat16(float f)
    {
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        if ((bits & 0x7fffffffu) > 0x7f800000u)
            __x = (unsigned short)((bits >> 16) | 0x40u);  // NaN stays NaN
        else
            __x = (unsigned short)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
    __host__ __device__ operator float() const
    {
        uint32_t bits = (uint32_t)__x << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
};
inline __host__ __device__ float __bfloat162float(const __nv_bfloat16 h) { return (float)h; }
inline __host__ __device__ __nv_bfloat16 __float2bfloat16(const float f) { return __nv_bfloat16(f); }

#endif /* MOCCUDA_TORCH_COMPAT_CUDA_BF16_H */
