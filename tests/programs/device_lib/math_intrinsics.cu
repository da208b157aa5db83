// CUDA's math library and intrinsics in device code, checked against host references written
// with plain loops and double-precision C math (not with the functions under test).
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <sm_20_atomic_functions.h>

#define N 256
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

struct FloatResults {
    float expf_, logf_, fdividef_, rsqrtf_, sin_, cos_, sinpi_, cospi_, saturate_, fmaf_, fadd_, fmul_;
    float fsub_, fdiv_, powf_, sinf_;
};
struct IntResults {
    int f2i_rn, f2i_rz, f2i_ru, f2i_rd, mul24, popc, popcll, ffs, ffsll, clz, clzll;
    unsigned int f2u_rn, umul24, brev, byte_perm;
    long long f2ll_rn;
};

__device__ float input(int i) { return (i - 128) * 0.3125f + 0.0625f; }

__global__ void float_intrinsics(FloatResults *r)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = input(i), ax = fabsf(x) + 0.5f;
    FloatResults o;
    o.expf_ = __expf(x * 0.1f);
    o.logf_ = __logf(ax);
    o.fdividef_ = __fdividef(x, ax);
    o.rsqrtf_ = rsqrtf(ax);
    sincosf(x, &o.sin_, &o.cos_);
    sincospif(x, &o.sinpi_, &o.cospi_);
    o.saturate_ = __saturatef(x * 0.05f);
    o.fmaf_ = __fmaf_rn(x, 3.0f, -1.0f);
    o.fadd_ = __fadd_rn(x, 0.25f);
    o.fmul_ = __fmul_rn(x, x);
    o.fsub_ = __fsub_rn(x, 10.0f);
    o.fdiv_ = __fdiv_rn(1.0f, ax);
    o.powf_ = __powf(ax, 1.5f);
    o.sinf_ = __sinf(x);
    // math_constants.h: finite constants, infinities and NaNs (a wrong one spoils __sinf's check).
    if (!(isinf(CUDART_INF_F) && isnan(CUDART_NAN_F) && CUDART_INF > 1e308 && CUDART_NAN != CUDART_NAN &&
          CUDART_PI_F == (float)CUDART_PI && CUDART_LN2 > 0.6931471805599452 && CUDART_LN2 < 0.6931471805599454))
        o.sinf_ = -1000.0f;
    r[i] = o;
}

__global__ void integer_intrinsics(IntResults *r)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = input(i) * 1.6f;  // includes exact halves: ties for _rn
    unsigned int u = (unsigned int)i * 2654435761u;
    unsigned long long w = ((unsigned long long)u << 29) ^ (unsigned long long)i;
    IntResults o;
    o.f2i_rn = __float2int_rn(x);
    o.f2i_rz = __float2int_rz(x);
    o.f2i_ru = __float2int_ru(x);
    o.f2i_rd = __float2int_rd(x);
    o.f2u_rn = __float2uint_rn(x);          // negative -> 0
    o.f2ll_rn = __float2ll_rn(x * 1e10f);
    o.mul24 = __mul24(i - 100, (int)(u & 0xffffff) - 0x800000);
    o.umul24 = __umul24(u, u >> 8);
    o.popc = __popc(u);
    o.popcll = __popcll(w);
    o.ffs = __ffs((int)(u & (0xffffffffu << (i % 32))) * (i % 5 != 0));
    o.ffsll = __ffsll((long long)(w << (i % 64)));
    o.clz = __clz((int)(u >> (i % 32)));
    o.clzll = __clzll((long long)(w >> (i % 64)));
    o.brev = __brev(u);
    o.byte_perm = __byte_perm(u, ~u, (unsigned int)i * 0x1111u);
    r[i] = o;
}

// Directed rounding: [0] toward zero, [1] up, [2] down.
struct Directed {
    float add[3], mul[3], div[3], sqrt_[3], fma_[3], fma_rn, from_int[3], from_double[3];
    double dadd[3], dmul[3], ddiv[3];
};

