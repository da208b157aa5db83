/* MocCUDA: moccuda::device_math, the C library's math functions as device code calls them.
 *
 * cuda2cpu prints device code's calls of erf, expf, std::sin, ... as calls of the functions of the
 * same C name here: moccuda::device_math::erff for std::erf on a float, ::erf on a double
 * moccuda::device_math::erf; in a template, on arguments of dependent type,
 * moccuda::device_math::cmath::erf, whose overloads resolve as <cmath>'s do.  Host code keeps the
 * plain names.
 *
 * Why: gcc vectorizes a call in a SIMD loop only through a function declared `omp declare simd`;
 * a kernel's thread loop that calls erff stays scalar, each call costing 4-15 ns.  Each function
 * here is the C library's own (the same symbol, by its assembler name), declared `omp declare simd`
 * where glibc's libmvec (x86-64, glibc 2.22 and 2.35) has variants of it within CUDA's error bound
 * for the vector ISA the build targets: a SIMD thread loop then calls a variant for 4 (SSE) to 16
 * (AVX-512) lanes at once, and code that stays scalar calls the C library's function as before.
 * Declaring the C names themselves so would send host loops through the variants too (gcc uses
 * them in any loop it vectorizes, and their results differ from the scalar functions' by a few
 * ulps).  docs/PERFORMANCE.md ("Device math") has the measured errors; the float exponentials and
 * logarithms (3-4 ulps where CUDA's bound is 1-2) and most double functions are beyond it.
 *
 * Compile mode only: the front end parses the calls as written.
 */
#ifndef MOCCUDA_CUDA2CPU_DEVICE_MATH_H
#define MOCCUDA_CUDA2CPU_DEVICE_MATH_H
#if defined(__cplusplus) && !defined(__CUDA2CPU_PARSE__)

#include <math.h>

#include <cmath>

/* The functions libmvec has, as F(name, glibc, isa): `name` the C name, `glibc` the minor version
 * of glibc 2 whose libmvec has its variants, `isa` the widest x86-64 vector ISA up to which every
 * variant is within CUDA's bound (1 SSE2, 2 AVX, 3 AVX2, 4 AVX-512; 0: none is).  gcc calls the
 * variant of the ISA it compiles for and narrower ones for a loop's remainder, so the level is
 * where the first variant beyond the bound starts.  Measured with benchmarks/device_math_accuracy.py
 * against more precise values: a float function's largest error up to CUDA's bound + 0.5 ulp (its
 * bound is against the correctly rounded value, ours against the exact one); a double function's,
 * from random arguments only, up to the bound itself. */
#define MOCCUDA_LIBMVEC_FLOAT_UNARY(F)                                                              \
    F(acosf, 35, 4) F(acoshf, 35, 4) F(asinf, 35, 4) F(asinhf, 35, 4) F(atanf, 35, 0)               \
    F(atanhf, 35, 4) F(cbrtf, 35, 0) F(cosf, 22, 4) F(coshf, 35, 4) F(erff, 35, 3) F(erfcf, 35, 4)  \
    F(expf, 22, 0) F(exp10f, 35, 3) F(exp2f, 35, 4) F(expm1f, 35, 0) F(logf, 22, 0) F(log10f, 35, 0) \
    F(log1pf, 35, 4) F(log2f, 35, 0) F(sinf, 22, 4) F(sinhf, 35, 4) F(tanf, 35, 4) F(tanhf, 35, 4)
#define MOCCUDA_LIBMVEC_FLOAT_BINARY(F) F(atan2f, 35, 4) F(hypotf, 35, 4) F(powf, 22, 4)
#define MOCCUDA_LIBMVEC_DOUBLE_UNARY(F)                                                             \
    F(acos, 35, 0) F(acosh, 35, 0) F(asin, 35, 0) F(asinh, 35, 0) F(atan, 35, 4) F(atanh, 35, 4)    \
    F(cbrt, 35, 0) F(cos, 22, 0) F(cosh, 35, 0) F(erf, 35, 0) F(erfc, 35, 4) F(exp, 22, 0)          \
    F(exp10, 35, 0) F(exp2, 35, 0) F(expm1, 35, 0) F(log, 22, 0) F(log10, 35, 0) F(log1p, 35, 0)    \
    F(log2, 35, 0) F(sin, 22, 0) F(sinh, 35, 0) F(tan, 35, 0) F(tanh, 35, 0)
