/* MocCUDA: mma.h, CUDA's warp matrix functions (nvcuda::wmma).
 *
 * CUDA leaves unspecified which elements of a tile each lane of the warp holds in a fragment.
 * Here every lane holds the whole tile: num_elements is the tile's size (rows x columns) and x[]
 * its elements in row-major order.  Every lane loads the whole tile, computes the whole product
 * and stores the whole tile; the values are the same in every lane, so each lane's store writes
 * what the others write.  A loop over x[i] for i < num_elements (the only portable use of x[])
 * thus applies to the whole tile in each lane, consistently.
 *
 * The _sync functions are warp-collective in CUDA ("waits until all warp lanes have arrived").
 * cuda2cpu's front end puts a warp synchronization point (as __syncwarp) before each
 * load_matrix_sync and store_matrix_sync and after each store_matrix_sync, so that a tile that
 * the warp's lanes stored before a load is whole when any lane loads it, and the lanes' stores
 * of a tile are all done before any lane goes on; mma_sync and fill_fragment touch only the
 * calling lane's fragments.
 *
 * mma_sync computes D = A x B + C element by element in k order starting from C, each product
 * formed exactly where the operand types allow (16-bit floats, int8) and the sum kept in float
 * for 16-bit float accumulators (rounded once to __half at the end), in the accumulator's type
 * otherwise (integer sums wrap modulo 2^32).  tf32 operands are truncated to tf32's 10 mantissa
 * bits, as the tensor cores read them; __float_to_tf32 rounds to nearest.
 */
#ifndef MOCCUDA_MMA_H
#define MOCCUDA_MMA_H

#include <math.h>
#include <string.h>

#include "cuda_runtime.h"
#include "cuda_fp16.h"
#include "cuda_bf16.h"

#define MOCCUDA_MMA_HD inline __host__ __device__

namespace nvcuda {
namespace wmma {

/* What a fragment holds, and how matrix_a/matrix_b tiles lie in memory. */
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct tf32 {};
}  // namespace precision

namespace detail {

/* The type a fragment's x[] holds for an element type T (tf32 is kept in a float). */
template <class T>
struct storage {
    typedef T type;
};
template <>
struct storage<precision::tf32> {
    typedef float type;
};

/* A tile's rows and columns for each use. */
template <class Use, int M, int N, int K>
struct tile_shape;
template <int M, int N, int K>
struct tile_shape<matrix_a, M, N, K> {
    enum { rows = M, cols = K };
};
template <int M, int N, int K>
struct tile_shape<matrix_b, M, N, K> {
    enum { rows = K, cols = N };
};
template <int M, int N, int K>
struct tile_shape<accumulator, M, N, K> {
    enum { rows = M, cols = N };
};

/* The shapes CUDA offers (m16n16k16, m32n8k16 and m8n32k16 for 16-bit floats and 8-bit
 * integers, m16n16k8 for tf32, m8n8k4 for double). */
template <int M, int N, int K>
struct supported_shape {
    enum {
        value = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16) ||
                (M == 16 && N == 16 && K == 8) || (M == 8 && N == 8 && K == 4)
    };
};

}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
    static_assert(detail::supported_shape<M, N, K>::value, "wmma::fragment: a shape CUDA does not offer");

public:
    typedef T element_type;
    typedef typename detail::storage<T>::type storage_element_type;
    enum {
        rows = detail::tile_shape<Use, M, N, K>::rows,
        cols = detail::tile_shape<Use, M, N, K>::cols,
        num_elements = rows * cols
    };
    storage_element_type x[num_elements];
};

/* ---- element conversions ---- */

