/* The SIMD loops measured, compiled once per x86-64 vector ISA (ISA = b, c, d or e, with the
 * flags benchmarks/device_math_accuracy.py gives): gcc calls libmvec's variant of that ISA (and
 * narrower ones for a remainder) through declarations of the C functions `omp declare simd`, as
 * the translated programs do. */
#include <math.h>
#include <stddef.h>

#include "functions.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

namespace libmvec {
#define DECLARE_UNARY(name)                                                                         \
    _Pragma("omp declare simd notinbranch") float name##f(float) noexcept __asm__(#name "f");      \
    _Pragma("omp declare simd notinbranch") double name(double) noexcept __asm__(#name);
#define DECLARE_BINARY(name)                                                                        \
    _Pragma("omp declare simd notinbranch") float name##f(float, float) noexcept __asm__(#name "f"); \
    _Pragma("omp declare simd notinbranch") double name(double, double) noexcept __asm__(#name);
LIBMVEC_UNARY(DECLARE_UNARY)
LIBMVEC_BINARY(DECLARE_BINARY)
}  // namespace libmvec

#define DEFINE_UNARY(name)                                                                          \
    void CAT(libmvec_##name##f_, ISA)(const float *x, float *y, size_t n)                           \
    {                                                                                               \
        _Pragma("omp simd") for (size_t i = 0; i < n; i++) y[i] = libmvec::name##f(x[i]);           \
    }                                                                                               \
    void CAT(libmvec_##name##_, ISA)(const double *x, double *y, size_t n)                          \
    {                                                                                               \
        _Pragma("omp simd") for (size_t i = 0; i < n; i++) y[i] = libmvec::name(x[i]);              \
    }
#define DEFINE_BINARY(name)                                                                         \
    void CAT(libmvec_##name##f_, ISA)(const float *x, const float *z, float *y, size_t n)           \
    {                                                                                               \
        _Pragma("omp simd") for (size_t i = 0; i < n; i++) y[i] = libmvec::name##f(x[i], z[i]);     \
    }                                                                                               \
    void CAT(libmvec_##name##_, ISA)(const double *x, const double *z, double *y, size_t n)         \
    {                                                                                               \
        _Pragma("omp simd") for (size_t i = 0; i < n; i++) y[i] = libmvec::name(x[i], z[i]);        \
    }
LIBMVEC_UNARY(DEFINE_UNARY)
LIBMVEC_BINARY(DEFINE_BINARY)