#define MOCCUDA_LIBMVEC_DOUBLE_BINARY(F) F(atan2, 35, 0) F(hypot, 35, 4) F(pow, 22, 4)
/* <cmath>'s overloaded names (every name above but exp10, a GNU function of double only). */
#define MOCCUDA_CMATH_UNARY(F)                                                                      \
    F(acos) F(acosh) F(asin) F(asinh) F(atan) F(atanh) F(cbrt) F(cos) F(cosh) F(erf) F(erfc) F(exp) \
    F(exp2) F(expm1) F(log) F(log10) F(log1p) F(log2) F(sin) F(sinh) F(tan) F(tanh)
#define MOCCUDA_CMATH_BINARY(F) F(atan2) F(hypot) F(pow)

/* MOCCUDA_LIBMVEC_ISA: the vector ISA of the build (1-4, as above) where gcc calls libmvec's
 * variants of functions declared `omp declare simd`: x86-64 with glibc 2.22 or later, OpenMP on;
 * 0 elsewhere (AArch64's libmvec came with glibc 2.38, with other functions; clang maps the
 * declarations its own way), where the functions here call the C library's as they are. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && defined(_OPENMP)
#if __GLIBC_PREREQ(2, 22)
#if defined(__AVX512F__)
#define MOCCUDA_LIBMVEC_ISA 4
#elif defined(__AVX2__)
#define MOCCUDA_LIBMVEC_ISA 3
#elif defined(__AVX__)
#define MOCCUDA_LIBMVEC_ISA 2
#else
#define MOCCUDA_LIBMVEC_ISA 1
#endif
#endif
#endif
#ifndef MOCCUDA_LIBMVEC_ISA
#define MOCCUDA_LIBMVEC_ISA 0
#endif

/* MOCCUDA_SIMD_<isa>_<glibc>: `omp declare simd` for a function of the table whose variants are
 * within the bound up to `isa` and came with glibc 2.<glibc>, where the build's ISA and glibc have
 * them; nothing otherwise. */
#define MOCCUDA_DECLARE_SIMD _Pragma("omp declare simd notinbranch")
#define MOCCUDA_SIMD_0_22
#if MOCCUDA_LIBMVEC_ISA >= 1 && MOCCUDA_LIBMVEC_ISA <= 1
#define MOCCUDA_SIMD_1_22 MOCCUDA_DECLARE_SIMD
#else
#define MOCCUDA_SIMD_1_22
#endif
#if MOCCUDA_LIBMVEC_ISA >= 1 && MOCCUDA_LIBMVEC_ISA <= 2
#define MOCCUDA_SIMD_2_22 MOCCUDA_DECLARE_SIMD
#else
#define MOCCUDA_SIMD_2_22
#endif
#if MOCCUDA_LIBMVEC_ISA >= 1 && MOCCUDA_LIBMVEC_ISA <= 3
#define MOCCUDA_SIMD_3_22 MOCCUDA_DECLARE_SIMD
#else
#define MOCCUDA_SIMD_3_22
#endif
#if MOCCUDA_LIBMVEC_ISA >= 1 && MOCCUDA_LIBMVEC_ISA <= 4
#define MOCCUDA_SIMD_4_22 MOCCUDA_DECLARE_SIMD
#else
#define MOCCUDA_SIMD_4_22
#endif
#define MOCCUDA_SIMD_0_35
#if MOCCUDA_LIBMVEC_ISA >= 1 && __GLIBC_PREREQ(2, 35)
#define MOCCUDA_SIMD_1_35 MOCCUDA_SIMD_1_22
#define MOCCUDA_SIMD_2_35 MOCCUDA_SIMD_2_22
#define MOCCUDA_SIMD_3_35 MOCCUDA_SIMD_3_22
#define MOCCUDA_SIMD_4_35 MOCCUDA_SIMD_4_22
#else
#define MOCCUDA_SIMD_1_35
#define MOCCUDA_SIMD_2_35
#define MOCCUDA_SIMD_3_35
#define MOCCUDA_SIMD_4_35
#endif

