// cuda_fp8.h's conversions checked against the formats' definitions (OCP FP8, as CUDA names them):
// E4M3 = 4 exponent bits (bias 7), 3 mantissa bits, no infinity, S.1111.111 NaN, max 448;
// E5M2 = 5 exponent bits (bias 15), 2 mantissa bits, S.11111.00 infinity, S.11111.xx NaN, max 57344.
// The reference here enumerates each format's values from that definition and rounds by searching
// the nearest of them (a tie to the even code); the header computes.  All 256 codes both ways, the
// round trip from float, double, __half and __nv_bfloat16, every midpoint and its neighbours,
// saturation and overflow in both modes, the classes, and the same conversions in a kernel.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_fp8.h>
#include <vector>

static int failures = 0;
static void fail(const char *what, double x, int got, int expected) {
  if (failures++ < 20) printf("FAIL %s: %.17g gives 0x%02x, expected 0x%02x\n", what, x, got, expected);
}

struct Reference {
  __nv_fp8_interpretation_t kind;
  int mantissa_bits, bias;
  double max_finite;
  double value[256];  // NaN for NaN codes
  bool is_nan(int code) const { return std::isnan(value[code]); }
};

// The value of every code, from the definition.
static Reference reference(__nv_fp8_interpretation_t kind) {
  Reference r;
  r.kind = kind;
  r.mantissa_bits = kind == __NV_E4M3 ? 3 : 2;
  r.bias = kind == __NV_E4M3 ? 7 : 15;
  r.max_finite = kind == __NV_E4M3 ? 448.0 : 57344.0;
  const int exponent_bits = 7 - r.mantissa_bits, m = r.mantissa_bits;
  for (int code = 0; code < 256; code++) {
    int sign = code >> 7, e = (code >> m) & ((1 << exponent_bits) - 1), f = code & ((1 << m) - 1);
    double v;
    if (kind == __NV_E4M3 && (code & 0x7f) == 0x7f) v = NAN;
    else if (kind == __NV_E5M2 && e == 31) v = f ? NAN : INFINITY;
    else if (e == 0) v = f * std::pow(2.0, 1 - r.bias - m);  // subnormal
    else v = (1.0 + f / std::pow(2.0, m)) * std::pow(2.0, e - r.bias);
    r.value[code] = sign ? -v : v;
  }
  return r;
}

// Round to nearest, ties to the even code, by search; out of range per the saturation mode.
static int nearest(const Reference &r, double x, __nv_saturation_t sat) {
  int sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return -1;  // any NaN code
  double a = std::fabs(x);
  // Beyond the largest finite value by half a step of its binade or more (RNE toward a next
  // value the format does not have): overflow.  E4M3's step at 448 is 32, E5M2's at 57344 8192.
  double step = r.kind == __NV_E4M3 ? 32.0 : 8192.0;
  double limit = r.max_finite + step / 2;
  bool overflow = a > limit || (a == limit && r.kind == __NV_E5M2);  // E4M3's tie goes to 448 (even)
  if (overflow) {
    if (sat == __NV_SATFINITE) return sign | (r.kind == __NV_E4M3 ? 0x7e : 0x7b);
    return r.kind == __NV_E5M2 ? (sign | 0x7c) : -1;  // E4M3: NaN
  }
  int best = 0;
  for (int code = 1; code < 128; code++) {
    if (r.is_nan(code) || std::isinf(r.value[code])) continue;
    double d = std::fabs(r.value[code] - a), b = std::fabs(r.value[best] - a);
    if (d < b || (d == b && (code & 1) == 0)) best = code;
  }
  return sign | best;
}

static bool decodes_as_nan(int code, __nv_fp8_interpretation_t kind) {
  __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, kind);
  return (h.x & 0x7c00) == 0x7c00 && (h.x & 0x03ff) != 0;
}

static void check_encoding(const Reference &r, double x, const char *what) {
  for (__nv_saturation_t sat : {__NV_NOSAT, __NV_SATFINITE}) {
    int expected = nearest(r, x, sat);
    int got = __nv_cvt_double_to_fp8(x, sat, r.kind);
    if (expected < 0 ? !decodes_as_nan(got, r.kind) : got != expected) fail(what, x, got, expected);
    if ((double)(float)x == x) {
      int from_float = __nv_cvt_float_to_fp8((float)x, sat, r.kind);
      if (from_float != got) fail("float source", x, from_float, got);
    }
  }
}