namespace detail {

/* An operand element as the multiplier reads it. */
MOCCUDA_MMA_HD float operand(__half v) { return (float)v; }
MOCCUDA_MMA_HD float operand(__nv_bfloat16 v) { return (float)v; }
MOCCUDA_MMA_HD int operand(signed char v) { return v; }
MOCCUDA_MMA_HD int operand(unsigned char v) { return v; }
MOCCUDA_MMA_HD double operand(double v) { return v; }
/* tf32 keeps float's exponent and the top 10 of its 23 mantissa bits. */
MOCCUDA_MMA_HD float tf32_operand(float v)
{
    unsigned bits;
    memcpy(&bits, &v, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u)
        bits &= 0xffffe000u;
    float r;
    memcpy(&r, &bits, sizeof r);
    return r;
}

/* The type a product is summed in for an accumulator element type C. */
template <class C>
struct sum_type {
    typedef C type;
};
template <>
struct sum_type<__half> {
    typedef float type;
};
template <>
struct sum_type<int> {
    typedef unsigned type;  // wraps modulo 2^32, as the GPU's integer sum does
};

template <class S>
MOCCUDA_MMA_HD S saturate(S v)
{
    return v;
}
MOCCUDA_MMA_HD float saturate(float v)
{
    if (v != v)
        return 0.0f;
    if (v > 3.40282347e38f)
        return 3.40282347e38f;
    if (v < -3.40282347e38f)
        return -3.40282347e38f;
    return v;
}
MOCCUDA_MMA_HD double saturate(double v)
{
    if (v != v)
        return 0.0;
    if (v > 1.7976931348623157e308)
        return 1.7976931348623157e308;
    if (v < -1.7976931348623157e308)
        return -1.7976931348623157e308;
    return v;
}

template <class C, class S>
MOCCUDA_MMA_HD C to_accumulator(S v, bool satf)
{
    return (C)(satf ? saturate(v) : v);
}
template <>
MOCCUDA_MMA_HD __half to_accumulator<__half, float>(float v, bool satf)
{
    __half h = __half(v);
    if (satf) {
        float r = (float)h;
        if (r != r)
            return __half(0.0f);
        if (r > 65504.0f)
            return __half(65504.0f);
        if (r < -65504.0f)
            return __half(-65504.0f);
    }
    return h;
}
template <>
MOCCUDA_MMA_HD int to_accumulator<int, unsigned>(unsigned v, bool)
{
    return (int)v;
}

/* Element (r, c) of a tile at p with leading dimension ldm. */
MOCCUDA_MMA_HD unsigned long long at(bool row_major_memory, unsigned r, unsigned c, unsigned ldm)
{
    return row_major_memory ? (unsigned long long)r * ldm + c : (unsigned long long)c * ldm + r;
}

template <class F, class P>
MOCCUDA_MMA_HD void load(F &f, const P *p, unsigned ldm, bool row_major_memory)
{
    for (unsigned r = 0; r < (unsigned)F::rows; ++r)
        for (unsigned c = 0; c < (unsigned)F::cols; ++c)
            f.x[r * F::cols + c] = p[at(row_major_memory, r, c, ldm)];
}

}  // namespace detail

/* ---- the warp matrix functions ---- */

template <class Use, int M, int N, int K, class T, class Layout, class V>
inline __device__ void fill_fragment(fragment<Use, M, N, K, T, Layout> &f, const V &v)
{
    typedef typename fragment<Use, M, N, K, T, Layout>::storage_element_type S;
    const S value = (S)v;
    for (int i = 0; i < fragment<Use, M, N, K, T, Layout>::num_elements; ++i)
        f.x[i] = value;
}

template <class Use, int M, int N, int K, class T, class P>
inline __device__ void load_matrix_sync(fragment<Use, M, N, K, T, row_major> &f, const P *p, unsigned ldm)
{
    detail::load(f, p, ldm, true);
}
template <class Use, int M, int N, int K, class T, class P>
inline __device__ void load_matrix_sync(fragment<Use, M, N, K, T, col_major> &f, const P *p, unsigned ldm)
{
    detail::load(f, p, ldm, false);
}
template <int M, int N, int K, class T, class P>
inline __device__ void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const P *p, unsigned ldm,
                                        layout_t layout)
{
    detail::load(f, p, ldm, layout == mem_row_major);
}

template <int M, int N, int K, class T, class P>
inline __device__ void store_matrix_sync(P *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm,
                                         layout_t layout)
{
    typedef fragment<accumulator, M, N, K, T> F;
    for (unsigned r = 0; r < (unsigned)F::rows; ++r)
        for (unsigned c = 0; c < (unsigned)F::cols; ++c)
            p[detail::at(layout == mem_row_major, r, c, ldm)] = f.x[r * F::cols + c];
}

