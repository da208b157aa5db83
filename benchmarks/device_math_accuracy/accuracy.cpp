/* The largest error of each SIMD implementation of a math function against a more precise value
 * (float: glibc's double function; double: its long double one), in ulps of the result's type,
 * with glibc's scalar function's for comparison and the largest difference from it.
 *
 * Float functions of one argument: every 2^32 / stride-th input from 0 (stride 1: all of them);
 * the others: random samples, a third of them uniform over the bit patterns, a third uniform in
 * [-10, 10], a third in [-1000, 1000] (each argument of a pair so), and for two arguments every
 * pair of special values (zeros, infinities, NaN, +-1, extremes, subnormals).  An implementation gives
 * "BAD n" for n arguments where it gives a NaN or an infinity and the reference does not (or the
 * other way).  Usage: accuracy [stride] [samples] [function...]; run by
 * benchmarks/device_math_accuracy.py, which builds it. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "functions.h"

typedef void (*Float1)(const float *, float *, size_t);
typedef void (*Double1)(const double *, double *, size_t);
typedef void (*Float2)(const float *, const float *, float *, size_t);
typedef void (*Double2)(const double *, const double *, double *, size_t);

#define FOR_ISAS(X, ...) X(b, __VA_ARGS__) X(c, __VA_ARGS__) X(d, __VA_ARGS__) X(e, __VA_ARGS__)
#define DECLARE_1(isa, name)                                                                        \
    void libmvec_##name##f_##isa(const float *, float *, size_t);                                   \
    void libmvec_##name##_##isa(const double *, double *, size_t);
#define DECLARE_2(isa, name)                                                                        \
    void libmvec_##name##f_##isa(const float *, const float *, float *, size_t);                    \
    void libmvec_##name##_##isa(const double *, const double *, double *, size_t);
#define DECLARE_UNARY(name) FOR_ISAS(DECLARE_1, name)
#define DECLARE_BINARY(name) FOR_ISAS(DECLARE_2, name)
LIBMVEC_UNARY(DECLARE_UNARY)
LIBMVEC_BINARY(DECLARE_BINARY)

static const char ISA_NAMES[] = "bcde";
static bool isa_available[4];

/* One implementation: a label and its loops for each ISA (the float and double ones). */
template <class F>
struct Implementation {
    const char *label;
    F loops[4];
};

/* The error of y against the reference r in ulps of T (MANT mantissa bits, EMIN the least normal
 * exponent); -1 where one is a NaN or an infinity and the other is not (or another one). */
template <class T, int MANT, int EMIN, class R>
static double ulp_error(T y, R r)
{
    if (isnan(r) || isnan(y))
        return isnan(r) && isnan(y) ? 0 : -1;
    T rounded = (T)r;
    if (isinf(y) || isinf(rounded))
        return y == rounded ? 0 : -1;
    int e = r == 0 ? EMIN : ilogbl((long double)r);
    if (e < EMIN)
        e = EMIN;
    return (double)(fabsl((long double)y - (long double)r) / ldexpl(1.0L, e - MANT));
}
/* The same for float against a double, faster: in double arithmetic, the exponent from the bits. */
static double float_error(float y, double r)
{
    if (isnan(r) || isnan(y))
        return isnan(r) && isnan(y) ? 0 : -1;
    float rounded = (float)r;
    if (isinf(y) || isinf(rounded))
        return y == rounded ? 0 : -1;
    uint64_t bits;
    memcpy(&bits, &r, 8);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    if (e < -126)
        e = -126;
    uint64_t ulp_bits = (uint64_t)(e - 23 + 1023) << 52;
    double ulp;
    memcpy(&ulp, &ulp_bits, 8);
    return fabs((double)y - r) / ulp;
}
static double double_error(double y, long double r) { return ulp_error<double, 52, -1022>(y, r); }

struct Worst {
    double error = 0, x = 0, z = 0;  // the largest error and where
    long bad = 0;                     // NaN or infinity mismatches
    double bad_x = 0, bad_z = 0;
    void add(double e, double at, double at2)
    {
        if (e < 0) {
            if (!bad++) {
                bad_x = at;
                bad_z = at2;
            }
        } else if (e > error) {
            error = e;
            x = at;
            z = at2;
        }
    }
    void merge(const Worst &o)
    {
        if (o.error > error) {
            error = o.error;
            x = o.x;
            z = o.z;
        }
        if (o.bad && !bad) {
            bad_x = o.bad_x;
            bad_z = o.bad_z;
        }
        bad += o.bad;
    }
};