// Kernel: each thread converts its float, stages the code in shared memory, and after the barrier
// widens its neighbour's code.
__global__ void neighbours(const float *in, float *out, unsigned char *codes, int n, __nv_fp8_interpretation_t kind) {
  __shared__ __nv_fp8_storage_t staged[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) staged[threadIdx.x] = __nv_cvt_float_to_fp8(in[i], __NV_SATFINITE, kind);
  __syncthreads();
  if (i < n) {
    __nv_fp8_storage_t code = staged[threadIdx.x ^ 1];
    codes[i] = code;
    out[i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(code, kind)));
  }
}

int main() {
  for (__nv_fp8_interpretation_t kind : {__NV_E4M3, __NV_E5M2}) {
    const char *name = kind == __NV_E4M3 ? "E4M3" : "E5M2";
    Reference r = reference(kind);

    // All 256 codes to __half (and through it float): the definition's value, or NaN.
    int nans = 0;
    for (int code = 0; code < 256; code++) {
      __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, kind);
      float v = __half2float(__half(h));
      if (r.is_nan(code)) {
        nans++;
        if (!std::isnan(v)) fail("NaN code to half", code, (int)h.x, -1);
      } else if (v != r.value[code] || std::signbit(v) != std::signbit(r.value[code])) {
        fail(name, code, (int)h.x, -1);
      }
    }
    if (nans != (kind == __NV_E4M3 ? 2 : 6)) fail("NaN codes", 0, nans, 0);

    // Every value back to its own code, from each source type (the round trip).
    for (int code = 0; code < 256; code++) {
      if (r.is_nan(code)) continue;
      double v = r.value[code];
      for (__nv_saturation_t sat : {__NV_NOSAT, __NV_SATFINITE}) {
        int expected = std::isinf(v) && sat == __NV_SATFINITE ? (code & 0x80) | 0x7b : code;
        if (__nv_cvt_double_to_fp8(v, sat, kind) != expected) fail("double round trip", v, __nv_cvt_double_to_fp8(v, sat, kind), expected);
        if (__nv_cvt_float_to_fp8((float)v, sat, kind) != expected) fail("float round trip", v, __nv_cvt_float_to_fp8((float)v, sat, kind), expected);
        __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, kind);
        if (__nv_cvt_halfraw_to_fp8(h, sat, kind) != expected) fail("half round trip", v, __nv_cvt_halfraw_to_fp8(h, sat, kind), expected);
        __nv_bfloat16 b = __float2bfloat16((float)v);
        if (__nv_cvt_bfloat16raw_to_fp8((__nv_bfloat16_raw)b, sat, kind) != expected) fail("bfloat16 round trip", v, 0, expected);
      }
    }

    // Rounding: every pair of neighbours (zero, subnormals, normals, both signs), their
    // midpoint and the doubles either side of it.
    std::vector<double> values;
    for (int code = 0; code < 128; code++)
      if (!r.is_nan(code) && !std::isinf(r.value[code])) values.push_back(r.value[code]);
    for (size_t k = 0; k + 1 < values.size(); k++) {
      double a = values[k], b = values[k + 1], mid = (a + b) / 2;
      for (double x : {a, mid, std::nextafter(mid, a), std::nextafter(mid, b), b, (a + mid) / 2, (mid + b) / 2})
        for (double s : {1.0, -1.0}) check_encoding(r, s * x, name);
    }
    // Above the largest value: the tie, either side of it, far beyond, infinity; tiny values.
    double step = kind == __NV_E4M3 ? 32.0 : 8192.0, limit = r.max_finite + step / 2;
    for (double x : {r.max_finite, limit, std::nextafter(limit, 0.0), std::nextafter(limit, 1e300), 1e6, 1e300,
                     (double)INFINITY, 1e-30, 0.0, std::pow(2.0, 1 - r.bias - r.mantissa_bits) / 2})
      for (double s : {1.0, -1.0}) check_encoding(r, s * x, name);
    // Pseudo-random doubles over the whole range (a fixed generator).
    unsigned long long state = 88172645463325252ull;
    for (int k = 0; k < 200000; k++) {
      state ^= state << 13; state ^= state >> 7; state ^= state << 17;
      double x = std::ldexp((double)(state >> 11) / 9007199254740992.0, (int)(state % 48) - 30);
      check_encoding(r, (state & 1) ? -x : x, name);
    }
    // NaN stays NaN, in both modes and from every source.
    for (__nv_saturation_t sat : {__NV_NOSAT, __NV_SATFINITE}) {
      if (!decodes_as_nan(__nv_cvt_float_to_fp8(NAN, sat, kind), kind)) fail("NaN", 0, 0, 0);
      if (!decodes_as_nan(__nv_cvt_double_to_fp8(-NAN, sat, kind), kind)) fail("-NaN", 0, 0, 0);
      if (!decodes_as_nan(__nv_cvt_halfraw_to_fp8(__half_raw{0x7e00}, sat, kind), kind)) fail("half NaN", 0, 0, 0);
    }
  }

  // The classes: __NV_SATFINITE constructors, conversions, packing order.
  __nv_fp8_e4m3 big(1000.0f), small(-3.75f), nan_e4m3(NAN);
  __nv_fp8_e5m2 inf_e5m2(INFINITY), half_e5m2(__float2half(0.375f));
  if (big.__x != 0x7e || (float)big != 448.0f) fail("e4m3(1000)", 1000, big.__x, 0x7e);
  if (inf_e5m2.__x != 0x7b) fail("e5m2(inf) saturates", INFINITY, inf_e5m2.__x, 0x7b);
  if ((int)small != -3 || (unsigned char)small != 0 || (signed char)small != -3) fail("e4m3 to integers", -3.75, (int)small, -3);
  if ((int)nan_e4m3 != 0 || !(bool)nan_e4m3 || (bool)__nv_fp8_e4m3(-0.0f)) fail("e4m3 NaN and zero", 0, (int)nan_e4m3, 0);
  __nv_fp8_e5m2 e5_inf;
  e5_inf.__x = 0x7c;
  if ((int)e5_inf != 2147483647 || (short)__nv_fp8_e5m2(-57344.0) != -32768) fail("e5m2 saturating integers", 0, 0, 0);
  if ((float)half_e5m2 != 0.375f || (double)__nv_fp8_e4m3(7) != 7.0 || (float)__nv_fp8_e4m3(17u) != 16.0f)
    fail("e5m2/e4m3 values", 0, 0, 0);
  __nv_fp8x2_e4m3 pair(make_float2(1.0f, -2.0f));
  float2 back = (float2)pair;
  if (pair.__x != (0x38 | 0xc0 << 8) || back.x != 1.0f || back.y != -2.0f) fail("x2 order", 0, pair.__x, 0x38 | 0xc0 << 8);
  __nv_fp8x4_e5m2 four(make_float4(1.0f, 2.0f, 3.0f, 1e9f));
  float4 f4 = (float4)four;
  if (four.__x != (0x3cu | 0x40u << 8 | 0x42u << 16 | 0x7bu << 24) || f4.z != 3.0f || f4.w != 57344.0f)
    fail("x4 order and saturation", 0, (int)four.__x, 0);

  // The same conversions in device code.
  const int n = 1000;
  std::vector<float> in(n), out(n);
  std::vector<unsigned char> codes(n);
  for (int i = 0; i < n; i++) in[i] = (i - 500) * 0.37f * (i % 7 + 1);
  float *d_in, *d_out;
  unsigned char *d_codes;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_codes, n);
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  for (__nv_fp8_interpretation_t kind : {__NV_E4M3, __NV_E5M2}) {
    neighbours<<<(n + 127) / 128, 128>>>(d_in, d_out, d_codes, n, kind);
    cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(codes.data(), d_codes, n, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
      int expected = __nv_cvt_float_to_fp8(in[i ^ 1], __NV_SATFINITE, kind);  // n is even
      if (codes[i] != expected) fail("kernel code", in[i ^ 1], codes[i], expected);
      if (out[i] != (float)reference(kind).value[expected]) fail("kernel value", in[i ^ 1], codes[i], expected);
    }
  }
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
