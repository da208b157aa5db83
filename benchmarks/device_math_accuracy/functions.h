/* The functions measured: glibc's libmvec functions, by the C name of the double one (X(name)
 * measures name##f and name). */
#define LIBMVEC_UNARY(X) X(acos) X(acosh) X(asin) X(asinh) X(atan) X(atanh) X(cbrt) X(cos) X(cosh) X(erf) \
    X(erfc) X(exp) X(exp10) X(exp2) X(expm1) X(log) X(log10) X(log1p) X(log2) X(sin) X(sinh) X(tan) X(tanh)
#define LIBMVEC_BINARY(X) X(atan2) X(hypot) X(pow)