/* Per implementation and ISA: against the reference, and against glibc's scalar function. */
struct Result {
    Worst scalar;
    std::vector<Worst> against_reference, against_scalar;
    explicit Result(size_t n) : against_reference(n), against_scalar(n) {}
    void merge(const Result &o)
    {
        scalar.merge(o.scalar);
        for (size_t i = 0; i < against_reference.size(); i++) {
            against_reference[i].merge(o.against_reference[i]);
            against_scalar[i].merge(o.against_scalar[i]);
        }
    }
};

template <class F>
static std::vector<std::pair<std::string, F>> loops_of(const std::vector<Implementation<F>> &implementations)
{
    std::vector<std::pair<std::string, F>> loops;
    for (const auto &impl : implementations)
        for (int isa = 0; isa < 4; isa++)
            if (isa_available[isa])
                loops.push_back({std::string(impl.label) + "-" + ISA_NAMES[isa], impl.loops[isa]});
    return loops;
}

template <class F>
static void print(const char *type, const std::string &name, const Result &r,
                  const std::vector<std::pair<std::string, F>> &loops, long count)
{
    printf("%-6s %-6s n=%-10ld glibc %.3f", type, name.c_str(), count, r.scalar.error);
    for (size_t i = 0; i < loops.size(); i++) {
        const Worst &w = r.against_reference[i];
        printf(" | %s %.3f at %a", loops[i].first.c_str(), w.error, w.x);
        if (w.z != 0)
            printf(",%a", w.z);
        printf(" (vs glibc %.3f)", r.against_scalar[i].error);
        if (w.bad)
            printf(" BAD %ld at %a,%a", w.bad, w.bad_x, w.bad_z);
    }
    if (r.scalar.bad)
        printf(" | glibc BAD %ld at %a", r.scalar.bad, r.scalar.bad_x);
    printf("\n");
    fflush(stdout);
}

static const size_t CHUNK = 1 << 16;

/* The special arguments: every pair of them is among the first samples of a function of two. */
static const double SPECIALS[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
                                  1.5, -1.5, 1e-45, -1e-45, 1e-310, 1e-40, 3.4e38, -3.4e38, 1e308, 100.0, -100.0};
static const size_t NSPECIALS = sizeof SPECIALS / sizeof SPECIALS[0];

template <class T>
static void special_pairs(std::vector<T> &x, std::vector<T> &z)
{
    for (size_t i = 0; i < NSPECIALS * NSPECIALS; i++) {
        x[i] = (T)SPECIALS[i / NSPECIALS];
        z[i] = (T)SPECIALS[i % NSPECIALS];
    }
}

template <class T, class Bits>
static T random_argument(std::mt19937_64 &g, int kind)
{
    if (kind == 0) {
        Bits b = (Bits)g();
        T v;
        memcpy(&v, &b, sizeof v);
        return v;
    }
    double width = kind == 1 ? 10.0 : 1000.0;
    return (T)std::uniform_real_distribution<double>(-width, width)(g);
}

static void float_unary(const std::string &name, const std::vector<Implementation<Float1>> &impls,
                        float (*scalar)(float), double (*reference)(double), uint64_t stride)
{
    auto loops = loops_of(impls);
    Result total(loops.size());
    long count = 0;
#pragma omp parallel reduction(+ : count)
    {
        Result mine(loops.size());
        std::vector<float> x(CHUNK);
        std::vector<std::vector<float>> y(loops.size(), std::vector<float>(CHUNK));
#pragma omp for schedule(dynamic, 1)
        for (int64_t start = 0; start < ((int64_t)1 << 32); start += (int64_t)(CHUNK * stride)) {
            size_t n = 0;
            for (; n < CHUNK && start + (int64_t)(n * stride) < ((int64_t)1 << 32); n++) {
                uint32_t bits = (uint32_t)(start + (int64_t)(n * stride));
                memcpy(&x[n], &bits, 4);
            }
            for (size_t l = 0; l < loops.size(); l++)
                loops[l].second(x.data(), y[l].data(), n);
            for (size_t i = 0; i < n; i++) {
                double r = reference(x[i]);
                float s = scalar(x[i]);
                mine.scalar.add(float_error(s, r), x[i], 0);
                for (size_t l = 0; l < loops.size(); l++) {
                    mine.against_reference[l].add(float_error(y[l][i], r), x[i], 0);
                    mine.against_scalar[l].add(float_error(y[l][i], s), x[i], 0);
                }
            }
            count += (long)n;
        }
#pragma omp critical
        total.merge(mine);
    }
    print("float", name, total, loops, count);
}

/* A function of the random samples (one argument, or two: `second` then takes pairs): each
 * loop's values and glibc's scalar function's against `reference`, in ulps by `error`. */
