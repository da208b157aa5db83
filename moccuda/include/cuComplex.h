/* MocCUDA: cuComplex.h, CUDA's single- and double-precision complex numbers (cuFloatComplex is a
 * float2, cuDoubleComplex a double2) and their arithmetic, for host and device code.  Division
 * scales both operands by the divisor's 1-norm first, and the absolute value is hypot, so neither
 * overflows or underflows where the plain formulas would. */
#ifndef MOCCUDA_CUCOMPLEX_H
#define MOCCUDA_CUCOMPLEX_H

#include <math.h>

#include "cuda_runtime.h"

#ifndef MOCCUDA_HD
#define MOCCUDA_HD inline __host__ __device__
#endif

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* ---- float ---- */
MOCCUDA_HD float cuCrealf(cuFloatComplex x) { return x.x; }
MOCCUDA_HD float cuCimagf(cuFloatComplex x) { return x.y; }
MOCCUDA_HD cuFloatComplex make_cuFloatComplex(float r, float i) {
  cuFloatComplex z;
  z.x = r;
  z.y = i;
  return z;
}
MOCCUDA_HD cuFloatComplex cuConjf(cuFloatComplex x) { return make_cuFloatComplex(x.x, -x.y); }
MOCCUDA_HD cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) { return make_cuFloatComplex(x.x + y.x, x.y + y.y); }
MOCCUDA_HD cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) { return make_cuFloatComplex(x.x - y.x, x.y - y.y); }
MOCCUDA_HD cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
  return make_cuFloatComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
MOCCUDA_HD cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
  float scale = 1.0f / (fabsf(y.x) + fabsf(y.y));
  float xr = x.x * scale, xi = x.y * scale, yr = y.x * scale, yi = y.y * scale;
  float inverse_norm = 1.0f / (yr * yr + yi * yi);
  return make_cuFloatComplex((xr * yr + xi * yi) * inverse_norm, (xi * yr - xr * yi) * inverse_norm);
}
MOCCUDA_HD float cuCabsf(cuFloatComplex x) { return hypotf(x.x, x.y); }
MOCCUDA_HD cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
  return make_cuFloatComplex(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}
MOCCUDA_HD cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }

/* ---- double ---- */
MOCCUDA_HD double cuCreal(cuDoubleComplex x) { return x.x; }
MOCCUDA_HD double cuCimag(cuDoubleComplex x) { return x.y; }
MOCCUDA_HD cuDoubleComplex make_cuDoubleComplex(double r, double i) {
  cuDoubleComplex z;
  z.x = r;
  z.y = i;
  return z;
}
MOCCUDA_HD cuDoubleComplex cuConj(cuDoubleComplex x) { return make_cuDoubleComplex(x.x, -x.y); }
MOCCUDA_HD cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) { return make_cuDoubleComplex(x.x + y.x, x.y + y.y); }
MOCCUDA_HD cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) { return make_cuDoubleComplex(x.x - y.x, x.y - y.y); }
MOCCUDA_HD cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
  return make_cuDoubleComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
MOCCUDA_HD cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
  double scale = 1.0 / (fabs(y.x) + fabs(y.y));
  double xr = x.x * scale, xi = x.y * scale, yr = y.x * scale, yi = y.y * scale;
  double inverse_norm = 1.0 / (yr * yr + yi * yi);
  return make_cuDoubleComplex((xr * yr + xi * yi) * inverse_norm, (xi * yr - xr * yi) * inverse_norm);
}
MOCCUDA_HD double cuCabs(cuDoubleComplex x) { return hypot(x.x, x.y); }
MOCCUDA_HD cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
  return make_cuDoubleComplex(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}

/* ---- conversions ---- */
MOCCUDA_HD cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return make_cuDoubleComplex(c.x, c.y); }
MOCCUDA_HD cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return make_cuFloatComplex((float)c.x, (float)c.y); }

#endif
