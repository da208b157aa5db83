// Inline PTX in a kernel: integer, bit, compare-and-select, conversion, floating-point and
// 16-bit float instructions, special registers, guards, .reg scopes, and every way of binding
// an operand ("=r", "+r", a tied "0", "n", %[name]).  Each result is checked against the
// instruction's semantics computed on the host with plain C++.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>

#define N 96
#define RESULTS 48

__device__ __host__ int input_a(int i) { return (i * 2654435761u) ^ (i << 7); }
__device__ __host__ int input_b(int i) { return i % 5 == 0 ? 0 : (i % 3 == 0 ? -(i * 977) : i * 131 + 7); }
__device__ __host__ float input_f(int i) {
  const float specials[6] = {0.0f, -0.0f, 1e-40f, -1e-39f, NAN, 3e38f};
  return i < 6 ? specials[i] : (i - 48) * 0.37f + (i % 4) * 0.01f;
}

__global__ void instructions(unsigned *out, float *fout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  int a = input_a(i), b = input_b(i);
  unsigned ua = (unsigned)a, ub = (unsigned)b;
  float x = input_f(i), y = input_f(N - 1 - i);
  unsigned *o = out + i * RESULTS;
  float *fo = fout + i * RESULTS;

  asm("add.s32 %0, %1, %2;" : "=r"(o[0]) : "r"(a), "r"(b));                 // wraps
  asm("sub.u32 %0, %1, %2;" : "=r"(o[1]) : "r"(ua), "r"(ub));
  asm("mul.lo.s32 %0, %1, %2;" : "=r"(o[2]) : "r"(a), "r"(b));
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(o[3]) : "r"(ua), "r"(ub));
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(o[4]) : "r"(a), "r"(b));
  unsigned long long wide;
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(wide) : "r"(a), "r"(b));
  o[5] = (unsigned)wide;
  o[6] = (unsigned)(wide >> 32);
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(o[7]) : "r"(ua), "r"(ub), "r"(12345u));
  asm("div.s32 %0, %1, %2;" : "=r"(o[8]) : "r"(a), "r"(b == 0 ? 7 : b));
  asm("rem.s32 %0, %1, %2;" : "=r"(o[9]) : "r"(a), "r"(b == 0 ? 7 : b));
  asm("abs.s32 %0, %1;" : "=r"(o[10]) : "r"(i == 1 ? (int)0x80000000 : b));
  asm("min.s32 %0, %1, %2;" : "=r"(o[11]) : "r"(a), "r"(b));
  asm("max.u32 %0, %1, %2;" : "=r"(o[12]) : "r"(ua), "r"(ub));
  unsigned count = (unsigned)i % 40;                                          // up to 39: past the width
  asm("shl.b32 %0, %1, %2;" : "=r"(o[13]) : "r"(ua), "r"(count));
  asm("shr.s32 %0, %1, %2;" : "=r"(o[14]) : "r"(a), "r"(count));
  asm("shr.u32 %0, %1, %2;" : "=r"(o[15]) : "r"(ua), "r"(count));
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(o[16]) : "r"(ua), "r"((unsigned)i % 36), "r"(9u));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(o[17]) : "r"(a), "r"(3u), "r"((unsigned)i % 34));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(o[18]) : "r"(ua), "r"(ub), "r"((unsigned)i % 30), "r"(7u));
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(o[19]) : "r"(ua), "r"(ub), "r"(0x7a31u + (unsigned)i));
  asm("popc.b32 %0, %1;" : "=r"(o[20]) : "r"(ua));
  asm("clz.b32 %0, %1;" : "=r"(o[21]) : "r"(i == 2 ? 0u : ua >> (i % 32)));
  asm("brev.b32 %0, %1;" : "=r"(o[22]) : "r"(ua));
  asm("bfind.s32 %0, %1;" : "=r"(o[23]) : "r"(i == 3 ? -1 : a));
  asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(o[24]) : "r"(ua), "r"(ub), "r"(ua ^ 0x5555u));  // majority
  asm("{\n\t.reg .pred p, q;\n\tsetp.lt.s32 p|q, %1, %2;\n\tselp.u32 %0, 1, 2, p;\n"
      "\t@q add.u32 %0, %0, 10;\n}" : "=r"(o[25]) : "r"(a), "r"(b));
  asm("{ .reg .pred p; setp.lo.u32 p, %1, %2; @!p mov.u32 %0, 0xdead; @p mov.u32 %0, 0xbeef; }"
      : "=r"(o[26]) : "r"(ua), "r"(ub));
  asm("{ .reg .pred p; setp.ne.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(o[27]) : "f"(x), "f"(x));
  asm("{ .reg .pred p; setp.neu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(o[28]) : "f"(x), "f"(x));
  asm("{ .reg .pred p; setp.gtu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(o[29]) : "f"(x), "f"(y));
  asm("and.b32 %0, %1, %2;" : "=r"(o[30]) : "r"(ua), "r"(ub));
  asm("not.b32 %0, %1;" : "=r"(o[31]) : "r"(ua));
  asm("cnot.b32 %0, %1;" : "=r"(o[32]) : "r"(i % 3 == 0 ? 0u : ua));
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(o[33]) : "f"(x * 1e8f));              // NaN -> 0, saturated
  asm("cvt.rni.u32.f32 %0, %1;" : "=r"(o[34]) : "f"(x));
  asm("cvt.s32.s8 %0, %1;" : "=r"(o[35]) : "r"(ua));                         // sign-extends the low byte
  asm("cvt.sat.u8.s32 %0, %1;" : "=r"(o[36]) : "r"(a % 700));
  asm("mov.b32 %0, {%1, %2};" : "=r"(o[37]) : "h"((unsigned short)ua), "h"((unsigned short)(ub >> 3)));
  unsigned short lo, hi;
  asm("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(ua));
  o[38] = lo * 3u + hi;
  unsigned acc = ua;
  asm("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(ub));
  o[39] = acc;
  asm("mad.lo.u32 %0, %1, 3, %0;" : "=r"(o[40]) : "r"(ua), "0"(ub));
  asm("bfe.u32 %[out], %[in], %[pos], 4;" : [out] "=r"(o[41]) : [in] "r"(ua), [pos] "n"(8));
  asm("mov.u32 %0, %%laneid;" : "=r"(o[42]));
  asm("{ .reg .u32 t; mov.u32 t, %%tid.x; mad.lo.u32 %0, %%ctaid.x, %%ntid.x, t; }" : "=r"(o[43]));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(o[44]));
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(lo) : "f"(x));
  o[45] = lo;
  unsigned pair = 0x3c004000u + (unsigned)(i % 8) * 0x00010001u;            // {2.0, 1.0} and a little more
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(o[46]) : "r"(pair));
  asm("tanh.approx.f16 %0, %1;" : "=h"(lo) : "h"((unsigned short)(pair >> 16)));
  o[47] = lo;

  asm("add.ftz.f32 %0, %1, %2;" : "=f"(fo[0]) : "f"(x), "f"(y));
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(fo[1]) : "f"(x), "f"(y));
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(fo[2]) : "f"(x), "f"(y), "f"(0.5f));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(fo[3]) : "f"(y));
  asm("sqrt.rn.f32 %0, %1;" : "=f"(fo[4]) : "f"(fabsf(x)));
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(fo[5]) : "f"(x * 0.1f));
  asm("lg2.approx.f32 %0, %1;" : "=f"(fo[6]) : "f"(fabsf(y) + 1.0f));
  asm("min.f32 %0, %1, %2;" : "=f"(fo[7]) : "f"(x), "f"(y));
  asm("max.ftz.f32 %0, %1, %2;" : "=f"(fo[8]) : "f"(x), "f"(y));
  asm("neg.f32 %0, %1;" : "=f"(fo[9]) : "f"(x));
  asm("abs.f32 %0, %1;" : "=f"(fo[10]) : "f"(y));
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(fo[11]) : "r"(a));
  asm("add.f32 %0, %1, 0f3F800000;" : "=f"(fo[12]) : "f"(x));               // + 1.0f
  asm("mov.b32 %0, %1;" : "=f"(fo[13]) : "r"(0x40490fdbu));                  // pi's bits
  asm("copysign.f32 %0, %1, %2;" : "=f"(fo[14]) : "f"(y), "f"(x));
  asm("sub.sat.f32 %0, %1, %2;" : "=f"(fo[15]) : "f"(x), "f"(y));
  double d;
  asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
  asm("fma.rn.f64 %0, %1, %1, %2;" : "=d"(d) : "d"(d), "d"(0.25));
  fo[16] = (float)d;
  asm("tanh.approx.f32 %0, %1;" : "=f"(fo[17]) : "f"(x));
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(fo[18]) : "f"(fabsf(y) + 0.5f));
  asm("div.rn.f32 %0, %1, %2;" : "=f"(fo[19]) : "f"(x), "f"(y));
  for (int k = 20; k < RESULTS; ++k) fo[k] = 0.0f;
}