template <class T, class Bits, class Loop, class Scalar, class Reference, class Error>
static void sampled(const char *type, const std::string &name, const std::vector<std::pair<std::string, Loop>> &loops,
                    bool pairs, Scalar scalar, Reference reference, Error error, long samples)
{
    Result total(loops.size());
#pragma omp parallel
    {
        Result mine(loops.size());
        std::mt19937_64 g(777 + omp_get_thread_num());
        std::vector<T> x(CHUNK), z(CHUNK);
        std::vector<std::vector<T>> y(loops.size(), std::vector<T>(CHUNK));
#pragma omp for schedule(dynamic, 1)
        for (long start = 0; start < samples; start += CHUNK) {
            for (size_t i = 0; i < CHUNK; i++) {
                x[i] = random_argument<T, Bits>(g, (int)(i % 3));
                z[i] = random_argument<T, Bits>(g, (int)(i / 3 % 3));
            }
            if (pairs && start == 0)
                special_pairs(x, z);
            for (size_t l = 0; l < loops.size(); l++)
                loops[l].second(x.data(), z.data(), y[l].data(), CHUNK);
            for (size_t i = 0; i < CHUNK; i++) {
                auto r = reference(x[i], z[i]);
                T s = scalar(x[i], z[i]);
                double at2 = pairs ? (double)z[i] : 0;
                mine.scalar.add(error(s, r), x[i], at2);
                for (size_t l = 0; l < loops.size(); l++) {
                    mine.against_reference[l].add(error(y[l][i], r), x[i], at2);
                    mine.against_scalar[l].add(error(y[l][i], s), x[i], at2);
                }
            }
        }
#pragma omp critical
        total.merge(mine);
    }
    print(type, name, total, loops, samples / (long)CHUNK * (long)CHUNK);
}

/* The loops of a function of one argument as loops of two that ignore the second. */
template <class T>
static std::vector<std::pair<std::string, std::function<void(const T *, const T *, T *, size_t)>>>
of_two(const std::vector<std::pair<std::string, void (*)(const T *, T *, size_t)>> &loops)
{
    std::vector<std::pair<std::string, std::function<void(const T *, const T *, T *, size_t)>>> two;
    for (const auto &loop : loops) {
        auto f = loop.second;
        two.push_back({loop.first, [f](const T *x, const T *, T *y, size_t n) { f(x, y, n); }});
    }
    return two;
}

int main(int argc, char **argv)
{
    uint64_t stride = argc > 1 ? strtoull(argv[1], 0, 0) : 1;
    long samples = argc > 2 ? strtol(argv[2], 0, 0) : 1 << 24;
    std::vector<std::string> only(argv + (argc > 3 ? 3 : argc), argv + argc);
    auto wanted = [&](const char *name) {
        if (only.empty())
            return true;
        for (const auto &o : only)
            if (o == name)
                return true;
        return false;
    };
    isa_available[0] = true;
    isa_available[1] = __builtin_cpu_supports("avx");
    isa_available[2] = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    isa_available[3] = __builtin_cpu_supports("avx512f");

#define FLOAT_UNARY(name)                                                                           \
    if (wanted(#name))                                                                              \
        float_unary(#name, {{"libmvec", {libmvec_##name##f_b, libmvec_##name##f_c, libmvec_##name##f_d, libmvec_##name##f_e}}}, \
                    ::name##f, ::name, stride);
#define FLOAT_BINARY(name)                                                                          \
    if (wanted(#name))                                                                              \
        sampled<float, uint32_t>("float", #name,                                                    \
            loops_of<Float2>({{"libmvec", {libmvec_##name##f_b, libmvec_##name##f_c, libmvec_##name##f_d, libmvec_##name##f_e}}}), \
            true, [](float x, float z) { return ::name##f(x, z); }, [](float x, float z) { return ::name((double)x, z); }, \
            float_error, samples);
#define DOUBLE_UNARY(name)                                                                          \
    if (wanted(#name))                                                                              \
        sampled<double, uint64_t>("double", #name,                                                  \
            of_two<double>(loops_of<Double1>({{"libmvec", {libmvec_##name##_b, libmvec_##name##_c, libmvec_##name##_d, libmvec_##name##_e}}})), \
            false, [](double x, double) { return ::name(x); }, [](double x, double) { return ::name##l(x); }, \
            double_error, samples);
#define DOUBLE_BINARY(name)                                                                         \
    if (wanted(#name))                                                                              \
        sampled<double, uint64_t>("double", #name,                                                  \
            loops_of<Double2>({{"libmvec", {libmvec_##name##_b, libmvec_##name##_c, libmvec_##name##_d, libmvec_##name##_e}}}), \
            true, [](double x, double z) { return ::name(x, z); }, [](double x, double z) { return ::name##l(x, z); }, \
            double_error, samples);
    LIBMVEC_UNARY(FLOAT_UNARY)
    LIBMVEC_BINARY(FLOAT_BINARY)
    LIBMVEC_UNARY(DOUBLE_UNARY)
    LIBMVEC_BINARY(DOUBLE_BINARY)
}