namespace moccuda {
namespace device_math {

/* ---- the C library's functions ----
 * With libmvec, each is the C library's function by its assembler name, declared `const` (device
 * code has no errno) and `omp declare simd` where its variants are within the bound; elsewhere an
 * inline call of it. */
#if MOCCUDA_LIBMVEC_ISA
#define MOCCUDA_LIBMVEC_FUNCTION(R, name, glibc, isa, parameters, arguments)                        \
    MOCCUDA_SIMD_##isa##_##glibc R name parameters noexcept __asm__(#name) __attribute__((__const__));
#else
#define MOCCUDA_LIBMVEC_FUNCTION(R, name, glibc, isa, parameters, arguments)                        \
    inline R name parameters noexcept { return ::name arguments; }
#endif
#define MOCCUDA_FLOAT_UNARY(name, glibc, isa) MOCCUDA_LIBMVEC_FUNCTION(float, name, glibc, isa, (float x), (x))
#define MOCCUDA_FLOAT_BINARY(name, glibc, isa)                                                     \
    MOCCUDA_LIBMVEC_FUNCTION(float, name, glibc, isa, (float x, float y), (x, y))
#define MOCCUDA_DOUBLE_UNARY(name, glibc, isa) MOCCUDA_LIBMVEC_FUNCTION(double, name, glibc, isa, (double x), (x))
#define MOCCUDA_DOUBLE_BINARY(name, glibc, isa)                                                    \
    MOCCUDA_LIBMVEC_FUNCTION(double, name, glibc, isa, (double x, double y), (x, y))
MOCCUDA_LIBMVEC_FLOAT_UNARY(MOCCUDA_FLOAT_UNARY)
MOCCUDA_LIBMVEC_FLOAT_BINARY(MOCCUDA_FLOAT_BINARY)
MOCCUDA_LIBMVEC_DOUBLE_UNARY(MOCCUDA_DOUBLE_UNARY)
MOCCUDA_LIBMVEC_DOUBLE_BINARY(MOCCUDA_DOUBLE_BINARY)
#undef MOCCUDA_FLOAT_UNARY
#undef MOCCUDA_FLOAT_BINARY
#undef MOCCUDA_DOUBLE_UNARY
#undef MOCCUDA_DOUBLE_BINARY
#undef MOCCUDA_LIBMVEC_FUNCTION

/* ---- <cmath>'s overloads, for calls on arguments of dependent type ----
 * name(float) and name(double) are the functions above; name(T), for any other argument (an
 * integer, a long double, a class with its own overload found by argument-dependent lookup), is
 * what the unqualified call as written finds.  A non-template function wins over the template
 * where both match exactly, so a float or double argument takes the first two. */
namespace cmath_lookup {
#define MOCCUDA_LOOKUP_UNARY(name)                                                                  \
    using std::name;                                                                                \
    template <class T>                                                                              \
    inline auto call_##name(T x) -> decltype(name(x))                                               \
    {                                                                                               \
        return name(x);                                                                             \
    }
#define MOCCUDA_LOOKUP_BINARY(name)                                                                 \
    using std::name;                                                                                \
    template <class T, class U>                                                                     \
    inline auto call_##name(T x, U y) -> decltype(name(x, y))                                       \
    {                                                                                               \
        return name(x, y);                                                                          \
    }
MOCCUDA_CMATH_UNARY(MOCCUDA_LOOKUP_UNARY)
MOCCUDA_CMATH_BINARY(MOCCUDA_LOOKUP_BINARY)
#undef MOCCUDA_LOOKUP_UNARY
#undef MOCCUDA_LOOKUP_BINARY
}  // namespace cmath_lookup

namespace cmath {
#define MOCCUDA_CMATH_UNARY_OVERLOADS(name)                                                         \
    inline float name(float x) noexcept { return ::moccuda::device_math::name##f(x); }              \
    inline double name(double x) noexcept { return ::moccuda::device_math::name(x); }               \
    template <class T>                                                                              \
    inline auto name(T x) -> decltype(::moccuda::device_math::cmath_lookup::call_##name(x))         \
    {                                                                                               \
        return ::moccuda::device_math::cmath_lookup::call_##name(x);                                \
    }
#define MOCCUDA_CMATH_BINARY_OVERLOADS(name)                                                        \
    inline float name(float x, float y) noexcept { return ::moccuda::device_math::name##f(x, y); }  \
    inline double name(double x, double y) noexcept { return ::moccuda::device_math::name(x, y); }  \
    template <class T, class U>                                                                     \
    inline auto name(T x, U y) -> decltype(::moccuda::device_math::cmath_lookup::call_##name(x, y)) \
    {                                                                                               \
        return ::moccuda::device_math::cmath_lookup::call_##name(x, y);                             \
    }
MOCCUDA_CMATH_UNARY(MOCCUDA_CMATH_UNARY_OVERLOADS)
MOCCUDA_CMATH_BINARY(MOCCUDA_CMATH_BINARY_OVERLOADS)
#undef MOCCUDA_CMATH_UNARY_OVERLOADS
#undef MOCCUDA_CMATH_BINARY_OVERLOADS
}  // namespace cmath

}  // namespace device_math
}  // namespace moccuda

#endif /* __cplusplus && !__CUDA2CPU_PARSE__ */
#endif /* MOCCUDA_CUDA2CPU_DEVICE_MATH_H */
