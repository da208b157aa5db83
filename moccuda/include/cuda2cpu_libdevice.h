/* MocCUDA, parse mode only: the C library functions CUDA lets device code call.
 *
 * The system headers declare sqrtf, printf, malloc, ... as host functions, which clang (in CUDA
 * mode) refuses to call from device code.  Clang lets a __device__ function overload a host
 * function of the same signature, so these declarations give device code its own overloads, as
 * CUDA's headers do.  They must come before any system header: <cmath> copies ::sqrt and friends
 * into std with using-declarations, which see only the overloads declared by then.
 *
 * Only declarations: parse mode never generates code.  CUDA's own extensions (rsqrtf, sinpif,
 * normf, ...) are defined for both modes in cuda2cpu_math.h.
 */
#ifndef MOCCUDA_CUDA2CPU_LIBDEVICE_H
#define MOCCUDA_CUDA2CPU_LIBDEVICE_H
#if defined(__CUDA2CPU_PARSE__) && defined(__cplusplus)

/* name(double) and namef(float), and the like for two and three arguments. */
#define MOCCUDA_DEVICE_MATH_1(name) __device__ double name(double); __device__ float name##f(float);
#define MOCCUDA_DEVICE_MATH_2(name) \
    __device__ double name(double, double); __device__ float name##f(float, float);
#define MOCCUDA_DEVICE_MATH_3(name) \
    __device__ double name(double, double, double); __device__ float name##f(float, float, float);

extern "C" {
MOCCUDA_DEVICE_MATH_1(acos) MOCCUDA_DEVICE_MATH_1(acosh) MOCCUDA_DEVICE_MATH_1(asin)
MOCCUDA_DEVICE_MATH_1(asinh) MOCCUDA_DEVICE_MATH_1(atan) MOCCUDA_DEVICE_MATH_1(atanh)
MOCCUDA_DEVICE_MATH_1(cbrt) MOCCUDA_DEVICE_MATH_1(ceil) MOCCUDA_DEVICE_MATH_1(cos)
MOCCUDA_DEVICE_MATH_1(cosh) MOCCUDA_DEVICE_MATH_1(erf) MOCCUDA_DEVICE_MATH_1(erfc)
MOCCUDA_DEVICE_MATH_1(exp) MOCCUDA_DEVICE_MATH_1(exp2) MOCCUDA_DEVICE_MATH_1(exp10)
MOCCUDA_DEVICE_MATH_1(expm1) MOCCUDA_DEVICE_MATH_1(fabs) MOCCUDA_DEVICE_MATH_1(floor)
MOCCUDA_DEVICE_MATH_1(j0) MOCCUDA_DEVICE_MATH_1(j1) MOCCUDA_DEVICE_MATH_1(lgamma)
MOCCUDA_DEVICE_MATH_1(log) MOCCUDA_DEVICE_MATH_1(log10) MOCCUDA_DEVICE_MATH_1(log1p)
MOCCUDA_DEVICE_MATH_1(log2) MOCCUDA_DEVICE_MATH_1(logb) MOCCUDA_DEVICE_MATH_1(nearbyint)
MOCCUDA_DEVICE_MATH_1(rint) MOCCUDA_DEVICE_MATH_1(round) MOCCUDA_DEVICE_MATH_1(sin)
MOCCUDA_DEVICE_MATH_1(sinh) MOCCUDA_DEVICE_MATH_1(sqrt) MOCCUDA_DEVICE_MATH_1(tan)
MOCCUDA_DEVICE_MATH_1(tanh) MOCCUDA_DEVICE_MATH_1(tgamma) MOCCUDA_DEVICE_MATH_1(trunc)
MOCCUDA_DEVICE_MATH_1(y0) MOCCUDA_DEVICE_MATH_1(y1)
MOCCUDA_DEVICE_MATH_2(atan2) MOCCUDA_DEVICE_MATH_2(copysign) MOCCUDA_DEVICE_MATH_2(fdim)
MOCCUDA_DEVICE_MATH_2(fmax) MOCCUDA_DEVICE_MATH_2(fmin) MOCCUDA_DEVICE_MATH_2(fmod)
MOCCUDA_DEVICE_MATH_2(hypot) MOCCUDA_DEVICE_MATH_2(nextafter) MOCCUDA_DEVICE_MATH_2(pow)
MOCCUDA_DEVICE_MATH_2(remainder)
MOCCUDA_DEVICE_MATH_3(fma)

__device__ double frexp(double, int *); __device__ float frexpf(float, int *);
__device__ double ldexp(double, int); __device__ float ldexpf(float, int);
__device__ double modf(double, double *); __device__ float modff(float, float *);
__device__ double remquo(double, double, int *); __device__ float remquof(float, float, int *);
__device__ double scalbn(double, int); __device__ float scalbnf(float, int);
__device__ double scalbln(double, long); __device__ float scalblnf(float, long);
__device__ int ilogb(double); __device__ int ilogbf(float);
__device__ long lrint(double); __device__ long lrintf(float);
__device__ long long llrint(double); __device__ long long llrintf(float);
__device__ long lround(double); __device__ long lroundf(float);
__device__ long long llround(double); __device__ long long llroundf(float);
__device__ double nan(const char *); __device__ float nanf(const char *);
__device__ double jn(int, double); __device__ float jnf(int, float);
__device__ double yn(int, double); __device__ float ynf(int, float);
__device__ void sincos(double, double *, double *); __device__ void sincosf(float, float *, float *);
__device__ int abs(int); __device__ long labs(long); __device__ long long llabs(long long);

/* CUDA's fast single-precision intrinsics.  The C library declares these names (but does not
 * define them); in compile mode cuda2cpu_math.h defines them. */
__device__ float __expf(float); __device__ float __exp10f(float); __device__ float __logf(float);
__device__ float __log2f(float); __device__ float __log10f(float); __device__ float __sinf(float);
__device__ float __cosf(float); __device__ float __tanf(float); __device__ float __powf(float, float);
__device__ void __sincosf(float, float *, float *);

__device__ int printf(const char *, ...);
__device__ void *malloc(__SIZE_TYPE__);
__device__ void free(void *);
__device__ void *memcpy(void *, const void *, __SIZE_TYPE__);
__device__ void *memset(void *, int, __SIZE_TYPE__);
__device__ long clock(void);
/* What assert() calls (glibc). */
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *);
}

#undef MOCCUDA_DEVICE_MATH_1
#undef MOCCUDA_DEVICE_MATH_2
#undef MOCCUDA_DEVICE_MATH_3

#endif
#endif /* MOCCUDA_CUDA2CPU_LIBDEVICE_H */
