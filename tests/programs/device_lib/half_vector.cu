// __half / __nv_bfloat16 (cuda_fp16.h, cuda_bf16.h): conversions, operators, intrinsics, half2,
// atomicAdd; and vector types with the operators people define for them themselves.
// References: the binary16/bfloat16 value nearest to a double, found by searching every
// encoding (decoded with ldexp), so they do not depend on the conversions under test.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define N 200
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)

// ---- user-defined vector operators (as in the CUDA samples' helper_math.h) ----
inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline __host__ __device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __host__ __device__ float3 make_float3(float s) { return make_float3(s, s, s); }
inline __host__ __device__ int2 operator-(int2 a, int2 b) { return make_int2(a.x - b.x, a.y - b.y); }
inline __host__ __device__ bool operator==(int2 a, int2 b) { return a.x == b.x && a.y == b.y; }

struct HalfResults {
    unsigned short h_conv, h_add, h_sub, h_mul, h_div, h_fma, h_ops, h_neg, h_max, h2_lo, h2_hi;
    unsigned short b_conv, b_add, b_mul, b_fma;
    float h_back, b_back;
    int h_lt, h_int;
};

__device__ float value(int i) { return (i - 100) * 0.37f + (i % 7) * 1e-3f; }

__global__ void halves(HalfResults *r, __half *hsum, __nv_bfloat16 *bsum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float x = value(i), y = 1.0f + i * 0.01f;
    __half a = __float2half(x), b = __float2half_rn(y);
    __nv_bfloat16 c = __float2bfloat16(x), d = __float2bfloat16(y);
    HalfResults o;
    o.h_conv = __half_as_ushort(a);
    o.h_add = __half_as_ushort(__hadd(a, b));
    o.h_sub = __half_as_ushort(__hsub(a, b));
    o.h_mul = __half_as_ushort(__hmul(a, b));
    o.h_div = __half_as_ushort(__hdiv(a, b));
    o.h_fma = __half_as_ushort(__hfma(a, b, __float2half(0.5f)));
    __half e = a * b + a;          // operators: two roundings
    e -= b;
    o.h_ops = __half_as_ushort(e);
    o.h_neg = __half_as_ushort(__hneg(a));
    o.h_max = __half_as_ushort(__hmax(a, b));
    __half2 p = __floats2half2_rn(x, y), q = __half2half2(b);
    __half2 s = __hadd2(__hmul2(p, q), p);
    o.h2_lo = __half_as_ushort(__low2half(s));
    o.h2_hi = __half_as_ushort(__high2half(s));
    o.h_back = __half2float(a);
    o.h_lt = __hlt(a, b) ? 1 : 0;
    o.h_int = __half2int_rn(a);
    o.b_conv = __bfloat16_as_ushort(c);
    o.b_add = __bfloat16_as_ushort(__hadd(c, d));
    o.b_mul = __bfloat16_as_ushort(c * d);
    o.b_fma = __bfloat16_as_ushort(__hfma(c, d, c));
    o.b_back = __bfloat162float(c);
    r[i] = o;
    atomicAdd(hsum, __float2half(0.25f));
    atomicAdd(bsum, __float2bfloat16(1.0f));
}

__global__ void particles(const float3 *pos, const float3 *vel, float3 *out, float *energy, int2 *diff, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pos[i];
    p += vel[i] * 0.5f;
    out[i] = p + make_float3(1.0f);
    energy[i] = dot(vel[i], vel[i]);
    diff[i] = make_int2(i, 2 * i) - make_int2(1, 1);
}

// Directed float -> half conversions and some lane-wise pair functions.
struct HalfExtras {
    unsigned short rz, rd, ru, max_nan, sqrt2_lo, sqrt2_hi, eq2_lo, eq2_hi;
    int both_less;
};