__device__ float operand(int i, int k) { return ((i * 2654435761u >> (7 + k)) % 100003) * 0.0123f - 555.5f + k * 0.37f; }

__global__ void directed(Directed *r)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = operand(i, 0), y = operand(i, 1), z = operand(i, 2);
    double dx = x * 1.000000123, dy = y * 0.999999877;
    int big = 16777217 + 3 * i;  // needs 25 bits: not a float
    double d = dx / 3.0;
    Directed o;
    o.add[0] = __fadd_rz(x, y); o.add[1] = __fadd_ru(x, y); o.add[2] = __fadd_rd(x, y);
    o.mul[0] = __fmul_rz(x, y); o.mul[1] = __fmul_ru(x, y); o.mul[2] = __fmul_rd(x, y);
    o.div[0] = __fdiv_rz(x, y); o.div[1] = __fdiv_ru(x, y); o.div[2] = __fdiv_rd(x, y);
    float ax = fabsf(x);
    o.sqrt_[0] = __fsqrt_rz(ax); o.sqrt_[1] = __fsqrt_ru(ax); o.sqrt_[2] = __fsqrt_rd(ax);
    o.fma_[0] = __fmaf_rz(x, y, z); o.fma_[1] = __fmaf_ru(x, y, z); o.fma_[2] = __fmaf_rd(x, y, z);
    o.fma_rn = __fmaf_rn(x, y, z);
    o.from_int[0] = __int2float_rz(-big); o.from_int[1] = __int2float_ru(-big); o.from_int[2] = __int2float_rd(-big);
    o.from_double[0] = __double2float_rz(d); o.from_double[1] = __double2float_ru(d); o.from_double[2] = __double2float_rd(d);
    o.dadd[0] = __dadd_rz(dx, dy); o.dadd[1] = __dadd_ru(dx, dy); o.dadd[2] = __dadd_rd(dx, dy);
    o.dmul[0] = __dmul_rz(dx, dy); o.dmul[1] = __dmul_ru(dx, dy); o.dmul[2] = __dmul_rd(dx, dy);
    o.ddiv[0] = __ddiv_rz(dx, dy); o.ddiv[1] = __ddiv_ru(dx, dy); o.ddiv[2] = __ddiv_rd(dx, dy);
    r[i] = o;
}

// ---- host references, written without the intrinsics ----
static int ref_popc(unsigned long long v) { int c = 0; for (; v; v >>= 1) c += (int)(v & 1); return c; }
static int ref_ffs(unsigned long long v, int bits) { for (int b = 0; b < bits; ++b) if ((v >> b) & 1) return b + 1; return 0; }
static int ref_clz(unsigned long long v, int bits) { int c = 0; for (int b = bits - 1; b >= 0 && !((v >> b) & 1); --b) ++c; return c; }
static unsigned int ref_brev(unsigned int v) { unsigned int r = 0; for (int b = 0; b < 32; ++b) if ((v >> b) & 1) r |= 1u << (31 - b); return r; }
static unsigned int ref_byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned char bytes[8];
    for (int k = 0; k < 4; ++k) { bytes[k] = (unsigned char)(x >> (8 * k)); bytes[4 + k] = (unsigned char)(y >> (8 * k)); }
    unsigned int r = 0;
    for (int k = 0; k < 4; ++k) r |= (unsigned int)bytes[(s >> (4 * k)) & 7] << (8 * k);
    return r;
}
static long long ref_round_even(double v)  // round half to even, by hand
{
    double f = std::floor(v), d = v - f;
    long long n = (long long)f;
    if (d > 0.5 || (d == 0.5 && (n & 1))) ++n;
    return n;
}
// Whether r is the rounding of an exact value toward zero / up / down (mode 0 / 1 / 2), given
// side(v) = the sign of v - exact for representable v (computed exactly by the caller).
template <class T, class Side>
static bool directed_ok(T r, int mode, Side side)
{
    T up = std::nextafter(r, (T)INFINITY), down = std::nextafter(r, -(T)INFINITY);
    bool is_down = side(r) <= 0 && side(up) > 0, is_up = side(r) >= 0 && side(down) < 0;
    if (mode == 1) return is_up;
    if (mode == 2) return is_down;
    return side(0) < 0 ? is_down : is_up;  // toward zero: down for a positive exact value
}
static int sign(double v) { return (v > 0) - (v < 0); }
static int sign_ld(long double v) { return (v > 0) - (v < 0); }
static bool close(double got, double want, double rel) { return std::fabs(got - want) <= rel * (std::fabs(want) + 1e-30) + 1e-7; }

