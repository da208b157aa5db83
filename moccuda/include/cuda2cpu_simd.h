/* MocCUDA: CUDA's SIMD video intrinsics (__vadd4, __vmaxs2, __vcmpgeu4, __vsadu2, ...), which
 * treat an unsigned int as two 16-bit or four 8-bit lanes.  Each is the lane-wise operation of
 * its name, on signed (s) or unsigned (u) lanes, wrapping unless saturating (ss, us):
 * __vcmp* give all ones per true lane, __vset* give 1, __vsad* the sum of absolute differences,
 * __vavg* the average rounded up, __vhaddu* the average rounded down. */
#ifndef MOCCUDA_CUDA2CPU_SIMD_H
#define MOCCUDA_CUDA2CPU_SIMD_H
#ifdef __cplusplus

#include "host_defines.h"

#define MOCCUDA_HD inline __host__ __device__

namespace moccuda {
namespace simd {

/* Lane i of x as a signed or unsigned value of BITS bits. */
template <int BITS>
MOCCUDA_HD int lane_s(unsigned int x, int i)
{
    int shift = 32 - BITS;
    return (int)(x << (shift - i * BITS)) >> shift;
}
template <int BITS>
MOCCUDA_HD int lane_u(unsigned int x, int i)
{
    return (int)((x >> (i * BITS)) & ((1u << BITS) - 1u));
}
template <int BITS>
MOCCUDA_HD int clamp_s(int v)
{
    int high = (1 << (BITS - 1)) - 1, low = -(1 << (BITS - 1));
    return v > high ? high : v < low ? low : v;
}
template <int BITS>
MOCCUDA_HD int clamp_u(int v)
{
    int high = (1 << BITS) - 1;
    return v > high ? high : v < 0 ? 0 : v;
}

/* The lanes of f(lane a, lane b), packed; `sign` picks signed or unsigned lanes. */
template <int BITS, bool SIGNED, class F>
MOCCUDA_HD unsigned int map(unsigned int a, unsigned int b, F f)
{
    unsigned int out = 0, mask = (1u << BITS) - 1u;
    for (int i = 0; i < 32 / BITS; i++) {
        int x = SIGNED ? lane_s<BITS>(a, i) : lane_u<BITS>(a, i);
        int y = SIGNED ? lane_s<BITS>(b, i) : lane_u<BITS>(b, i);
        out |= ((unsigned int)f(x, y) & mask) << (i * BITS);
    }
    return out;
}
template <int BITS, bool SIGNED>
MOCCUDA_HD unsigned int sad(unsigned int a, unsigned int b)
{
    unsigned int sum = 0;
    for (int i = 0; i < 32 / BITS; i++) {
        int x = SIGNED ? lane_s<BITS>(a, i) : lane_u<BITS>(a, i);
        int y = SIGNED ? lane_s<BITS>(b, i) : lane_u<BITS>(b, i);
        sum += (unsigned int)(x > y ? x - y : y - x);
    }
    return sum;
}

}  // namespace simd
}  // namespace moccuda

/* NAME2 on 16-bit lanes and NAME4 on 8-bit lanes, computing EXPR from lanes x and y. */
#define MOCCUDA_SIMD(NAME, SIGNED, EXPR)                                                             \
    MOCCUDA_HD unsigned int NAME##2(unsigned int a, unsigned int b)                                 \
    {                                                                                               \
        constexpr int BITS = 16;                                                                    \
        (void)BITS;                                                                                 \
        return moccuda::simd::map<16, SIGNED>(a, b, [](int x, int y) { return EXPR; });             \
    }                                                                                               \
    MOCCUDA_HD unsigned int NAME##4(unsigned int a, unsigned int b)                                 \
    {                                                                                               \
        constexpr int BITS = 8;                                                                     \
        (void)BITS;                                                                                 \
        return moccuda::simd::map<8, SIGNED>(a, b, [](int x, int y) { return EXPR; });              \
    }
#define MOCCUDA_SIMD_UNARY(NAME, EXPR)                                                               \
    MOCCUDA_HD unsigned int NAME##2(unsigned int a)                                                 \
    {                                                                                               \
        return moccuda::simd::map<16, true>(a, 0u, [](int x, int) { constexpr int BITS = 16; (void)BITS; return EXPR; }); \
    }                                                                                               \
    MOCCUDA_HD unsigned int NAME##4(unsigned int a)                                                 \
    {                                                                                               \
        return moccuda::simd::map<8, true>(a, 0u, [](int x, int) { constexpr int BITS = 8; (void)BITS; return EXPR; }); \
    }