__global__ void half_extras(const float *in, HalfExtras *r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    HalfExtras o;
    o.rz = __half_as_ushort(__float2half_rz(x));
    o.rd = __half_as_ushort(__float2half_rd(x));
    o.ru = __half_as_ushort(__float2half_ru(x));
    o.max_nan = __half_as_ushort(__hmax_nan(__float2half(x), __float2half(i % 3 == 0 ? NAN : 1.0f)));
    __half2 a = __floats2half2_rn(fabsf(x), 4.0f), b = __floats2half2_rn(fabsf(x), 5.0f);
    __half2 s = h2sqrt(a), e = __heq2(a, b);
    o.sqrt2_lo = __half_as_ushort(__low2half(s));
    o.sqrt2_hi = __half_as_ushort(__high2half(s));
    o.eq2_lo = __half_as_ushort(__low2half(e));
    o.eq2_hi = __half_as_ushort(__high2half(e));
    o.both_less = __hblt2(__floats2half2_rn(x, 1.0f), __floats2half2_rn(x + 1.0f, 2.0f));
    r[i] = o;
}

// 16-bit values in shared memory across a barrier.
__global__ void shared_halves(const float *in, float *out)
{
    __shared__ __half s[64];
    __shared__ __half2 p[32];
    int t = threadIdx.x;
    s[t] = __float2half(in[t]);
    if (t < 32) p[t] = __floats2half2_rn(in[t], in[t + 32]);
    __syncthreads();
    __half v = s[63 - t];
    __half2 q = p[t % 32];
    out[t] = __half2float(v) + __low2float(q) + __high2float(q);
}

// ---- host references ----
static double decode(unsigned int bits, int exp_bits, int man_bits)
{
    int bias = (1 << (exp_bits - 1)) - 1;
    unsigned int e = (bits >> man_bits) & ((1u << exp_bits) - 1), m = bits & ((1u << man_bits) - 1);
    double sign = (bits >> (exp_bits + man_bits)) ? -1.0 : 1.0;
    if (e == (1u << exp_bits) - 1) return m ? NAN : sign * INFINITY;
    if (e == 0) return sign * std::ldexp((double)m, 1 - bias - man_bits);
    return sign * std::ldexp((double)((1u << man_bits) | m), (int)e - bias - man_bits);
}
// Nearest encoding by binary search over the positive encodings (their values increase with
// the bits), ties to the even encoding; half an ulp or more beyond the largest finite value:
// infinity.  The sign is kept (a negative value rounding to zero gives -0).
static unsigned int nearest(double v, int exp_bits, int man_bits)
{
    unsigned int sign = std::signbit(v) ? 1u << (exp_bits + man_bits) : 0u;
    unsigned int max_finite = ((1u << exp_bits) - 2) << man_bits | ((1u << man_bits) - 1);
    double a = std::fabs(v), top = decode(max_finite, exp_bits, man_bits);
    if (a >= top + (top - decode(max_finite - 1, exp_bits, man_bits)) / 2)
        return sign | ((1u << exp_bits) - 1) << man_bits;
    unsigned int lo = 0, hi = max_finite;  // decode(lo) <= a; find the largest such
    while (lo < hi) {
        unsigned int mid = (lo + hi + 1) / 2;
        if (decode(mid, exp_bits, man_bits) <= a) lo = mid; else hi = mid - 1;
    }
    if (lo < max_finite) {
        double below = a - decode(lo, exp_bits, man_bits), above = decode(lo + 1, exp_bits, man_bits) - a;
        if (above < below || (above == below && (lo & 1))) ++lo;
    }
    return sign | lo;
}
// The largest positive binary16 encoding whose value is <= a (a >= 0), by binary search; values
// beyond the largest finite one give it (the rounding toward zero).
static unsigned int floor_magnitude(double a)
{
    unsigned int lo = 0, hi = 0x7bff;
    while (lo < hi) {
        unsigned int mid = (lo + hi + 1) / 2;
        if (decode(mid, 5, 10) <= a) lo = mid; else hi = mid - 1;
    }
    return lo;
}
// Directed rounding of v to binary16: 0 toward zero, 1 up, 2 down.
static unsigned int directed_half(double v, int mode)
{
    unsigned int sign = v < 0 ? 0x8000u : 0u, low = floor_magnitude(std::fabs(v));
    bool exact = decode(low, 5, 10) == std::fabs(v);
    bool away = !exact && ((mode == 1 && v > 0) || (mode == 2 && v < 0));  // round the magnitude up
    return sign | (away ? low + 1 : low);  // low + 1 past 0x7bff is infinity (0x7c00)
}
static unsigned int H(double v) { return nearest(v, 5, 10); }
static double h(unsigned int bits) { return decode(bits, 5, 10); }
static unsigned int B(double v) { return nearest(v, 8, 7); }
static double b(unsigned int bits) { return decode(bits, 8, 7); }