namespace detail {

/* The operands and result of the last mma_sync of one fragment combination on this CPU thread.
 * Every lane of a warp holds the same tiles (see the top of this file), and the lanes of a warp
 * run one after another on the same thread, so the 31 lanes after the first find their operands
 * here, byte for byte, and copy the result instead of computing it again: the product is a
 * function of those bytes alone, so this changes no value. */
template <class D, class A, class B, class C>
struct last_product {
    bool valid;
    bool satf;
    A a;
    B b;
    C c;
    D d;
};

#ifndef __CUDA2CPU_PARSE__
template <class D, class A, class B, class C>
inline last_product<D, A, B, C> &last_product_of_this_thread()
{
    static thread_local last_product<D, A, B, C> last;
    return last;
}

template <class D, class A, class B, class C>
inline bool repeat_last_product(D &d, const A &a, const B &b, const C &c, bool satf)
{
    last_product<D, A, B, C> &last = last_product_of_this_thread<D, A, B, C>();
    if (!last.valid || last.satf != satf || memcmp(&last.a, &a, sizeof a) != 0 || memcmp(&last.b, &b, sizeof b) != 0 ||
        memcmp(&last.c, &c, sizeof c) != 0)
        return false;
    d = last.d;
    return true;
}

template <class D, class A, class B, class C>
inline void remember_product(const D &d, const A &a, const B &b, const C &c, bool satf)
{
    last_product<D, A, B, C> &last = last_product_of_this_thread<D, A, B, C>();
    last.a = a;
    last.b = b;
    last.c = c;
    last.d = d;
    last.satf = satf;
    last.valid = true;
}
#else
/* cuda2cpu's parse of device code (clang's CUDA mode) sees the computation only. */
template <class D, class A, class B, class C>
MOCCUDA_MMA_HD bool repeat_last_product(D &, const A &, const B &, const C &, bool)
{
    return false;
}
template <class D, class A, class B, class C>
MOCCUDA_MMA_HD void remember_product(const D &, const A &, const B &, const C &, bool)
{
}
#endif

/* sum[m][n] += left[m][k] * right[k][n] in k order for each element, the operands already in the
 * summing type (converted once per element, not once per product; the inner loop vectorizes). */
template <int M, int N, int K, class S>
MOCCUDA_MMA_HD void multiply_add(S *__restrict__ sum, const S *__restrict__ left, const S *__restrict__ right)
{
    for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k) {
            const S l = left[m * K + k];
            for (int n = 0; n < N; ++n)
                sum[m * N + n] += l * right[k * N + n];
        }
}

}  // namespace detail

/* D = A x B + C; D may be C (the usual accumulate in place). */
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
inline __device__ void mma_sync(fragment<accumulator, M, N, K, TD> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
                                const fragment<matrix_b, M, N, K, TB, LB> &b,
                                const fragment<accumulator, M, N, K, TC> &c, bool satf = false)
{
    if (detail::repeat_last_product(d, a, b, c, satf))
        return;
    typedef typename detail::sum_type<TC>::type S;
    S left[M * K], right[K * N], sum[M * N];
    for (int i = 0; i < M * K; ++i)
        left[i] = (S)detail::operand(a.x[i]);
    for (int i = 0; i < K * N; ++i)
        right[i] = (S)detail::operand(b.x[i]);
    for (int i = 0; i < M * N; ++i)
        sum[i] = (S)c.x[i];
    detail::multiply_add<M, N, K>(sum, left, right);
    fragment<accumulator, M, N, K, TD> result;
    for (int i = 0; i < M * N; ++i)
        result.x[i] = detail::to_accumulator<TD, S>(sum[i], satf);
    detail::remember_product(result, a, b, c, satf);  // before d is written: d may be c
    d = result;
}
template <int M, int N, int K, class LA, class LB>
inline __device__ void mma_sync(fragment<accumulator, M, N, K, float> &d,
                                const fragment<matrix_a, M, N, K, precision::tf32, LA> &a,
                                const fragment<matrix_b, M, N, K, precision::tf32, LB> &b,
                                const fragment<accumulator, M, N, K, float> &c, bool satf = false)
{
    if (detail::repeat_last_product(d, a, b, c, satf))
        return;
    float left[M * K], right[K * N], sum[M * N];
    for (int i = 0; i < M * K; ++i)
        left[i] = detail::tf32_operand(a.x[i]);
    for (int i = 0; i < K * N; ++i)
        right[i] = detail::tf32_operand(b.x[i]);
    for (int i = 0; i < M * N; ++i)
        sum[i] = c.x[i];
    detail::multiply_add<M, N, K>(sum, left, right);
    fragment<accumulator, M, N, K, float> result;
    for (int i = 0; i < M * N; ++i)
        result.x[i] = satf ? detail::saturate(sum[i]) : sum[i];
    detail::remember_product(result, a, b, c, satf);  // before d is written: d may be c
    d = result;
}

/* float -> tf32, rounded to nearest with ties away from zero (cvt.rna.tf32.f32), kept in a float. */
inline __host__ __device__ float __float_to_tf32(float v)
{
    unsigned bits;
    memcpy(&bits, &v, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u) {
        bits += 0x1000u;
        bits &= 0xffffe000u;
    }
    float r;
    memcpy(&r, &bits, sizeof r);
    return r;
}

}  // namespace wmma
}  // namespace nvcuda

#undef MOCCUDA_MMA_HD

#endif