int main()
{
    FloatResults *df, hf[N];
    IntResults *di, hi[N];
    cudaMalloc(&df, sizeof hf);
    cudaMalloc(&di, sizeof hi);
    float_intrinsics<<<N / 64, 64>>>(df);
    integer_intrinsics<<<N / 64, 64>>>(di);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < N; ++i) {
        double x = (i - 128) * 0.3125 + 0.0625, ax = std::fabs(x) + 0.5;
        const FloatResults &o = hf[i];
        CHECK(close(o.expf_, std::exp((double)(float)(x * 0.1f)), 2e-6), "__expf %d", i);
        CHECK(close(o.logf_, std::log(ax), 2e-6), "__logf %d", i);
        CHECK(close(o.fdividef_, x / ax, 2e-6), "__fdividef %d", i);
        CHECK(close(o.rsqrtf_, 1.0 / std::sqrt(ax), 2e-6), "rsqrtf %d", i);
        CHECK(close(o.sin_, std::sin(x), 2e-6) && close(o.cos_, std::cos(x), 2e-6), "sincosf %d", i);
        CHECK(close(o.sinpi_, std::sin(pi * x), 1e-5) && close(o.cospi_, std::cos(pi * x), 1e-5), "sincospif %d: %g %g", i, o.sinpi_, o.cospi_);
        double sat = x * 0.05 < 0 ? 0 : (x * 0.05 > 1 ? 1 : (double)(float)(x * 0.05f));
        CHECK(o.saturate_ == (float)sat, "__saturatef %d: %g", i, o.saturate_);
        CHECK(o.fmaf_ == (float)(x * 3.0 - 1.0), "__fmaf_rn %d", i);  // exact in double, one rounding
        CHECK(o.fadd_ == (float)(x + 0.25) && o.fmul_ == (float)(x * x) && o.fsub_ == (float)(x - 10.0), "__fadd/__fmul/__fsub_rn %d", i);
        CHECK(o.fdiv_ == (float)(1.0 / ax), "__fdiv_rn %d", i);
        CHECK(close(o.powf_, std::pow(ax, 1.5), 4e-6) && close(o.sinf_, std::sin(x), 2e-6), "__powf/__sinf %d", i);

        const IntResults &n = hi[i];
        double xi = (double)(float)((float)x * 1.6f);
        unsigned int u = (unsigned int)i * 2654435761u;
        unsigned long long w = ((unsigned long long)u << 29) ^ (unsigned long long)i;
        CHECK(n.f2i_rn == ref_round_even(xi), "__float2int_rn %d: %g -> %d", i, xi, n.f2i_rn);
        CHECK(n.f2i_rz == (int)xi && n.f2i_ru == (int)std::ceil(xi) && n.f2i_rd == (int)std::floor(xi), "__float2int_rz/ru/rd %d", i);
        CHECK(n.f2u_rn == (xi < 0 ? 0u : (unsigned int)ref_round_even(xi)), "__float2uint_rn %d: %u", i, n.f2u_rn);
        CHECK(n.f2ll_rn == ref_round_even((double)(float)((float)xi * 1e10f)), "__float2ll_rn %d", i);
        long long a24 = i - 100, b24 = (long long)(u & 0xffffff) - 0x800000;
        CHECK(n.mul24 == (int)(unsigned int)(a24 * b24), "__mul24 %d", i);
        CHECK(n.umul24 == (unsigned int)((unsigned long long)(u & 0xffffff) * ((u >> 8) & 0xffffff)), "__umul24 %d", i);
        CHECK(n.popc == ref_popc(u) && n.popcll == ref_popc(w), "__popc/__popcll %d", i);
        CHECK(n.ffs == ref_ffs((u & (0xffffffffu << (i % 32))) * (i % 5 != 0), 32), "__ffs %d", i);
        CHECK(n.ffsll == ref_ffs(w << (i % 64), 64), "__ffsll %d", i);
        CHECK(n.clz == ref_clz(u >> (i % 32), 32) && n.clzll == ref_clz(w >> (i % 64), 64), "__clz/__clzll %d", i);
        CHECK(n.brev == ref_brev(u), "__brev %d", i);
        CHECK(n.byte_perm == ref_byte_perm(u, ~u, (unsigned int)i * 0x1111u), "__byte_perm %d", i);
    }
    Directed *dd, hd[N];
    cudaMalloc(&dd, sizeof hd);
    directed<<<N / 64, 64>>>(dd);
    cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; ++i) {
        float x = ((i * 2654435761u >> 7) % 100003) * 0.0123f - 555.5f, y = ((i * 2654435761u >> 8) % 100003) * 0.0123f - 555.5f + 0.37f;
        double dx = x * 1.000000123, dy = y * 0.999999877;
        long long big = 16777217 + 3 * i;
        const Directed &o = hd[i];
        for (int m = 0; m < 3; ++m) {
            // float + and * are exact in double; v * y is exact in double for floats v, y.
            CHECK(directed_ok(o.add[m], m, [&](float v) { return sign((double)v - ((double)x + y)); }), "__fadd mode %d at %d", m, i);
            CHECK(directed_ok(o.mul[m], m, [&](float v) { return sign((double)v - (double)x * y); }), "__fmul mode %d at %d", m, i);
            CHECK(directed_ok(o.div[m], m, [&](float v) { return sign((double)v * y - x) * sign(y); }), "__fdiv mode %d at %d", m, i);
            double ax = std::fabs((double)x);
            CHECK(directed_ok(o.sqrt_[m], m, [&](float v) { return v < 0 ? -1 : sign((double)v * v - ax); }), "__fsqrt mode %d at %d", m, i);
            CHECK(directed_ok(o.from_int[m], m, [&](float v) { return sign((double)v + (double)big); }), "__int2float mode %d at %d", m, i);
            double dq = dx / 3.0;  // as the kernel computes it
            CHECK(directed_ok(o.from_double[m], m, [&](float v) { return sign((double)v - dq); }), "__double2float mode %d at %d", m, i);
            // Sums and products of these doubles are exact in x87 long double (64-bit significand):
            // the exponents are close and each double carries at most 53 bits.
            CHECK(directed_ok(o.dadd[m], m, [&](double v) { return sign_ld((long double)v - ((long double)dx + dy)); }), "__dadd mode %d at %d", m, i);
            CHECK(directed_ok(o.dmul[m], m, [&](double v) { return sign(std::fma(dx, dy, -v)) * -1; }), "__dmul mode %d at %d", m, i);
            CHECK(directed_ok(o.ddiv[m], m, [&](double v) { return sign(std::fma(v, dy, -dx)) * sign(dy); }), "__ddiv mode %d at %d", m, i);
        }
        // fmaf: rd <= rn <= ru, one ulp apart at most, and rz is rd or ru by the sign.
        CHECK(o.fma_[2] <= o.fma_rn && o.fma_rn <= o.fma_[1] && (o.fma_[1] == o.fma_[2] || std::nextafter(o.fma_[2], INFINITY) == o.fma_[1]) &&
              o.fma_[0] == (o.fma_rn >= 0 ? o.fma_[2] : o.fma_[1]), "__fmaf_rz/ru/rd at %d", i);
    }
    printf("PASS\n");
    return 0;
}