MOCCUDA_SIMD(__vadd, false, x + y)
MOCCUDA_SIMD(__vaddss, true, moccuda::simd::clamp_s<BITS>(x + y))
MOCCUDA_SIMD(__vaddus, false, moccuda::simd::clamp_u<BITS>(x + y))
MOCCUDA_SIMD(__vsub, false, x - y)
MOCCUDA_SIMD(__vsubss, true, moccuda::simd::clamp_s<BITS>(x - y))
MOCCUDA_SIMD(__vsubus, false, moccuda::simd::clamp_u<BITS>(x - y))
MOCCUDA_SIMD(__vmaxs, true, x > y ? x : y)
MOCCUDA_SIMD(__vmaxu, false, x > y ? x : y)
MOCCUDA_SIMD(__vmins, true, x < y ? x : y)
MOCCUDA_SIMD(__vminu, false, x < y ? x : y)
MOCCUDA_SIMD(__vabsdiffs, true, x > y ? x - y : y - x)
MOCCUDA_SIMD(__vabsdiffu, false, x > y ? x - y : y - x)
MOCCUDA_SIMD(__vavgs, true, (x + y + ((x + y) >= 0 ? 1 : 0)) >> 1)
MOCCUDA_SIMD(__vavgu, false, (x + y + 1) >> 1)
MOCCUDA_SIMD(__vhaddu, false, (x + y) >> 1)
MOCCUDA_SIMD(__vcmpeq, false, x == y ? -1 : 0)
MOCCUDA_SIMD(__vcmpne, false, x != y ? -1 : 0)
MOCCUDA_SIMD(__vcmpges, true, x >= y ? -1 : 0)
MOCCUDA_SIMD(__vcmpgeu, false, x >= y ? -1 : 0)
MOCCUDA_SIMD(__vcmpgts, true, x > y ? -1 : 0)
MOCCUDA_SIMD(__vcmpgtu, false, x > y ? -1 : 0)
MOCCUDA_SIMD(__vcmples, true, x <= y ? -1 : 0)
MOCCUDA_SIMD(__vcmpleu, false, x <= y ? -1 : 0)
MOCCUDA_SIMD(__vcmplts, true, x < y ? -1 : 0)
MOCCUDA_SIMD(__vcmpltu, false, x < y ? -1 : 0)
MOCCUDA_SIMD(__vseteq, false, x == y ? 1 : 0)
MOCCUDA_SIMD(__vsetne, false, x != y ? 1 : 0)
MOCCUDA_SIMD(__vsetges, true, x >= y ? 1 : 0)
MOCCUDA_SIMD(__vsetgeu, false, x >= y ? 1 : 0)
MOCCUDA_SIMD(__vsetgts, true, x > y ? 1 : 0)
MOCCUDA_SIMD(__vsetgtu, false, x > y ? 1 : 0)
MOCCUDA_SIMD(__vsetles, true, x <= y ? 1 : 0)
MOCCUDA_SIMD(__vsetleu, false, x <= y ? 1 : 0)
MOCCUDA_SIMD(__vsetlts, true, x < y ? 1 : 0)
MOCCUDA_SIMD(__vsetltu, false, x < y ? 1 : 0)
MOCCUDA_SIMD_UNARY(__vabs, x < 0 ? -x : x)
MOCCUDA_SIMD_UNARY(__vabsss, moccuda::simd::clamp_s<BITS>(x < 0 ? -x : x))
MOCCUDA_SIMD_UNARY(__vneg, -x)
MOCCUDA_SIMD_UNARY(__vnegss, moccuda::simd::clamp_s<BITS>(-x))
MOCCUDA_HD unsigned int __vsads2(unsigned int a, unsigned int b) { return moccuda::simd::sad<16, true>(a, b); }
MOCCUDA_HD unsigned int __vsadu2(unsigned int a, unsigned int b) { return moccuda::simd::sad<16, false>(a, b); }
MOCCUDA_HD unsigned int __vsads4(unsigned int a, unsigned int b) { return moccuda::simd::sad<8, true>(a, b); }
MOCCUDA_HD unsigned int __vsadu4(unsigned int a, unsigned int b) { return moccuda::simd::sad<8, false>(a, b); }
#undef MOCCUDA_SIMD
#undef MOCCUDA_SIMD_UNARY

#undef MOCCUDA_HD
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_SIMD_H */
