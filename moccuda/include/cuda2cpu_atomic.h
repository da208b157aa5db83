/* MocCUDA: CUDA's atomic functions and memory fences, for kernels compiled as host code.
 *
 * A translated kernel runs its blocks on different OpenMP threads, so these are real atomics
 * (GCC's __atomic builtins, which clang also provides).  CUDA's atomics impose no ordering on
 * other memory accesses, hence relaxed order; the fences supply ordering where a kernel asks.
 * The _block and _system variants (narrower and wider scopes) are the same operations here.
 */
#ifndef MOCCUDA_CUDA2CPU_ATOMIC_H
#define MOCCUDA_CUDA2CPU_ATOMIC_H
#ifdef __cplusplus

#include "host_defines.h"

#define MOCCUDA_HD inline __host__ __device__

namespace moccuda {
namespace detail {

/* Replaces *p with update(*p) atomically and returns the old value: a compare-and-swap loop
 * over the value's bits, for operations the hardware lacks (floating-point add, ...). */
template <class T, class Update>
MOCCUDA_HD T atomic_update(T *p, Update update)
{
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    T next = update(old);
    while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        next = update(old); /* old now holds the value another thread wrote */
    return old;
}

}  // namespace detail
}  // namespace moccuda

/* The scoped variants of an atomic function: name_block and name_system, same arguments. */
#define MOCCUDA_SCOPED(R, NAME, PARAMS, ARGS)                                                       \
    MOCCUDA_HD R NAME##_block PARAMS { return NAME ARGS; }                                          \
    MOCCUDA_HD R NAME##_system PARAMS { return NAME ARGS; }

/* Every integer atomic for one type. */
#define MOCCUDA_INTEGER_ATOMICS(T)                                                                  \
    MOCCUDA_HD T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }        \
    MOCCUDA_HD T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }        \
    MOCCUDA_HD T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }      \
    MOCCUDA_HD T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }        \
    MOCCUDA_HD T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }          \
    MOCCUDA_HD T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }        \
    MOCCUDA_HD T atomicMin(T *p, T v)                                                               \
    {                                                                                               \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                               \
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
        }                                                                                           \
        return old;                                                                                 \
    }                                                                                               \
    MOCCUDA_HD T atomicMax(T *p, T v)                                                               \
    {                                                                                               \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                               \
        while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
        }                                                                                           \
        return old;                                                                                 \
    }                                                                                               \
    MOCCUDA_HD T atomicCAS(T *p, T compare, T value)                                                \
    {                                                                                               \
        /* On failure the builtin stores the current value in `compare`: both ways it is the old value. */ \
        __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return compare;                                                                             \
    }                                                                                               \
    MOCCUDA_SCOPED(T, atomicAdd, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicSub, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicExch, (T * p, T v), (p, v))                                             \
    MOCCUDA_SCOPED(T, atomicAnd, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicOr, (T * p, T v), (p, v))                                               \
    MOCCUDA_SCOPED(T, atomicXor, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicMin, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicMax, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicCAS, (T * p, T compare, T value), (p, compare, value))

MOCCUDA_INTEGER_ATOMICS(int)
MOCCUDA_INTEGER_ATOMICS(unsigned int)
MOCCUDA_INTEGER_ATOMICS(long long)
MOCCUDA_INTEGER_ATOMICS(unsigned long long)
#undef MOCCUDA_INTEGER_ATOMICS

/* 16-bit compare-and-swap (compute capability 7.0). */
MOCCUDA_HD unsigned short atomicCAS(unsigned short *p, unsigned short compare, unsigned short value)
{
    __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return compare;
}
MOCCUDA_SCOPED(unsigned short, atomicCAS, (unsigned short *p, unsigned short compare, unsigned short value),
               (p, compare, value))

/* Floating-point add and exchange. */
#define MOCCUDA_FLOAT_ATOMICS(T)                                                                    \
    MOCCUDA_HD T atomicAdd(T *p, T v)                                                               \
    {                                                                                               \
        return moccuda::detail::atomic_update(p, [v](T old) { return old + v; });                   \
    }                                                                                               \
    MOCCUDA_HD T atomicExch(T *p, T v)                                                              \
    {                                                                                               \
        T old;                                                                                      \
        __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);                                           \
        return old;                                                                                 \
    }                                                                                               \
    MOCCUDA_SCOPED(T, atomicAdd, (T * p, T v), (p, v))                                              \
    MOCCUDA_SCOPED(T, atomicExch, (T * p, T v), (p, v))
MOCCUDA_FLOAT_ATOMICS(float)
MOCCUDA_FLOAT_ATOMICS(double)
#undef MOCCUDA_FLOAT_ATOMICS

/* Wrapping increment and decrement: ((old >= limit) ? 0 : old + 1) and
 * ((old == 0 || old > limit) ? limit : old - 1). */
MOCCUDA_HD unsigned int atomicInc(unsigned int *p, unsigned int limit)
{
    return moccuda::detail::atomic_update(p, [limit](unsigned int old) { return old >= limit ? 0u : old + 1u; });
}
MOCCUDA_HD unsigned int atomicDec(unsigned int *p, unsigned int limit)
{
    return moccuda::detail::atomic_update(p, [limit](unsigned int old) {
        return (old == 0u || old > limit) ? limit : old - 1u;
    });
}
MOCCUDA_SCOPED(unsigned int, atomicInc, (unsigned int *p, unsigned int limit), (p, limit))
MOCCUDA_SCOPED(unsigned int, atomicDec, (unsigned int *p, unsigned int limit), (p, limit))
#undef MOCCUDA_SCOPED

/* Fences order this thread's memory accesses as seen by every other thread. */
MOCCUDA_HD void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MOCCUDA_HD void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MOCCUDA_HD void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#undef MOCCUDA_HD
#endif /* __cplusplus */
#endif /* MOCCUDA_CUDA2CPU_ATOMIC_H */
