/* MocCUDA: the semantics of the PTX instructions that cuda2cpu translates from inline assembly in
 * device code (cuda_front/inline_ptx.py), and the addresses of PTX's state spaces.
 *
 * Every operation works on the values of PTX registers as C++ scalars: .b/.u types are unsigned
 * integers, .s types signed ones, .f32/.f64 float and double, and .f16/.bf16 (and their pairs)
 * the 16 (32) bits of the value, as PTX keeps them in .b16 (.b32) registers.  The names start
 * with __ptx_ so that they can meet no name of the program (cuda2cpu matches calls by their
 * unqualified names).
 *
 * Addresses in a state space: a CPU's __shared__ memory is ordinary memory with 64-bit
 * addresses, while PTX code takes a shared-memory address as 32 bits (cvta.to.shared,
 * __cvta_generic_to_shared) and does arithmetic on it.  A 32-bit "window address" names a
 * pointer through a table of windows: each window is 2 MiB of the address space starting 512 KiB
 * below the 1 MiB boundary under the first pointer converted in it, and the address is the
 * window's number (11 bits) and the offset in it (21 bits).  Every pointer converted lies at least
 * 512 KiB from either end of its window, so offsets of that much either way (a block's shared
 * memory is at most 228 KiB on a GPU) stay in the window and map back to the pointer the same
 * arithmetic gives.  Windows are never freed; the table is shared by all threads (a window
 * address made by one thread is good in every other), filled lock-free.  The .local and .const
 * windows are the same table; .global addresses are the generic address, as on a GPU.
 */
#ifndef MOCCUDA_CUDA2CPU_PTX_H
#define MOCCUDA_CUDA2CPU_PTX_H
#ifdef __cplusplus

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_defines.h"

#ifdef __CUDA2CPU_PARSE__
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ size_t __cvta_generic_to_global(const void *);
__device__ size_t __cvta_generic_to_constant(const void *);
__device__ size_t __cvta_generic_to_local(const void *);
__device__ void *__cvta_shared_to_generic(size_t);
__device__ void *__cvta_global_to_generic(size_t);
__device__ void *__cvta_constant_to_generic(size_t);
__device__ void *__cvta_local_to_generic(size_t);
#else

#include <limits>
#include <type_traits>

#include "cuda2cpu_half_bits.h"
#include "cuda2cpu_math.h"

#define MOCCUDA_PTX inline __attribute__((always_inline))