// ------------------------------------------------------------------ the host's semantics

static float ftz(float v) { return std::fabs(v) < 1.17549435e-38f ? std::copysign(0.0f, v) : v; }
static unsigned bits(float v) { unsigned u; memcpy(&u, &v, 4); return u; }
static float from_bits(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static bool same(float got, float want) { return bits(got) == bits(want) || (got != got && want != want); }

// float -> binary16 bits, rounded to nearest even, by searching the encodings (independent of
// the conversions under test).
static unsigned short to_half(float f) {
  if (f != f) return 0x7e00;
  unsigned short best = 0;
  double error = INFINITY;
  for (unsigned h = 0; h < 0x7c00; ++h) {
    unsigned e = h >> 10, m = h & 0x3ff;
    double v = e ? ldexp(1024.0 + m, (int)e - 25) : ldexp((double)m, -24);
    double d = std::fabs(std::fabs((double)f) - v);
    if (d < error || (d == error && (h & 1) == 0)) { error = d; best = (unsigned short)h; }
  }
  if (std::fabs((double)f) >= 65520.0) best = 0x7c00;
  return (unsigned short)(best | (std::signbit(f) ? 0x8000 : 0));
}
static float half_value(unsigned short h) {
  unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e ? ldexp(1024.0 + m, (int)e - 25) : ldexp((double)m, -24);
  return (float)((h & 0x8000) ? -v : v);
}

static unsigned bit_field(unsigned v, unsigned pos, unsigned len, bool sign) {
  unsigned r = 0;
  bool s = sign && len && ((v >> (pos + len - 1 > 31 ? 31 : pos + len - 1)) & 1);
  for (unsigned k = 0; k < 32; ++k) {
    bool bit = (k < len && pos + k <= 31) ? (v >> (pos + k)) & 1 : s;
    r |= (unsigned)bit << k;
  }
  return r;
}

static void expected(int i, unsigned *e, float *f) {
  int a = input_a(i), b = input_b(i);
  unsigned ua = (unsigned)a, ub = (unsigned)b;
  float x = input_f(i), y = input_f(N - 1 - i);
  long long sa = a, sb = b;
  e[0] = ua + ub;
  e[1] = ua - ub;
  e[2] = (unsigned)(sa * sb);
  e[3] = (unsigned)(((unsigned long long)ua * ub) >> 32);
  e[4] = (unsigned)((unsigned long long)(sa * sb) >> 32);
  e[5] = (unsigned)(sa * sb);
  e[6] = (unsigned)((unsigned long long)(sa * sb) >> 32);
  e[7] = ua * ub + 12345u;
  int divisor = b == 0 ? 7 : b;
  e[8] = (unsigned)(a / divisor);
  e[9] = (unsigned)(a % divisor);
  e[10] = i == 1 ? 0x80000000u : (unsigned)(b < 0 ? -b : b);
  e[11] = (unsigned)(a < b ? a : b);
  e[12] = ua > ub ? ua : ub;
  unsigned count = (unsigned)i % 40;
  e[13] = count >= 32 ? 0 : ua << count;
  e[14] = count >= 32 ? (a < 0 ? 0xffffffffu : 0) : (unsigned)(a >> count);
  e[15] = count >= 32 ? 0 : ua >> count;
  e[16] = bit_field(ua, (unsigned)i % 36, 9, false);
  e[17] = bit_field(ua, 3, (unsigned)i % 34, true);
  unsigned pos = (unsigned)i % 30, field = ub;
  for (unsigned k = 0; k < 7 && pos + k < 32; ++k) field = (field & ~(1u << (pos + k))) | (((ua >> k) & 1) << (pos + k));
  e[18] = field;
  unsigned long long pool = ((unsigned long long)ub << 32) | ua;
  unsigned selector = 0x7a31u + (unsigned)i, permuted = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned s = (selector >> (4 * k)) & 15, byte = (unsigned)(pool >> (8 * (s & 7))) & 0xff;
    if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
    permuted |= byte << (8 * k);
  }
  e[19] = permuted;
  unsigned ones = 0;
  for (unsigned v = ua; v; v &= v - 1) ++ones;
  e[20] = ones;
  unsigned z = i == 2 ? 0u : ua >> (i % 32), leading = 0;
  while (leading < 32 && !(z & (0x80000000u >> leading))) ++leading;
  e[21] = leading;
  unsigned reversed = 0;
  for (int k = 0; k < 32; ++k) reversed |= ((ua >> k) & 1) << (31 - k);
  e[22] = reversed;
  int v = i == 3 ? -1 : a;
  unsigned magnitude = v < 0 ? ~(unsigned)v : (unsigned)v;
  int top = -1;
  for (int k = 0; k < 32; ++k) if (magnitude & (1u << k)) top = k;
  e[23] = (unsigned)top;
  unsigned c3 = ua ^ 0x5555u;
  e[24] = (ua & ub) | (ua & c3) | (ub & c3);
  e[25] = a < b ? 1u : 12u;
  e[26] = ua < ub ? 0xbeefu : 0xdeadu;
  e[27] = 0;                         // ordered: false for NaN too
  e[28] = x != x ? 1u : 0u;          // unordered: true for NaN
  e[29] = (x > y || x != x || y != y) ? 1u : 0u;
  e[30] = ua & ub;
  e[31] = ~ua;
  e[32] = (i % 3 == 0 ? 0u : ua) == 0 ? 1u : 0u;
  float big = x * 1e8f;
  e[33] = big != big ? 0u : big >= 2147483648.0f ? 0x7fffffffu : big <= -2147483648.0f ? 0x80000000u
                                                                        : (unsigned)(int)std::trunc(big);
  float r = std::nearbyint(x);
  e[34] = x != x ? 0u : r <= 0.0f ? 0u : r >= 4294967296.0f ? 0xffffffffu : (unsigned)r;
  e[35] = (unsigned)(int)(signed char)(ua & 0xff);
  int clamped = a % 700;
  e[36] = clamped < 0 ? 0u : clamped > 255 ? 255u : (unsigned)clamped;
  e[37] = (ua & 0xffff) | (((ub >> 3) & 0xffff) << 16);
  e[38] = (ua & 0xffff) * 3u + (ua >> 16);
  e[39] = ua + ub;
  e[40] = ua * 3u + ub;
  e[41] = (ua >> 8) & 15;
  int t = i % 64;
  e[42] = (unsigned)t % 32;
  e[43] = (unsigned)i;
  e[44] = (1u << (t % 32)) - 1;
  e[45] = to_half(x);
  unsigned pair = 0x3c004000u + (unsigned)(i % 8) * 0x00010001u;
  e[46] = to_half(exp2f(half_value((unsigned short)pair))) | ((unsigned)to_half(exp2f(half_value((unsigned short)(pair >> 16)))) << 16);
  e[47] = to_half(tanhf(half_value((unsigned short)(pair >> 16))));

  float fx = ftz(x), fy = ftz(y);
  f[0] = ftz(fx + fy);
  f[1] = x * y;
  f[2] = fmaf(x, y, 0.5f);
  f[3] = ftz(1.0f / fy);
  f[4] = sqrtf(fabsf(x));
  f[5] = ftz(exp2f(ftz(x * 0.1f)));
  f[6] = log2f(fabsf(y) + 1.0f);
  f[7] = x != x ? y : y != y ? x : (x == y ? (std::signbit(x) ? x : y) : (x < y ? x : y));
  f[8] = fx != fx ? fy : fy != fy ? fx : (fx == fy ? (std::signbit(fx) ? fy : fx) : (fx < fy ? fy : fx));
  f[9] = from_bits(bits(x) ^ 0x80000000u);
  f[10] = from_bits(bits(y) & 0x7fffffffu);
  f[11] = (float)a;
  f[12] = x + 1.0f;
  f[13] = from_bits(0x40490fdbu);
  f[14] = std::copysign(x, y);
  float diff = x - y;
  f[15] = diff >= 1.0f ? 1.0f : diff > 0.0f ? diff : 0.0f;
  f[16] = (float)fma((double)x, (double)x, 0.25);
  f[17] = tanhf(x);
  f[18] = 1.0f / sqrtf(fabsf(y) + 0.5f);
  f[19] = x / y;
  for (int k = 20; k < RESULTS; ++k) f[k] = 0.0f;
}

int main() {
  unsigned *out;
  float *fout;
  cudaMallocManaged(&out, N * RESULTS * sizeof(unsigned));
  cudaMallocManaged(&fout, N * RESULTS * sizeof(float));
  instructions<<<N / 64 + 1 - (N % 64 == 0), 64>>>(out, fout);
  cudaDeviceSynchronize();
  int failures = 0;
  for (int i = 0; i < N; ++i) {
    unsigned e[RESULTS];
    float f[RESULTS];
    expected(i, e, f);
    for (int k = 0; k < RESULTS; ++k) {
      if (out[i * RESULTS + k] != e[k] && failures++ < 20)
        printf("thread %d result %d: %#x, expected %#x\n", i, k, out[i * RESULTS + k], e[k]);
      if (!same(fout[i * RESULTS + k], f[k]) && failures++ < 20)
        printf("thread %d float %d: %a, expected %a\n", i, k, fout[i * RESULTS + k], f[k]);
    }
  }
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
