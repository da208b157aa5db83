/* MocCUDA: warp-level operations.
 *
 *  - Parse mode: the warp intrinsics cuda2cpu_device.h does not declare (match, reduce).
 *  - Compile mode: moccuda::warp, what cuda2cpu's lowered warp collectives call.  A collective
 *    has been split in two (pass warp-collectives): each thread first writes its operand into the
 *    block's exchange array at its flat thread id and stamps its slot of `stamp` with the block's
 *    current collective count; after a warp-scope synchronization each thread calls one of the
 *    functions below, which reads the slots of its warp segment.
 *
 * Lanes: lane = flat thread id % 32 (so lanes are consecutive in the flat id, also for 2-D and
 * 3-D blocks, and the last warp of a block may be partial).  A segment is `width` consecutive
 * lanes (a shuffle's width, a tile's size).  A lane *takes part* when it exists (flat id below
 * the block's thread count), is in `mask`, and reached the same collective as the caller (equal
 * stamp; `stamp` is null where every thread of the block reaches the collective together, as
 * the translator proved).  Reading a lane that does not exist or did not reach the collective
 * (undefined in CUDA) gives 0, as GPUs do (read_lane); votes, matches and reductions count only
 * the lanes that take part.
 */
#ifndef MOCCUDA_CUDA2CPU_WARP_H
#define MOCCUDA_CUDA2CPU_WARP_H
#ifdef __cplusplus

#ifdef __CUDA2CPU_PARSE__
#define MOCCUDA_MATCH(T)                                                                            \
    __device__ unsigned int __match_any_sync(unsigned int mask, T value);                          \
    __device__ unsigned int __match_all_sync(unsigned int mask, T value, int *pred);
MOCCUDA_MATCH(unsigned int)
MOCCUDA_MATCH(long)
MOCCUDA_MATCH(unsigned long)
MOCCUDA_MATCH(long long)
MOCCUDA_MATCH(unsigned long long)
MOCCUDA_MATCH(float)
MOCCUDA_MATCH(double)
#undef MOCCUDA_MATCH
__device__ unsigned int __match_all_sync(unsigned int mask, int value, int *pred);
__device__ int __reduce_add_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_min_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_max_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_and_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_or_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value);
/* Shuffles without a mask (removed in CUDA 9): declared so that their use is cuda2cpu's located
 * error rather than clang's "undeclared identifier". */