namespace moccuda {

/* ---------------------------------------------------------------- state-space addresses */

namespace detail {
enum : unsigned { ptx_window_count = 2048, ptx_window_offset_bits = 21 };
/* The base of each window, 0 while free. */
inline unsigned long long *ptx_windows()
{
    static unsigned long long windows[ptx_window_count];
    return windows;
}
}  // namespace detail

/* The 32-bit window address of `p` (cvta.to.shared and friends). */
inline unsigned int __ptx_window_address(const void *p)
{
    const unsigned long long address = (unsigned long long)p;
    const unsigned long long base = (address & ~((1ull << 20) - 1)) - (1ull << 19);
    unsigned long long *windows = detail::ptx_windows();
    unsigned int slot = (unsigned int)((base >> 20) * 0x9E3779B97F4A7C15ull >> 53);  /* 11 bits */
    for (unsigned int probe = 0; probe < detail::ptx_window_count; ++probe, slot = (slot + 1) % detail::ptx_window_count) {
        unsigned long long held = __atomic_load_n(&windows[slot], __ATOMIC_ACQUIRE);
        if (held == 0) {
            unsigned long long expected = 0;
            if (__atomic_compare_exchange_n(&windows[slot], &expected, base, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                held = base;
            else
                held = expected;  /* another thread took the slot: maybe for this window */
        }
        if (held == base)
            return (slot << detail::ptx_window_offset_bits) | (unsigned int)(address - base);
    }
    fprintf(stderr, "cuda2cpu: more than %u windows of shared memory addresses (cvta.to.shared) in use\n",
            (unsigned)detail::ptx_window_count);
    abort();
}

/* The pointer a window address names (cvta.shared, and every access through .shared). */
inline void *__ptx_window_pointer(unsigned long long window_address)
{
    const unsigned int address = (unsigned int)window_address;
    const unsigned long long base = __atomic_load_n(&detail::ptx_windows()[address >> detail::ptx_window_offset_bits],
                                                    __ATOMIC_ACQUIRE);
    return (void *)(base + (address & ((1u << detail::ptx_window_offset_bits) - 1)));
}

/* ---------------------------------------------------------------- registers */

/* The bits of `v` as a `To` of the same size (a register read as another type). */
template <class To, class From>
MOCCUDA_PTX To __ptx_bits(From v)
{
    return detail::bit_cast<To>(v);
}

namespace detail {
/* A C++ value bound to a register of type R: converted as a value where both are arithmetic (or
 * the value is an integer or enumeration), a pointer as its address, anything else as its bits. */
template <int K>
struct ptx_binding {};
template <class R, class T>
MOCCUDA_PTX R ptx_register(T v, ptx_binding<0> /* a value */) { return static_cast<R>(v); }
template <class R, class T>
MOCCUDA_PTX R ptx_register(T v, ptx_binding<1> /* a pointer */) { return reinterpret_cast<R>(v); }
template <class R, class T>
MOCCUDA_PTX R ptx_register(const T &v, ptx_binding<2> /* bits */) { return __ptx_bits<R>(v); }
template <class R, class T>
struct ptx_binding_of {
    enum {
        value = std::is_integral<T>::value || std::is_enum<T>::value ||
                        (std::is_floating_point<T>::value && std::is_floating_point<R>::value) ? 0
                : std::is_pointer<T>::value ? 1 : 2
    };
};
}  // namespace detail

/* The register an operand of a type cuda2cpu did not know (a template parameter) is bound to. */
template <class R, class T>
MOCCUDA_PTX R __ptx_register(T v)
{
    return detail::ptx_register<R>(v, detail::ptx_binding<detail::ptx_binding_of<R, T>::value>());
}

namespace detail {
/* Integer arithmetic of T's width, wrapping: in an unsigned type at least as wide as int (a
 * product of two unsigned shorts would overflow int). */
template <class T>
struct ptx_wrap {
    typedef typename std::make_unsigned<T>::type unsigned_type;
    typedef typename std::conditional<(sizeof(T) < sizeof(unsigned int)), unsigned int, unsigned_type>::type type;
};
template <class T>
struct ptx_wide;
template <> struct ptx_wide<unsigned short> { typedef unsigned int type; };
template <> struct ptx_wide<short> { typedef int type; };
template <> struct ptx_wide<unsigned int> { typedef unsigned long long type; };
template <> struct ptx_wide<int> { typedef long long type; };
template <> struct ptx_wide<unsigned long long> { __extension__ typedef unsigned __int128 type; };
template <> struct ptx_wide<long long> { __extension__ typedef __int128 type; };
}  // namespace detail

/* ---------------------------------------------------------------- integer arithmetic */

template <class T>
MOCCUDA_PTX T __ptx_add(T a, T b)
{
    typedef typename detail::ptx_wrap<T>::type W;
    return (T)((W)a + (W)b);
}
template <class T>
MOCCUDA_PTX T __ptx_sub(T a, T b)
{
    typedef typename detail::ptx_wrap<T>::type W;
    return (T)((W)a - (W)b);
}
template <class T>
MOCCUDA_PTX T __ptx_mul_lo(T a, T b)
{
    typedef typename detail::ptx_wrap<T>::type W;
    return (T)((W)a * (W)b);
}
/* The product at twice the width (mul.wide); mul.hi is its upper half. */
template <class T>
MOCCUDA_PTX typename detail::ptx_wide<T>::type __ptx_mul_wide(T a, T b)
{
    typedef typename detail::ptx_wide<T>::type D;
    typedef typename std::make_unsigned<D>::type U;
    return (D)((U)(D)a * (U)(D)b);
}
template <class T>
MOCCUDA_PTX T __ptx_mul_hi(T a, T b)
{
    return (T)(__ptx_mul_wide(a, b) >> (8 * sizeof(T)));
}
/* mul24: the product of the low 24 bits (signed or not), 48 bits; .lo its low 32, .hi its high 32. */
template <class T>
MOCCUDA_PTX T __ptx_mul24(T a, T b, bool high)
{
    long long x = std::is_signed<T>::value ? (long long)((int)((unsigned)a << 8) >> 8) : (long long)(a & 0xffffffu);
    long long y = std::is_signed<T>::value ? (long long)((int)((unsigned)b << 8) >> 8) : (long long)(b & 0xffffffu);
    unsigned long long p = (unsigned long long)(x * y);
    return (T)(unsigned int)(high ? p >> 16 : p);
}
template <class T>
MOCCUDA_PTX T __ptx_add_sat(T a, T b)
{
    long long s = (long long)a + (long long)b;
    return (T)(s > std::numeric_limits<T>::max() ? std::numeric_limits<T>::max()
                                                  : s < std::numeric_limits<T>::min() ? std::numeric_limits<T>::min() : s);
}
template <class T>
MOCCUDA_PTX T __ptx_sub_sat(T a, T b)
{
    long long s = (long long)a - (long long)b;
    return (T)(s > std::numeric_limits<T>::max() ? std::numeric_limits<T>::max()
                                                  : s < std::numeric_limits<T>::min() ? std::numeric_limits<T>::min() : s);
}
/* Division by zero is unspecified in PTX (a GPU gives all bits set for the quotient, and the
 * dividend for the remainder); the most negative value over -1 wraps. */
template <class T>
MOCCUDA_PTX T __ptx_div(T a, T b)
{
    if (b == 0)
        return (T)~(typename std::make_unsigned<T>::type)0;
    if (std::is_signed<T>::value && b == (T)-1)
        return __ptx_sub((T)0, a);
    return (T)(a / b);
}
template <class T>
MOCCUDA_PTX T __ptx_rem(T a, T b)
{
    if (b == 0)
        return a;
    if (std::is_signed<T>::value && b == (T)-1)
        return 0;
    return (T)(a % b);
}
template <class T>
MOCCUDA_PTX T __ptx_neg(T a) { return __ptx_sub((T)0, a); }
template <class T>
MOCCUDA_PTX T __ptx_abs(T a) { return a < 0 ? __ptx_neg(a) : a; }
template <class T>
MOCCUDA_PTX T __ptx_min(T a, T b) { return b < a ? b : a; }
template <class T>
MOCCUDA_PTX T __ptx_max(T a, T b) { return a < b ? b : a; }

/* shl/shr: a count of the width or more shifts every bit out (shr of a signed value fills with
 * its sign), where C++ leaves it undefined and x86 masks the count. */
template <class T>
MOCCUDA_PTX T __ptx_shl(T a, unsigned int n)
{
    typedef typename detail::ptx_wrap<T>::type W;
    return n >= 8 * sizeof(T) ? (T)0 : (T)((W)a << n);
}
template <class T>
MOCCUDA_PTX T __ptx_shr(T a, unsigned int n)
{
    if (n >= 8 * sizeof(T))
        return std::is_signed<T>::value && a < 0 ? (T)-1 : (T)0;
    return (T)(a >> n);
}
/* shf.l / shf.r: the funnel of {b, a} shifted by c (clamped to 32, or taken modulo 32). */
MOCCUDA_PTX unsigned int __ptx_shf(unsigned int a, unsigned int b, unsigned int c, bool left, bool clamp)
{
    unsigned int n = clamp ? (c < 32u ? c : 32u) : (c & 31u);
    unsigned long long funnel = ((unsigned long long)b << 32) | a;
    return left ? (unsigned int)((funnel << n) >> 32) : (unsigned int)(funnel >> n);
}

/* bfe: `len` bits of `a` from `pos` (each taken modulo 256), sign-extended for a signed type. */
template <class T>
MOCCUDA_PTX T __ptx_bfe(T a, unsigned int b, unsigned int c)
{
    typedef typename std::make_unsigned<T>::type U;
    const unsigned int msb = 8 * sizeof(T) - 1, pos = b & 0xffu, len = c & 0xffu;
    const U bits = (U)a;
    bool sign = false;
    if (std::is_signed<T>::value && len != 0) {
        unsigned int top = pos + len - 1 < msb ? pos + len - 1 : msb;
        sign = (bits >> top) & 1u;
    }
    U d = 0;
    for (unsigned int i = 0; i <= msb; ++i) {
        bool bit = (i < len && pos + i <= msb) ? ((bits >> (pos + i)) & 1u) : sign;
        d |= (U)bit << i;
    }
    return (T)d;
}
/* bfi: `b` with `len` bits from `pos` replaced by the low bits of `a`. */
template <class T>
MOCCUDA_PTX T __ptx_bfi(T a, T b, unsigned int c, unsigned int d)
{
    typedef typename std::make_unsigned<T>::type U;
    const unsigned int msb = 8 * sizeof(T) - 1, pos = c & 0xffu, len = d & 0xffu;
    U f = (U)b;
    for (unsigned int i = 0; i < len && pos + i <= msb; ++i)
        f = (U)((f & (U) ~((U)1 << (pos + i))) | ((((U)a >> i) & (U)1) << (pos + i)));
    return (T)f;
}
/* prmt: bytes of {b, a} picked by the selectors in c (mode 0: four 4-bit selectors; else the
 * named modes' tables, by c's two low bits). */
MOCCUDA_PTX unsigned int __ptx_prmt(unsigned int a, unsigned int b, unsigned int c, int mode)
{
    static const unsigned char tables[6][4][4] = {
        /* f4e */ {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
        /* b4e */ {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
        /* rc8 */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
        /* ecl */ {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
        /* ecr */ {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
        /* rc16 */ {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
    };
    const unsigned long long source = ((unsigned long long)b << 32) | a;
    unsigned int d = 0;
    for (int k = 0; k < 4; ++k) {
        unsigned int selector = mode == 0 ? (c >> (4 * k)) & 0xfu : tables[mode - 1][c & 3u][k];
        unsigned int byte = (unsigned int)(source >> (8 * (selector & 7u))) & 0xffu;
        if (mode == 0 && (selector & 8u))
            byte = (byte & 0x80u) ? 0xffu : 0u;
        d |= byte << (8 * k);
    }
    return d;
}
/* lop3: bit i of the result is bit (a_i b_i c_i) of the lookup table. */
template <class T>
MOCCUDA_PTX T __ptx_lop3(T a, T b, T c, unsigned int lut)
{
    T d = 0;
    for (int k = 0; k < 8; ++k)
        if ((lut >> k) & 1u)
            d |= ((k & 4) ? a : (T)~a) & ((k & 2) ? b : (T)~b) & ((k & 1) ? c : (T)~c);
    return d;
}
template <class T>
MOCCUDA_PTX unsigned int __ptx_popc(T a)
{
    return (unsigned int)__builtin_popcountll((unsigned long long)(typename std::make_unsigned<T>::type)a);
}
template <class T>
MOCCUDA_PTX unsigned int __ptx_clz(T a)
{
    unsigned long long bits = (unsigned long long)(typename std::make_unsigned<T>::type)a;
    return bits == 0 ? 8 * sizeof(T) : (unsigned int)__builtin_clzll(bits) - (64 - 8 * sizeof(T));
}
template <class T>
MOCCUDA_PTX T __ptx_brev(T a)
{
    typedef typename std::make_unsigned<T>::type U;
    U bits = (U)a, d = 0;
    for (unsigned int i = 0; i < 8 * sizeof(T); ++i)
        d |= (U)((bits >> i) & 1u) << (8 * sizeof(T) - 1 - i);
    return (T)d;
}
/* bfind: the position of the most significant non-sign bit (0xffffffff when there is none);
 * .shiftamt gives the left shift that would move it to the top instead. */
template <class T>
MOCCUDA_PTX unsigned int __ptx_bfind(T a, bool shift_amount)
{
    typedef typename std::make_unsigned<T>::type U;
    U bits = (U)a;
    if (std::is_signed<T>::value && a < 0)
        bits = (U)~bits;
    if (bits == 0)
        return 0xffffffffu;
    unsigned int position = 8 * sizeof(T) - 1 - __ptx_clz(bits);
    return shift_amount ? 8 * sizeof(T) - 1 - position : position;
}
/* dp4a / dp2a: the dot product of bytes (halves) of a and b, plus c. */
template <bool SignedA, bool SignedB>
MOCCUDA_PTX int __ptx_dp4a(unsigned int a, unsigned int b, int c)
{
    int sum = c;
    for (int k = 0; k < 4; ++k) {
        int x = SignedA ? (int)(signed char)(a >> (8 * k)) : (int)((a >> (8 * k)) & 0xffu);
        int y = SignedB ? (int)(signed char)(b >> (8 * k)) : (int)((b >> (8 * k)) & 0xffu);
        sum = (int)((unsigned int)sum + (unsigned int)(x * y));
    }
    return sum;
}
template <bool SignedA, bool SignedB>
MOCCUDA_PTX int __ptx_dp2a(unsigned int a, unsigned int b, int c, bool high)
{
    int sum = c;
    for (int k = 0; k < 2; ++k) {
        int x = SignedA ? (int)(short)(a >> (16 * k)) : (int)((a >> (16 * k)) & 0xffffu);
        unsigned int byte = (b >> (8 * (k + (high ? 2 : 0)))) & 0xffu;
        int y = SignedB ? (int)(signed char)byte : (int)byte;
        sum = (int)((unsigned int)sum + (unsigned int)(x * y));
    }
    return sum;
}

/* ---------------------------------------------------------------- floating point */

/* .ftz: a subnormal input or result is zero of its sign. */
MOCCUDA_PTX float __ptx_ftz(float x) { return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x; }
MOCCUDA_PTX double __ptx_ftz(double x) { return x; }
/* .sat: clamped to [0, 1]; NaN gives 0. */
MOCCUDA_PTX float __ptx_sat(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
MOCCUDA_PTX double __ptx_sat(double x) { return x >= 1.0 ? 1.0 : (x > 0.0 ? x : 0.0); }
/* min/max: a NaN operand gives the other one; -0 is below +0. */
template <class F>
MOCCUDA_PTX F __ptx_fmin(F a, F b)
{
    if (a != a)
        return b;
    if (b != b)
        return a;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}
template <class F>
MOCCUDA_PTX F __ptx_fmax(F a, F b)
{
    return -__ptx_fmin(-a, -b); /* negation is exact, and keeps NaN a NaN */
}
/* cvt to an integer: rounded by `mode` (0 .rni, 1 .rzi, 2 .rmi, 3 .rpi), saturated to D's range;
 * NaN gives 0. */
template <class D, class F>
MOCCUDA_PTX D __ptx_cvt_float_int(F v, int mode)
{
    if (v != v)
        return (D)0;
    F r = mode == 0 ? nearbyint(v) : mode == 1 ? trunc(v) : mode == 2 ? floor(v) : ceil(v);
    if (r <= (F)std::numeric_limits<D>::min())
        return std::numeric_limits<D>::min();
    if (r >= (F)std::numeric_limits<D>::max())
        return std::numeric_limits<D>::max();
    return (D)r;
}
/* cvt.sat between integer types: clamped to D's range. */
template <class D, class S>
MOCCUDA_PTX D __ptx_cvt_int_sat(S v)
{
    __extension__ typedef __int128 wide;  // every value of both types, without -Wpedantic's complaint
    const wide x = (wide)v, low = (wide)std::numeric_limits<D>::min(), high = (wide)std::numeric_limits<D>::max();
    return (D)(x < low ? low : x > high ? high : x);
}
/* cvt.rni/.rzi/.rmi/.rpi between floating types of one width: rounding to an integral value. */
template <class F>
MOCCUDA_PTX F __ptx_round_integral(F v, int mode)
{
    return mode == 0 ? nearbyint(v) : mode == 1 ? trunc(v) : mode == 2 ? floor(v) : ceil(v);
}
/* double -> float rounded to odd (the float's last bit set where it is inexact): rounding that
 * to 16 bits is the correctly rounded 16-bit value of the double. */
MOCCUDA_PTX float __ptx_double_to_float_odd(double v)
{
    float f = (float)v;
    if (v != v || (double)f == v)
        return f;
    unsigned int bits = detail::float_bits(f);
    if (fabs((double)f) > fabs(v))
        bits -= 1u; /* rounded away from zero: the neighbour towards zero truncates */
    return detail::bits_float(bits | 1u);
}

/* The 16-bit floating-point types as bits: K is 0 for .f16, 1 for .bf16. */
template <int K>
MOCCUDA_PTX float __ptx_h2f(unsigned short h)
{
    return K == 0 ? detail::half_bits_to_float(h) : detail::bfloat16_bits_to_float(h);
}
template <int K>
MOCCUDA_PTX unsigned short __ptx_f2h(float f)
{
    return K == 0 ? detail::float_to_half_bits(f) : detail::float_to_bfloat16_bits(f);
}
template <int K>
MOCCUDA_PTX unsigned short __ptx_d2h(double d)
{
    return __ptx_f2h<K>(__ptx_double_to_float_odd(d));
}
/* The two 16-bit halves of a .f16x2 register: low half first (PTX's a[0:15]). */
MOCCUDA_PTX unsigned short __ptx_low_half(unsigned int x) { return (unsigned short)(x & 0xffffu); }
MOCCUDA_PTX unsigned short __ptx_high_half(unsigned int x) { return (unsigned short)(x >> 16); }
MOCCUDA_PTX unsigned int __ptx_halves(unsigned short low, unsigned short high)
{
    return (unsigned int)low | ((unsigned int)high << 16);
}
/* One operation on 16-bit values, computed in float and rounded to nearest even: float has more
 * than twice the precision plus two bits, so +, -, *, fma and the functions are rounded once. */
#define MOCCUDA_PTX_H(NAME, EXPR)                                                                   \
    template <int K>                                                                                \
    MOCCUDA_PTX unsigned short __ptx_h_##NAME(unsigned short a_)                                    \
    {                                                                                               \
        float a = __ptx_h2f<K>(a_);                                                                 \
        return __ptx_f2h<K>(EXPR);                                                                  \
    }                                                                                               \
    template <int K>                                                                                \
    MOCCUDA_PTX unsigned int __ptx_h2_##NAME(unsigned int a)                                        \
    {                                                                                               \
        return __ptx_halves(__ptx_h_##NAME<K>(__ptx_low_half(a)), __ptx_h_##NAME<K>(__ptx_high_half(a))); \
    }
#define MOCCUDA_PTX_H2(NAME, EXPR)                                                                  \
    template <int K>                                                                                \
    MOCCUDA_PTX unsigned short __ptx_h_##NAME(unsigned short a_, unsigned short b_)                 \
    {                                                                                               \
        float a = __ptx_h2f<K>(a_), b = __ptx_h2f<K>(b_);                                           \
        return __ptx_f2h<K>(EXPR);                                                                  \
    }                                                                                               \
    template <int K>                                                                                \
    MOCCUDA_PTX unsigned int __ptx_h2_##NAME(unsigned int a, unsigned int b)                        \
    {                                                                                               \
        return __ptx_halves(__ptx_h_##NAME<K>(__ptx_low_half(a), __ptx_low_half(b)),                \
                            __ptx_h_##NAME<K>(__ptx_high_half(a), __ptx_high_half(b)));             \
    }
MOCCUDA_PTX_H(ex2, exp2f(a))
MOCCUDA_PTX_H(tanh, tanhf(a))
MOCCUDA_PTX_H(sin, sinf(a))
MOCCUDA_PTX_H(cos, cosf(a))
MOCCUDA_PTX_H(lg2, log2f(a))
MOCCUDA_PTX_H(rcp, 1.0f / a)
MOCCUDA_PTX_H(sqrt, sqrtf(a))
MOCCUDA_PTX_H(rsqrt, 1.0f / sqrtf(a))
MOCCUDA_PTX_H(relu, a > 0.0f || a != a ? a : 0.0f)
MOCCUDA_PTX_H2(add, a + b)
MOCCUDA_PTX_H2(sub, a - b)
MOCCUDA_PTX_H2(mul, a * b)
MOCCUDA_PTX_H2(min, __ptx_fmin(a, b))
MOCCUDA_PTX_H2(max, __ptx_fmax(a, b))
#undef MOCCUDA_PTX_H
#undef MOCCUDA_PTX_H2
template <int K>
MOCCUDA_PTX unsigned short __ptx_h_fma(unsigned short a, unsigned short b, unsigned short c)
{
    return __ptx_f2h<K>(fmaf(__ptx_h2f<K>(a), __ptx_h2f<K>(b), __ptx_h2f<K>(c)));
}
template <int K>
MOCCUDA_PTX unsigned int __ptx_h2_fma(unsigned int a, unsigned int b, unsigned int c)
{
    return __ptx_halves(__ptx_h_fma<K>(__ptx_low_half(a), __ptx_low_half(b), __ptx_low_half(c)),
                        __ptx_h_fma<K>(__ptx_high_half(a), __ptx_high_half(b), __ptx_high_half(c)));
}
/* neg and abs change only the sign bit, also of a NaN. */
MOCCUDA_PTX unsigned short __ptx_h_neg(unsigned short a) { return (unsigned short)(a ^ 0x8000u); }
MOCCUDA_PTX unsigned int __ptx_h2_neg(unsigned int a) { return a ^ 0x80008000u; }
MOCCUDA_PTX unsigned short __ptx_h_abs(unsigned short a) { return (unsigned short)(a & 0x7fffu); }
MOCCUDA_PTX unsigned int __ptx_h2_abs(unsigned int a) { return a & 0x7fff7fffu; }

/* ---------------------------------------------------------------- memory */

/* cp.async: `cp_size` bytes to dst, the first `src_size` of them from src and the rest zeros.  A
 * CPU copies at once; the copy is complete when cp.async.wait_group asks. */
inline void __ptx_copy(void *dst, const void *src, unsigned int cp_size, unsigned int src_size)
{
    unsigned int n = src_size < cp_size ? src_size : cp_size;
    __builtin_memcpy(dst, src, n);
    __builtin_memset((char *)dst + n, 0, cp_size - n);
}

}  // namespace moccuda

/* CUDA's conversions to and from the addresses of the state spaces (size_t, as CUDA declares
 * them; a window address fits 32 bits). */
inline size_t __cvta_generic_to_shared(const void *p) { return moccuda::__ptx_window_address(p); }
inline size_t __cvta_generic_to_local(const void *p) { return moccuda::__ptx_window_address(p); }
inline size_t __cvta_generic_to_constant(const void *p) { return moccuda::__ptx_window_address(p); }
inline size_t __cvta_generic_to_global(const void *p) { return (size_t)p; }
inline void *__cvta_shared_to_generic(size_t a) { return moccuda::__ptx_window_pointer(a); }
inline void *__cvta_local_to_generic(size_t a) { return moccuda::__ptx_window_pointer(a); }
inline void *__cvta_constant_to_generic(size_t a) { return moccuda::__ptx_window_pointer(a); }
inline void *__cvta_global_to_generic(size_t a) { return (void *)a; }

#undef MOCCUDA_PTX
#endif /* __CUDA2CPU_PARSE__ */
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_PTX_H */