int main()
{
    // Known encodings first.
    CHECK(H(1.0 / 3.0) == 0x3555 && H(65504.0) == 0x7bff && H(65520.0) == 0x7c00 && H(std::ldexp(1.0, -24)) == 0x0001,
          "host reference for binary16");
    CHECK(B(1.0 / 3.0) == 0x3eab && B(1.0) == 0x3f80, "host reference for bfloat16");

    HalfResults *dr, r[N];
    __half *dhsum; __nv_bfloat16 *dbsum;
    cudaMalloc(&dr, sizeof r);
    cudaMalloc(&dhsum, sizeof(__half));
    cudaMalloc(&dbsum, sizeof(__nv_bfloat16));
    cudaMemset(dhsum, 0, sizeof(__half));
    cudaMemset(dbsum, 0, sizeof(__nv_bfloat16));
    halves<<<(N + 63) / 64, 64>>>(dr, dhsum, dbsum);
    __half hsum; __nv_bfloat16 bsum;
    cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost);
    cudaMemcpy(&hsum, dhsum, sizeof hsum, cudaMemcpyDeviceToHost);
    cudaMemcpy(&bsum, dbsum, sizeof bsum, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; ++i) {
        float x = (i - 100) * 0.37f + (i % 7) * 1e-3f, y = 1.0f + i * 0.01f;
        unsigned int a = H(x), bb = H(y);
        double av = h(a), bv = h(bb);
        const HalfResults &o = r[i];
        CHECK(o.h_conv == a, "__float2half %d: %04x != %04x", i, o.h_conv, a);
        CHECK(o.h_back == (float)av, "__half2float %d", i);
        CHECK(o.h_add == H(av + bv) && o.h_sub == H(av - bv) && o.h_mul == H(av * bv), "__hadd/__hsub/__hmul %d", i);
        CHECK(o.h_div == H(av / bv), "__hdiv %d: %04x != %04x", i, o.h_div, H(av / bv));
        CHECK(o.h_fma == H(av * bv + 0.5), "__hfma %d", i);
        CHECK(o.h_ops == H(h(H(h(H(av * bv)) + av)) - bv), "half operators %d", i);
        CHECK(o.h_neg == (a ^ 0x8000u) && o.h_max == (av > bv ? a : bb), "__hneg/__hmax %d", i);
        double py = bv;
        CHECK(o.h2_lo == H(h(H(av * bv)) + av) && o.h2_hi == H(h(H(py * bv)) + py), "half2 %d", i);
        CHECK(o.h_lt == (av < bv) && o.h_int == (int)std::nearbyint(av), "__hlt/__half2int_rn %d", i);
        unsigned int c = B(x), d = B(y);
        CHECK(o.b_conv == c && o.b_back == (float)b(c), "__float2bfloat16 %d: %04x != %04x", i, o.b_conv, c);
        CHECK(o.b_add == B(b(c) + b(d)) && o.b_mul == B(b(c) * b(d)), "bfloat16 add/mul %d", i);
        CHECK(o.b_fma == B(b(c) * b(d) + b(c)), "bfloat16 fma %d", i);
    }
    CHECK(__half2float(hsum) == 0.25f * N, "atomicAdd(__half) %f", __half2float(hsum));
    CHECK(__bfloat162float(bsum) == (float)N, "atomicAdd(__nv_bfloat16) %f", __bfloat162float(bsum));

    float sh[64], sr[64], *dsh, *dsr;
    for (int i = 0; i < 64; ++i) sh[i] = i * 0.5f;  // exact in binary16
    cudaMalloc(&dsh, sizeof sh); cudaMalloc(&dsr, sizeof sr);
    cudaMemcpy(dsh, sh, sizeof sh, cudaMemcpyHostToDevice);
    shared_halves<<<1, 64>>>(dsh, dsr);
    cudaMemcpy(sr, dsr, sizeof sr, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; ++t)
        CHECK(sr[t] == sh[63 - t] + sh[t % 32] + sh[t % 32 + 32], "__shared__ __half/__half2 %d: %g", t, sr[t]);

    const int m = 96;
    float xin[m], *dxin;
    HalfExtras ex[m], *dex;
    for (int i = 0; i < m; ++i) xin[i] = (i % 2 ? -1.0f : 1.0f) * (0.001f + i * i * i * 0.173f);  // up to ~1.4e5: overflow too
    cudaMalloc(&dxin, sizeof xin); cudaMalloc(&dex, sizeof ex);
    cudaMemcpy(dxin, xin, sizeof xin, cudaMemcpyHostToDevice);
    half_extras<<<(m + 31) / 32, 32>>>(dxin, dex, m);
    cudaMemcpy(ex, dex, sizeof ex, cudaMemcpyDeviceToHost);
    for (int i = 0; i < m; ++i) {
        double x = xin[i];
        CHECK(ex[i].rz == directed_half(x, 0) && ex[i].ru == directed_half(x, 1) && ex[i].rd == directed_half(x, 2),
              "__float2half_rz/ru/rd(%g): %04x %04x %04x", x, ex[i].rz, ex[i].ru, ex[i].rd);
        unsigned int hx = H(x);
        bool is_nan = (ex[i].max_nan & 0x7c00u) == 0x7c00u && (ex[i].max_nan & 0x3ffu);
        CHECK(i % 3 == 0 ? is_nan : ex[i].max_nan == (h(hx) > 1.0 ? hx : 0x3c00u), "__hmax_nan %d", i);
        double ax = h(H(std::fabs(x)));
        CHECK(ex[i].sqrt2_lo == H(std::sqrt(ax)) && ex[i].sqrt2_hi == 0x4000u, "h2sqrt %d", i);
        CHECK(ex[i].eq2_lo == 0x3c00u && ex[i].eq2_hi == 0u, "__heq2 %d", i);
        CHECK(ex[i].both_less == (h(hx) < h(H(x + 1.0f))), "__hblt2 %d", i);
    }

    const int n = 100;
    float3 pos[n], vel[n], out[n], *dpos, *dvel, *dout;
    float energy[n], *denergy;
    int2 diff[n], *ddiff;
    for (int i = 0; i < n; ++i) { pos[i] = make_float3(i, -i, 0.5f * i); vel[i] = make_float3(1, 2, i % 3); }
    cudaMalloc(&dpos, sizeof pos); cudaMalloc(&dvel, sizeof vel); cudaMalloc(&dout, sizeof out);
    cudaMalloc(&denergy, sizeof energy); cudaMalloc(&ddiff, sizeof diff);
    cudaMemcpy(dpos, pos, sizeof pos, cudaMemcpyHostToDevice);
    cudaMemcpy(dvel, vel, sizeof vel, cudaMemcpyHostToDevice);
    particles<<<(n + 31) / 32, 32>>>(dpos, dvel, dout, denergy, ddiff, n);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    cudaMemcpy(energy, denergy, sizeof energy, cudaMemcpyDeviceToHost);
    cudaMemcpy(diff, ddiff, sizeof diff, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        float ex = i + 0.5f * 1 + 1, ey = -i + 0.5f * 2 + 1, ez = 0.5f * i + 0.5f * (i % 3) + 1;
        CHECK(out[i].x == ex && out[i].y == ey && out[i].z == ez, "float3 operators %d", i);
        CHECK(energy[i] == 1 + 4 + (i % 3) * (i % 3), "dot %d", i);
        CHECK(diff[i].x == i - 1 && diff[i].y == 2 * i - 1, "int2 operator- %d", i);
    }
    printf("PASS\n");
    return 0;
}