__device__ int __shfl(int var, int src_lane, int width = 32);
__device__ float __shfl(float var, int src_lane, int width = 32);
__device__ int __shfl_up(int var, unsigned int delta, int width = 32);
__device__ float __shfl_up(float var, unsigned int delta, int width = 32);
__device__ int __shfl_down(int var, unsigned int delta, int width = 32);
__device__ float __shfl_down(float var, unsigned int delta, int width = 32);
__device__ int __shfl_xor(int var, int lane_mask, int width = 32);
__device__ float __shfl_xor(float var, int lane_mask, int width = 32);
#else
#include <cstddef>
#include <cstdio>
#include <cstdlib>
namespace moccuda {
namespace warp {

/* Where the caller stands: its lane, the first lane of its segment, the flat id of lane 0. */
struct Place {
    unsigned lane, first, base, width;
    Place(unsigned flat, int w) : lane(flat % 32u), first(lane & ~((unsigned)w - 1u)), base(flat - lane),
                                  width((unsigned)w)
    {
        if (w > 32)
            several_warps(w);
    }
    /* A warp operation on a tile whose size, a template's parameter, is more than a warp where not
     * every thread of the block reaches it (cg::reduce elsewhere reduces at the block's barrier). */
    [[noreturn]] static void several_warps(int w)
    {
        std::fprintf(stderr, "cuda2cpu: a warp operation on a thread_block_tile<%d>, a tile of several warps, where "
                             "not every thread of the block reaches it together, is not supported\n", w);
        std::abort();
    }
};

/* The lanes of the caller's segment that take part, as bits relative to the segment. */
inline unsigned taking_part(const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, int width)
{
    Place p(flat, width);
    unsigned bits = 0;
    for (unsigned i = 0; i < p.width; ++i) {
        unsigned f = p.base + p.first + i;
        if (f < nthreads && ((mask >> (p.first + i)) & 1u) && (stamp == nullptr || stamp[f] == stamp[flat]))
            bits |= 1u << i;
    }
    return bits;
}

/* The value of lane `src` (warp-relative) of the caller's warp.  A lane that does not exist (past
 * a partial warp's end) or did not reach this collective is inactive: CUDA leaves what a shuffle
 * reads from it undefined, and GPUs read 0, which warp sums over partial warps or divergent lanes
 * rely on (cuda-samples' reduce7 shuffles its last 8 partial sums over the whole warp); so does
 * this.  A lane that reached the collective but is outside the mask gives its value, as on a GPU
 * (the mask says which lanes must arrive, not which are read). */
template <class T>
inline T read_lane(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, T own, unsigned src)
{
    unsigned f = flat - flat % 32u + src;
    if (src >= 32u)
        return own;
    if (f >= nthreads || (stamp != nullptr && stamp[f] != stamp[flat]))
        return T();
    return xchg[f];
}

template <class T>
inline T shfl(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, T own,
              int src_lane, int width)
{
    (void)mask;  /* which lanes must arrive: read_lane reads any lane that did */
    Place p(flat, width);  /* CUDA: srcLane is taken modulo width */
    return read_lane(xchg, stamp, flat, nthreads, own, p.first + ((unsigned)src_lane & (p.width - 1u)));
}

template <class T>
inline T shfl_up(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, T own,
                 unsigned delta, int width)
{
    (void)mask;  /* which lanes must arrive: read_lane reads any lane that did */
    Place p(flat, width);  /* below the segment: the caller's own value */
    if (delta > p.lane - p.first)
        return own;
    return read_lane(xchg, stamp, flat, nthreads, own, p.lane - delta);
}

template <class T>
inline T shfl_down(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, T own,
                   unsigned delta, int width)
{
    (void)mask;  /* which lanes must arrive: read_lane reads any lane that did */
    Place p(flat, width);  /* past the segment: the caller's own value */
    if (delta >= p.width - (p.lane - p.first))
        return own;
    return read_lane(xchg, stamp, flat, nthreads, own, p.lane + delta);
}

template <class T>
inline T shfl_xor(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, T own,
                  int lane_mask, int width)
{
    (void)mask;  /* which lanes must arrive: read_lane reads any lane that did */
    Place p(flat, width);
    unsigned src = p.lane ^ (unsigned)lane_mask;
    if ((src & ~(p.width - 1u)) != p.first)  /* outside the segment: the caller's own value */
        return own;
    return read_lane(xchg, stamp, flat, nthreads, own, src);
}

/* The block's stamps start at 0: a stale stamp of the block run before on this thread's stack
 * could equal this block's counter. */
inline void clear_slots(unsigned *stamp, unsigned nthreads)
{
    for (unsigned f = 0; f < nthreads; ++f)
        stamp[f] = 0;
}

/* An exchange array that every lane of the block reaches has a warp of slots on either side of
 * the block's (see below): they are read, and the result discarded, so they hold a value. */
template <class T, unsigned N>
inline void clear_pads(T (&xchg)[N], unsigned nthreads)
{
    static_assert(N >= 64, "a warp of slots on either side");
    for (unsigned f = 0; f < 32u; ++f) {
        xchg[f] = T();
        xchg[32u + nthreads + f] = T();
    }
}

/* The same shuffles where every lane of the block reached the collective together (the translator
 * proved it and passes no stamps) and the exchange array has a warp of zeroed slots on either side
 * (`xchg` points past the first pad).  The source slot is read unconditionally and the result
 * selected without a branch, so the caller's thread loop vectorizes; the results are those of
 * the general functions above: the caller's own value outside its segment, 0 from a lane past the
 * block's end. */
template <class T>
inline T shfl(const T *xchg, std::nullptr_t, unsigned flat, unsigned nthreads, unsigned mask, T own, int src_lane,
              int width)
{
    (void)mask;
    (void)own;
    Place p(flat, width);
    unsigned f = p.base + p.first + ((unsigned)src_lane & (p.width - 1u));
    T v = xchg[f];
    return f < nthreads ? v : T();
}

template <class T>
inline T shfl_up(const T *xchg, std::nullptr_t, unsigned flat, unsigned nthreads, unsigned mask, T own,
                 unsigned delta, int width)
{
    (void)mask;
    (void)nthreads;  /* a lane below the caller exists */
    Place p(flat, width);
    T v = xchg[(int)flat - (int)(delta < 32u ? delta : 32u)];
    return delta > p.lane - p.first ? own : v;
}

template <class T>
inline T shfl_down(const T *xchg, std::nullptr_t, unsigned flat, unsigned nthreads, unsigned mask, T own,
                   unsigned delta, int width)
{
    (void)mask;
    Place p(flat, width);
    T v = xchg[flat + (delta < 32u ? delta : 32u)];
    T source = flat + delta < nthreads ? v : T();
    return delta >= p.width - (p.lane - p.first) ? own : source;
}

template <class T>
inline T shfl_xor(const T *xchg, std::nullptr_t, unsigned flat, unsigned nthreads, unsigned mask, T own,
                  int lane_mask, int width)
{
    (void)mask;
    Place p(flat, width);
    unsigned src = p.lane ^ (unsigned)lane_mask;
    T v = xchg[p.base + (src & 31u)];
    T source = p.base + src < nthreads ? v : T();
    return (src & ~(p.width - 1u)) != p.first ? own : source;
}

inline unsigned ballot(const int *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask,
                       int width)
{
    Place p(flat, width);
    unsigned lanes = taking_part(stamp, flat, nthreads, mask, width), bits = 0;
    for (unsigned i = 0; i < p.width; ++i)
        if (((lanes >> i) & 1u) && xchg[p.base + p.first + i])
            bits |= 1u << i;
    return bits;
}

inline int any(const int *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, int width)
{
    return ballot(xchg, stamp, flat, nthreads, mask, width) != 0;
}

inline int all(const int *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, int width)
{
    return ballot(xchg, stamp, flat, nthreads, mask, width) == taking_part(stamp, flat, nthreads, mask, width);
}

inline unsigned activemask(const unsigned *stamp, unsigned flat, unsigned nthreads, int width)
{
    return taking_part(stamp, flat, nthreads, ~0u, width);
}

/* The lane of a coalesced group's thread of rank `rank` modulo the group's size (the lanes of
 * `mask` in order), as a shuffle takes its source lane modulo the width. */
inline unsigned coalesced_lane(unsigned mask, unsigned long long rank)
{
    if (mask == 0)
        return 0;
    rank %= static_cast<unsigned>(__builtin_popcount(mask));
    for (unsigned lane = 0; lane < 32; ++lane)
        if (((mask >> lane) & 1u) && rank-- == 0)
            return lane;
    return 32;
}

template <class T>
inline unsigned match_any(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask,
                          T own, int width)
{
    Place p(flat, width);
    unsigned lanes = taking_part(stamp, flat, nthreads, mask, width), bits = 0;
    for (unsigned i = 0; i < p.width; ++i)
        if (((lanes >> i) & 1u) && xchg[p.base + p.first + i] == own)
            bits |= 1u << i;
    return bits;
}

template <class T>
inline unsigned match_all(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask,
                          T own, int *pred, int width)
{
    unsigned lanes = taking_part(stamp, flat, nthreads, mask, width);
    bool same = match_any(xchg, stamp, flat, nthreads, mask, own, width) == lanes;
    *pred = same;
    return same ? lanes : 0u;
}

/* The combining operations of __reduce_*_sync and cg::reduce. */
struct Add { template <class T> T operator()(T a, T b) const { return a + b; } };
struct Min { template <class T> T operator()(T a, T b) const { return b < a ? b : a; } };
struct Max { template <class T> T operator()(T a, T b) const { return a < b ? b : a; } };
struct And { template <class T> T operator()(T a, T b) const { return a & b; } };
struct Or { template <class T> T operator()(T a, T b) const { return a | b; } };
struct Xor { template <class T> T operator()(T a, T b) const { return a ^ b; } };

/* cg::reduce with any other operator (a functor, a lambda): `op` combines, in lane order. */
template <class T, class Op>
inline T reduce_with(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, T own,
                     int width, Op op)
{
    Place p(flat, width);
    unsigned lanes = taking_part(stamp, flat, nthreads, mask, width);
    T acc = own;
    bool first = true;
    for (unsigned i = 0; i < p.width; ++i) {
        if (!((lanes >> i) & 1u))
            continue;
        T v = xchg[p.base + p.first + i];
        acc = first ? v : static_cast<T>(op(acc, v));
        first = false;
    }
    return acc;
}

/* The lanes that take part, combined in lane order by a standard operator (Sum, Min, ...). */
template <class Op, class T>
inline T reduce(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, unsigned mask, T own,
                int width)
{
    return reduce_with(xchg, stamp, flat, nthreads, mask, own, width, Op());
}

/* cg::reduce over a tile of `width` threads (a power of two, possibly several warps) after a
 * barrier of the block: the values of the caller's tile that reached it, in thread order. */
template <class T, class Op>
inline T block_reduce_with(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, int width, Op op)
{
    unsigned first = flat & ~((unsigned)width - 1u), end = first + (unsigned)width;
    T acc = xchg[flat];
    bool started = false;
    for (unsigned f = first; f < end && f < nthreads; ++f) {
        if (stamp != nullptr && stamp[f] != stamp[flat])
            continue;
        acc = started ? static_cast<T>(op(acc, xchg[f])) : xchg[f];
        started = true;
    }
    return acc;
}

template <class Op, class T>
inline T block_reduce(const T *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads, int width)
{
    return block_reduce_with(xchg, stamp, flat, nthreads, width, Op());
}

/* __syncthreads_count / _and / _or: over the block's threads that reached it. */
inline int block_count(const int *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads)
{
    int n = 0;
    for (unsigned f = 0; f < nthreads; ++f)
        n += stamp[f] == stamp[flat] && xchg[f] != 0;
    return n;
}

inline int block_and(const int *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads)
{
    for (unsigned f = 0; f < nthreads; ++f)
        if (stamp[f] == stamp[flat] && !xchg[f])
            return 0;
    return 1;
}

inline int block_or(const int *xchg, const unsigned *stamp, unsigned flat, unsigned nthreads)
{
    return block_count(xchg, stamp, flat, nthreads) != 0;
}

}  // namespace warp
}  // namespace moccuda
#endif /* __CUDA2CPU_PARSE__ */

#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_WARP_H */
