/* MocCUDA: CUDA's atomic functions and memory fences, for kernels compiled as host code.
 *
 * A translated kernel runs its blocks on different OpenMP threads, so these are real atomics
 * (GCC's __atomic builtins, which clang also provides).  CUDA's atomics impose no ordering on
 * other memory accesses, hence relaxed order; the fences supply ordering where a kernel asks.
 * The _block and _system variants (narrower and wider scopes) are the same operations here.
 */
#ifndef MOCCUDA_CUDA2CPU_ATOMIC_H
#define MOCCUDA_CUDA2CPU_ATOMIC_H
/* `if constexpr` is C++17; g++ and clang accept it in C++11/14 as an extension, with a warning
 * per use that would land in the user's build (nvcc's own headers are system headers). */
#if defined(__GNUC__) && defined(__cplusplus) && __cplusplus < 201703L
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wc++17-extensions"
#pragma GCC diagnostic ignored "-Wc++14-extensions"
#endif
#ifdef __cplusplus

#include <type_traits>

#include "host_defines.h"

#define MOCCUDA_HD inline __host__ __device__

namespace moccuda {
namespace detail {

/* Replaces *p with update(*p) atomically, in memory order `order`, and returns the old value: a
 * compare-and-swap loop over the value's bits, for operations the hardware lacks (floating-point
 * add, ...).  The failure order is relaxed or acquire: release orders are not allowed there. */
template <class T, class Update>
MOCCUDA_HD T atomic_update_ordered(T *p, int order, Update update)
{
    int failure = (order == __ATOMIC_RELAXED || order == __ATOMIC_RELEASE) ? __ATOMIC_RELAXED : __ATOMIC_ACQUIRE;
    T old;
    __atomic_load(p, &old, failure);
    T next = update(old);
    while (!__atomic_compare_exchange(p, &old, &next, true, order, failure))
        next = update(old); /* old now holds the value another thread wrote */
    return old;
}

/* CUDA's atomics (atomicAdd, ...) are relaxed. */
template <class T, class Update>
MOCCUDA_HD T atomic_update(T *p, Update update)
{
    return atomic_update_ordered(p, __ATOMIC_RELAXED, update);
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

/* CUDA 12.8's scoped atomics with an explicit memory order: __nv_atomic_<op>(ptr, ..., order,
 * scope).  The orders are the C++ (and GCC) ones; every scope is the whole program here, as the
 * blocks of a grid run on the threads of one process.  Floating-point add and sub, and min and
 * max, are compare-and-swap loops in the given order. */
#define __NV_ATOMIC_RELAXED __ATOMIC_RELAXED
#define __NV_ATOMIC_CONSUME __ATOMIC_CONSUME
#define __NV_ATOMIC_ACQUIRE __ATOMIC_ACQUIRE
#define __NV_ATOMIC_RELEASE __ATOMIC_RELEASE
#define __NV_ATOMIC_ACQ_REL __ATOMIC_ACQ_REL
#define __NV_ATOMIC_SEQ_CST __ATOMIC_SEQ_CST
#define __NV_THREAD_SCOPE_THREAD 0
#define __NV_THREAD_SCOPE_BLOCK 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_DEVICE 3
#define __NV_THREAD_SCOPE_SYSTEM 4

namespace moccuda {
namespace detail {
template <class T>
constexpr bool atomic_integer = std::is_integral<T>::value || std::is_pointer<T>::value;
}  // namespace detail
}  // namespace moccuda

template <class T>
MOCCUDA_HD T __nv_atomic_load_n(T *p, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    T value;
    __atomic_load(p, &value, order);
    return value;
}
template <class T>
MOCCUDA_HD void __nv_atomic_load(T *p, T *ret, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    __atomic_load(p, ret, order);
}
template <class T>
MOCCUDA_HD void __nv_atomic_store_n(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    __atomic_store(p, &value, order);
}
template <class T>
MOCCUDA_HD void __nv_atomic_store(T *p, T *value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    __atomic_store(p, value, order);
}
template <class T>
MOCCUDA_HD T __nv_atomic_exchange_n(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    T old;
    __atomic_exchange(p, &value, &old, order);
    return old;
}
template <class T>
MOCCUDA_HD void __nv_atomic_exchange(T *p, T *value, T *ret, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    __atomic_exchange(p, value, ret, order);
}
template <class T>
MOCCUDA_HD bool __nv_atomic_compare_exchange_n(T *p, T *expected, T desired, bool weak, int success, int failure,
                                               int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return __atomic_compare_exchange(p, expected, &desired, weak, success, failure);
}
template <class T>
MOCCUDA_HD bool __nv_atomic_compare_exchange(T *p, T *expected, T *desired, bool weak, int success, int failure,
                                             int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return __atomic_compare_exchange(p, expected, desired, weak, success, failure);
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_add(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    if constexpr (moccuda::detail::atomic_integer<T>)
        return __atomic_fetch_add(p, value, order);
    else
        return moccuda::detail::atomic_update_ordered(p, order, [value](T old) { return old + value; });
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_sub(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    if constexpr (moccuda::detail::atomic_integer<T>)
        return __atomic_fetch_sub(p, value, order);
    else
        return moccuda::detail::atomic_update_ordered(p, order, [value](T old) { return old - value; });
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_and(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return __atomic_fetch_and(p, value, order);
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_or(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return __atomic_fetch_or(p, value, order);
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_xor(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return __atomic_fetch_xor(p, value, order);
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_min(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return moccuda::detail::atomic_update_ordered(p, order, [value](T old) { return value < old ? value : old; });
}
template <class T>
MOCCUDA_HD T __nv_atomic_fetch_max(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    return moccuda::detail::atomic_update_ordered(p, order, [value](T old) { return old < value ? value : old; });
}
/* The forms without a result. */
#define MOCCUDA_NV_ATOMIC_VOID(OP)                                                                   \
    template <class T>                                                                              \
    MOCCUDA_HD void __nv_atomic_##OP(T *p, T value, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) \
    {                                                                                               \
        (void)__nv_atomic_fetch_##OP(p, value, order, scope);                                       \
    }
MOCCUDA_NV_ATOMIC_VOID(add)
MOCCUDA_NV_ATOMIC_VOID(sub)
MOCCUDA_NV_ATOMIC_VOID(and)
MOCCUDA_NV_ATOMIC_VOID(or)
MOCCUDA_NV_ATOMIC_VOID(xor)
MOCCUDA_NV_ATOMIC_VOID(min)
MOCCUDA_NV_ATOMIC_VOID(max)
#undef MOCCUDA_NV_ATOMIC_VOID
MOCCUDA_HD void __nv_atomic_thread_fence(int order, int scope = __NV_THREAD_SCOPE_SYSTEM)
{
    (void)scope;
    __atomic_thread_fence(order);
}

/* Fences order this thread's memory accesses as seen by every other thread. */
MOCCUDA_HD void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MOCCUDA_HD void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MOCCUDA_HD void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#undef MOCCUDA_HD
#endif /* __cplusplus */
#if defined(__GNUC__) && defined(__cplusplus) && __cplusplus < 201703L
#pragma GCC diagnostic pop
#endif
#endif /* MOCCUDA_CUDA2CPU_ATOMIC_H */
