/* MocCUDA: what device code needs beyond the runtime API.
 *
 *  - Parse mode: the builtin variables (threadIdx, ...) and the device-only functions
 *    (__syncthreads, warp shuffles and votes, ...) are declared so that clang type-checks kernels.
 *    cuda2cpu replaces every use of them, so compile mode declares none of them: a use the
 *    translator missed is then a compile error, not a silently wrong program.
 *  - Both modes: math (cuda2cpu_math.h), SIMD video intrinsics (cuda2cpu_simd.h), atomics and
 *    fences (cuda2cpu_atomic.h), clock64().
 *  - Compile mode: moccuda::LaunchConfig and the hooks every translated kernel calls.
 */
#ifndef MOCCUDA_CUDA2CPU_DEVICE_H
#define MOCCUDA_CUDA2CPU_DEVICE_H
/* `if constexpr` is C++17; g++ and clang accept it in C++11/14 as an extension, with a warning
 * per use that would land in the user's build (nvcc's own headers are system headers). */
#if defined(__GNUC__) && defined(__cplusplus) && __cplusplus < 201703L
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wc++17-extensions"
#pragma GCC diagnostic ignored "-Wc++14-extensions"
#endif
#ifdef __cplusplus

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifndef __CUDA2CPU_PARSE__
#include <limits>
#include <new>
#include <type_traits>
/* NestedTeams and block fibers call the OpenMP runtime (translated programs are always built with
 * OpenMP on).
 * With g++, through <omp.h>: a program including it later (PyTorch's ATen/Parallel.h does) must
 * see the same declarations, and g++'s carry noexcept.  With clang, declared as libomp's <omp.h>
 * declares them (clang may be looking at g++'s <omp.h>, which it cannot read).  Without OpenMP
 * there is no NestedTeams, and block fibers run on the calling thread. */
#if defined(_OPENMP) && !defined(__clang__)
#include <omp.h>
#elif defined(_OPENMP)
extern "C" int omp_get_max_threads(void);
extern "C" int omp_get_max_active_levels(void);
extern "C" void omp_set_max_active_levels(int);
extern "C" int omp_get_active_level(void);
extern "C" int omp_get_thread_num(void);
#endif
#endif

#include "cuda_runtime_api.h"
#include "cuda2cpu_math.h"
#include "cuda2cpu_simd.h"
#include "cuda2cpu_atomic.h"
#include "cuda2cpu_warp.h"
#include "cuda2cpu_ptx.h"

#ifdef __CUDA2CPU_PARSE__
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);

/* Warp shuffles, overloaded as CUDA's are (a narrower integer promotes to int). */
#define MOCCUDA_SHUFFLES(T)                                                                         \
    __device__ T __shfl_sync(unsigned int mask, T var, int src_lane, int width = 32);               \
    __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);      \
    __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);    \
    __device__ T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32);
MOCCUDA_SHUFFLES(int)
MOCCUDA_SHUFFLES(unsigned int)
MOCCUDA_SHUFFLES(long)
MOCCUDA_SHUFFLES(unsigned long)
MOCCUDA_SHUFFLES(long long)
MOCCUDA_SHUFFLES(unsigned long long)
MOCCUDA_SHUFFLES(float)
MOCCUDA_SHUFFLES(double)
#undef MOCCUDA_SHUFFLES

__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ unsigned int __activemask(void);
__device__ unsigned int __match_any_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);

/* clang lowers k<<<grid, block, shared, stream>>>(...) to a call of one of these: the first when it
 * finds a CUDA 9.2+ toolkit on the machine, the second (the old launch API) when it finds none.  The
 * parse must not depend on whether a toolkit is installed, so both are declared. */
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, void *stream = 0);
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shmem = 0, void *stream = 0);
#endif /* __CUDA2CPU_PARSE__ */

/* The clock rate the device reports (cudaDeviceProp::clockRate, cudaDevAttrClockRate), in kHz. */
#define MOCCUDA_CLOCK_RATE_KHZ 1530000LL

/* A per-thread cycle counter on the GPU; here a monotonic clock counted in cycles of the clock
 * rate the device reports, so that a program that waits for `ms * clockRate` cycles waits `ms`. */
inline __host__ __device__ long long clock64(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    return ns / 1000000 * MOCCUDA_CLOCK_RATE_KHZ + ns % 1000000 * MOCCUDA_CLOCK_RATE_KHZ / 1000000;
}

#ifdef __cplusplus
namespace moccuda {
/* clock() in device code (cuda2cpu calls this instead): the same counter as clock64(). */
inline __host__ __device__ clock_t clock_ticks(void) { return (clock_t)clock64(); }
}  // namespace moccuda
#endif

/* Suspends the calling thread for about `ns` nanoseconds (CUDA: at most 1 ms, a hint). */
inline __host__ __device__ void __nanosleep(unsigned int ns)
{
    struct timespec wait = {0, (long)(ns < 1000000u ? ns : 1000000u)};
    nanosleep(&wait, 0);
}

#ifndef __CUDA2CPU_PARSE__
/* Before each translated kernel function.  Its loops over a block's threads are rows of 16 to
 * 1024 elements, and g++ turns a copy or fill over a row of unknown length into a call of memcpy
 * or memset (-ftree-loop-distribute-patterns, on from -O2), which costs more than the copy at a
 * row of 16 floats and splits a loop that also computes into several (Rodinia hotspot's and nw's
 * tile loads and copy-backs: the whole programs 6% faster without).  Kernels are compiled without
 * it; host code keeps it (at -O2, g++ does not vectorize a fill loop of unknown length). */
#ifndef MOCCUDA_KERNEL /* -DMOCCUDA_KERNEL= compiles kernels as host code is */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define MOCCUDA_KERNEL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define MOCCUDA_KERNEL
#endif
#endif

/* Before a kernel function that sums a block as it loads it (reassociate-reductions: a loop over
 * the block's threads with one load and one addition each) instead of MOCCUDA_KERNEL.  g++ does
 * not unroll loops (-funroll-loops is off at every level), and this loop is short and tiny: a
 * block of 256 ints is 64 SSE additions, so rolled, every block pays a mispredicted loop exit,
 * and where the loop's 16 bytes fall in a 64-byte fetch line decides its speed (4M ints: 0.41 to
 * 0.66 ms by code layout, 0.27 to 0.29 ms unrolled; an OpenMP reduction takes 0.30).  nvcc unrolls
 * device code by itself.  Only these kernels: unrolling every kernel made Rodinia's srad 6-7%
 * slower (its thread loops are long bodies of gathers and divisions). */
#ifndef MOCCUDA_SUMMING_KERNEL /* -DMOCCUDA_SUMMING_KERNEL= compiles them as host code is */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER) && !defined(__OPTIMIZE_SIZE__)
#define MOCCUDA_SUMMING_KERNEL __attribute__((optimize("no-tree-loop-distribute-patterns", "unroll-loops")))
#else
#define MOCCUDA_SUMMING_KERNEL MOCCUDA_KERNEL
#endif
#endif

namespace moccuda {

/* Placement new in device code (`new (p) T(args)`, `new (p) T{args}`), as cuda2cpu writes it. */
template <class T, class... Args>
inline T *construct_at(void *storage, Args &&...args)
{
    return ::new (storage) T(static_cast<Args &&>(args)...);
}
template <class T, class... Args>
inline T *construct_braced(void *storage, Args &&...args)
{
    return ::new (storage) T{static_cast<Args &&>(args)...};
}

/* A kernel launch's configuration, as written between <<< and >>>. */
struct LaunchConfig {
    dim3 grid;
    dim3 block;
    size_t shared_bytes;
    cudaStream_t stream;
    /* launched with cudaLaunchCooperativeKernel: all blocks run at once (cooperative_groups.h) */
    bool cooperative = false;
    LaunchConfig(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0) : grid(g), block(b), shared_bytes(s), stream(st) {}
};

/* Called first by every translated kernel: checks the configuration as CUDA does.  On a bad one
 * it records the error (cudaGetLastError reports it, as after a failed launch) and returns false,
 * and the kernel returns without running.  `kernel`, when given, selects limits set for it with
 * cudaFuncSetAttribute. */
inline bool launch_begin(const LaunchConfig &launch, const void *kernel = nullptr)
{
    return moccuda_launch_check(launch.grid, launch.block, launch.shared_bytes, launch.stream, kernel) == cudaSuccess;
}

/* Called next by every translated kernel: a launch into a stream under capture
 * (cudaStreamBeginCapture) is recorded in the capture's graph instead of run, its configuration
 * checked now as CUDA checks it at the launch.  `relaunch` calls the kernel again with the
 * launch's arguments (copied now) and the configuration `replayed` gives; it runs at each launch
 * of a graph made from the capture.  True when the launch was recorded (or refused): the kernel
 * returns at once. */
template <class Relaunch>
inline bool launch_captured(const LaunchConfig &launch, const Relaunch &relaunch)
{
    if (!moccuda_stream_capturing(launch.stream))
        return false;
    if (moccuda_launch_check(launch.grid, launch.block, launch.shared_bytes, launch.stream, nullptr) != cudaSuccess)
        return true;
    /* The closure lives in malloc'd storage, constructed in place (placement new is inline): an
     * object of translated code links with a C driver (`gcc k.o main.o -lcudart`, as Rodinia's
     * Makefiles do), so it must not need libstdc++'s operator new and delete. */
    constexpr size_t align = alignof(Relaunch) > alignof(max_align_t) ? alignof(Relaunch) : alignof(max_align_t);
    void *storage = aligned_alloc(align, (sizeof(Relaunch) + align - 1) / align * align);
    if (!storage) {
        fprintf(stderr, "MocCUDA: out of memory recording a launch into a capturing stream\n");
        abort();
    }
    moccuda_capture_launch(
        launch.stream, [](void *closure) { (*static_cast<Relaunch *>(closure))(); }, ::new (storage) Relaunch(relaunch),
        [](void *closure) {
            static_cast<Relaunch *>(closure)->~Relaunch();
            free(closure);
        });
    return true;
}

/* The configuration a recorded launch runs with when its graph is launched: on no stream of its
 * own, since the graph's steps already run in the order of the stream the graph is launched to. */
inline LaunchConfig replayed(LaunchConfig launch)
{
    launch.stream = cudaStreamPerThread;
    return launch;
}

/* cuda2cpu translates a kernel for the block size that all its launches in its own file give
 * (x, y, z; 0 where they do not agree on a constant): its barrier analyses may rest on it.  A
 * kernel that other files can launch (external linkage) checks it first: a launch from elsewhere
 * with another block size stops the program with a message located at the kernel, never runs a
 * translation made for other blocks. */
inline void check_assumed_block(const LaunchConfig &launch, unsigned x, unsigned y, unsigned z, const char *where,
                                const char *kernel)
{
    if ((x == 0 || launch.block.x == x) && (y == 0 || launch.block.y == y) && (z == 0 || launch.block.z == z))
        return;
    char assumed[3][16];
    const unsigned sizes[3] = {x, y, z};
    for (int d = 0; d < 3; ++d) {
        if (sizes[d])
            snprintf(assumed[d], sizeof assumed[d], "%u", sizes[d]);
        else
            snprintf(assumed[d], sizeof assumed[d], "*");
    }
    fprintf(stderr,
            "%s: error: kernel '%s' was translated for blocks of %sx%sx%s threads (the block size of every launch "
            "of it in its file) and is launched with %ux%ux%u, from another file: launch it with that block size, "
            "or from a function of its own file\n",
            where, kernel, assumed[0], assumed[1], assumed[2], launch.block.x, launch.block.y, launch.block.z);
    abort();
}

/* Likewise for two pointer parameters that every launch in the kernel's file passes in distinct
 * allocations (so the barrier analyses take them for distinct memory): a launch that passes two
 * pointers into one allocation (or one address twice) stops the program.  A null pointer, or one
 * outside the CUDA allocator's memory, cannot be checked and passes (a local launch gives null
 * for a buffer of 0 bytes, and a kernel given 0 elements reads nothing through it). */
inline void check_distinct_allocations(const volatile void *a_arg, const volatile void *b_arg, const char *where,
                                       const char *kernel, const char *a_name, const char *b_name)
{
    /* volatile: a kernel's `volatile int *flags` is checked too (only the addresses are read) */
    const void *a = const_cast<const void *>(a_arg), *b = const_cast<const void *>(b_arg);
    if (a == nullptr || b == nullptr)
        return;
    const void *a_start = moccuda_allocation_start(a);
    if (a != b && (a_start == nullptr || a_start != moccuda_allocation_start(b)))
        return;
    fprintf(stderr,
            "%s: error: kernel '%s' was translated for arguments '%s' and '%s' in distinct allocations (as every "
            "launch of it in its file passes them) and is launched with both in one allocation, from another file: "
            "launch it from a function of its own file\n",
            where, kernel, a_name, b_name);
    abort();
}

/* What a failing device assert throws: it ends the CUDA thread that failed.  The translated
 * kernel catches it around each thread's code (cuda2cpu emits the try only in kernels that can
 * assert), so it never leaves an OpenMP region. */
struct KernelTrap {};

/* assert() in device code, as CUDA does it: the message with the block and thread, the context's
 * sticky error cudaErrorAssert (the next synchronization, copy or launch returns it), and the end
 * of the failing thread; the kernel's other threads stop at their next segment. */
[[noreturn]] inline void device_assert_fail(const char *expression, const char *file, unsigned line,
                                            const char *function, unsigned bx, unsigned by, unsigned bz,
                                            unsigned tx, unsigned ty, unsigned tz)
{
    moccuda_device_assert(expression, file, line, function, uint3{bx, by, bz}, uint3{tx, ty, tz});
    throw KernelTrap();
}

/* Whether a device assert failed: the threads of a kernel that can assert skip their code then. */
inline bool kernel_trapped() { return moccuda_kernel_trapped() != 0; }

/* Called last by every translated kernel.  Streams are synchronous, so the launch is complete. */
inline void launch_end(const LaunchConfig &) {}

/* threadIdx, blockIdx, blockDim and gridDim for device code kept as written (a functor's
 * operator(), a member function, a lambda in one), which cuda2cpu spells moccuda::ambient().threadIdx
 * and so on: the CUDA thread the calling OpenMP thread runs.  Every kernel of such a translation
 * unit sets them (set_ambient) at the start of each block's code and of each thread's code
 * (GridLoop.sets_ambient_index), never as SIMD lanes. */
struct AmbientIndex {
    uint3 threadIdx;
    uint3 blockIdx;
    dim3 blockDim;
    dim3 gridDim;
};

namespace cooperative {
class GridBarrier;
}
namespace fibers {
class Team;
}

namespace detail {
/* Everything MocCUDA keeps per OS thread for the block that thread runs, which the block's own
 * code reads: its ambient indices, its dynamic shared memory, the grid barrier of its cooperative
 * launch, the fibers of its threads under the fallback lowering.  Blocks that wait for each other
 * run as fibers, several on one OS thread (block_fibers.h): each block fiber has its own copy,
 * swapped in while it runs, so that all of this follows the block, not the OS thread.  A value of
 * a block kept per OS thread anywhere else would be shared by the blocks of a thread's fibers:
 * it belongs here.  (The free lists of per-thread storage, detail::KeptBuffers, stay per OS
 * thread: a block takes a buffer for itself and gives it back.)  Plain data, swapped whole; the
 * dynamic shared memory buffer is freed by its owner (the OS thread or the fiber). */
struct BlockLocals {
    AmbientIndex ambient;
    /* The block's dynamic shared memory (dynamic_shared_memory), for block_dynamic_shared(). */
    void *dynamic_shared = nullptr;
    /* The buffer it lives in, reused by later blocks and launches (it only grows). */
    void *dynamic_shared_buffer = nullptr;
    size_t dynamic_shared_size = 0;
    /* The grid barrier of the block's cooperative launch (null: not cooperative). */
    cooperative::GridBarrier *grid = nullptr;
    /* The fibers of the block's threads (null: those of the OS thread, fibers::Team::local()). */
    fibers::Team *team = nullptr;

    void swap(BlockLocals &other)
    {
        BlockLocals mine = *this;
        *this = other;
        other = mine;
    }
};

inline BlockLocals &block_locals()
{
    static thread_local BlockLocals locals;
    return locals;
}

/* Frees the OS thread's own dynamic shared memory buffer when the thread ends (a block fiber's
 * own is freed with the fiber).  Made with the thread's first buffer: block_locals() itself
 * needs no guard of its initialization on every access. */
struct FreeThreadDynamicShared {
    ~FreeThreadDynamicShared() { free(block_locals().dynamic_shared_buffer); }
};

/* How many blocks the calling OS thread runs interleaved, as fibers (0 or 1: one at a time). */
inline unsigned &blocks_interleaved_on_thread()
{
    static thread_local unsigned count = 0;
    return count;
}
}  // namespace detail

inline AmbientIndex &ambient() { return detail::block_locals().ambient; }

inline void set_ambient(uint3 thread, uint3 block, dim3 block_dim, dim3 grid_dim)
{
    AmbientIndex &index = ambient();
    index.threadIdx = thread;
    index.blockIdx = block;
    index.blockDim = block_dim;
    index.gridDim = grid_dim;
}

/* Dynamic shared memory (extern __shared__) for the blocks the calling OpenMP thread runs (or
 * the block fiber): at least `bytes` bytes, 64-byte aligned (enough for any CUDA type), never a
 * null pointer.  The buffer belongs to the thread (or the fiber) and is reused by later blocks and
 * launches (it only grows), so a launch allocates nothing once the program is warm. */
inline void *&block_dynamic_shared_slot() { return detail::block_locals().dynamic_shared; }

inline void *dynamic_shared_memory(size_t bytes)
{
    detail::BlockLocals &locals = detail::block_locals();
    size_t wanted = (bytes + 63) / 64 * 64 + 64;
    if (locals.dynamic_shared_size < wanted) {
        static thread_local detail::FreeThreadDynamicShared free_at_thread_end;
        (void)free_at_thread_end;
        void *grown = aligned_alloc(64, wanted);
        if (!grown) {
            fprintf(stderr, "MocCUDA: out of memory for %zu bytes of dynamic shared memory\n", bytes);
            abort();
        }
        free(locals.dynamic_shared_buffer);
        locals.dynamic_shared_buffer = grown;
        locals.dynamic_shared_size = wanted;
    }
    locals.dynamic_shared = locals.dynamic_shared_buffer;
    return locals.dynamic_shared_buffer;
}

/* What an `extern __shared__` array declared in a member function (SharedMemory<T>'s
 * `extern __shared__ int __smem[]`) stands for: the dynamic shared memory of the block the
 * calling thread runs.  Every kernel of such a translation unit sets it up for each OpenMP
 * thread (GridLoop.binds_dynamic_shared), and a block runs on one thread.  Under the nested
 * schedule a block's threads run on several: refused, not wrong. */
inline void *block_dynamic_shared()
{
    void *memory = block_dynamic_shared_slot();
#ifdef _OPENMP
    if (omp_get_active_level() > 1)
        memory = nullptr;
#endif
    if (!memory) {
        fprintf(stderr, "MocCUDA: an extern __shared__ array of a member function is used outside a kernel's block, "
                        "or under the nested schedule (--schedule=nested), where it is not supported\n");
        abort();
    }
    return memory;
}

/* What follows a `__shared__` variable declared in a member function, which cuda2cpu makes a
 * `static thread_local` one: one per OpenMP thread stands for one per block because a block runs
 * on one thread, from its start to its end, and every kernel of such a translation unit marks
 * the thread's blocks (GridLoop.binds_dynamic_shared).  Not so outside a kernel's block or under
 * the nested schedule, where a block's threads run on several, nor where blocks that wait for
 * each other run interleaved on one thread as fibers: refused, not wrong. */
inline void block_storage_check()
{
    bool in_block = block_dynamic_shared_slot() != nullptr;
#ifdef _OPENMP
    if (omp_get_active_level() > 1)
        in_block = false;
#endif
    if (!in_block) {
        fprintf(stderr, "MocCUDA: a __shared__ variable of a member function is used outside a kernel's block, "
                        "or under the nested schedule (--schedule=nested), where it is not supported\n");
        abort();
    }
    if (detail::blocks_interleaved_on_thread() > 1) {
        fprintf(stderr, "MocCUDA: a __shared__ variable of a member function is used in a kernel whose blocks wait "
                        "for each other, while several of its blocks share an OS thread: not supported\n");
        abort();
    }
}

inline unsigned min_unsigned(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max_unsigned(unsigned a, unsigned b) { return a < b ? b : a; }

/* Facts launch_begin has checked, stated for the optimizer at the start of each block: block
 * sizes within CUDA's limits, and blockIdx * blockDim + threadIdx within int range along each
 * dimension.  Without them gcc cannot tell that `int i = blockIdx.x * blockDim.x + threadIdx.x`
 * grows by one per thread (the unsigned arithmetic might wrap) and does not vectorize.  A macro,
 * not a function: gcc 12 keeps the facts only when they are stated in the kernel itself. */
#define MOCCUDA_ASSUME_CHECKED_LAUNCH(block_index, block)                                           \
    do {                                                                                           \
        if ((block).x > 1024u || (block).y > 1024u || (block).z > 64u                              \
            || (block_index).x * (block).x > MOCCUDA_THREAD_INDEX_LIMIT                           \
            || (block_index).y * (block).y > MOCCUDA_THREAD_INDEX_LIMIT                           \
            || (block_index).z * (block).z > MOCCUDA_THREAD_INDEX_LIMIT)                          \
            __builtin_unreachable();                                                               \
    } while (0)

/* The number of threads t in [0, count) for which `first + t < limit` holds, where `first` is a
 * guarded index at t = 0 (a guard like `if (i < n)` folded into a thread loop's bound).  The
 * comparison converts as C++ compares `First` with `Limit`; the index is assumed not to wrap
 * around within one block. */
template <class First, class Limit>
inline unsigned threads_below(First first, Limit limit, unsigned count)
{
    if (count > 1024u)  // a block's extent, checked at launch: tells gcc the loop is short
        __builtin_unreachable();
    using Common = typename std::common_type<First, Limit>::type;
    if constexpr (std::is_integral<Common>::value) {
        Common f = static_cast<Common>(first), l = static_cast<Common>(limit);
        if (!(f < l))
            return 0;
        using Wide = typename std::make_unsigned<Common>::type;
        Wide room = static_cast<Wide>(static_cast<Wide>(l) - static_cast<Wide>(f));
        return room < count ? static_cast<unsigned>(room) : count;
    } else {
        unsigned t = 0;
        while (t < count && First(first + t) < limit)
            ++t;
        return t;
    }
}

/* As threads_below, for `first + t <= limit`. */
template <class First, class Limit>
inline unsigned threads_through(First first, Limit limit, unsigned count)
{
    if (count > 1024u)  // a block's extent, checked at launch: tells gcc the loop is short
        __builtin_unreachable();
    using Common = typename std::common_type<First, Limit>::type;
    if constexpr (std::is_integral<Common>::value) {
        Common f = static_cast<Common>(first), l = static_cast<Common>(limit);
        if (!(f <= l))
            return 0;
        using Wide = typename std::make_unsigned<Common>::type;
        Wide room = static_cast<Wide>(static_cast<Wide>(l) - static_cast<Wide>(f));
        return room < count ? static_cast<unsigned>(room) + 1 : count;
    } else {
        unsigned t = 0;
        while (t < count && First(first + t) <= limit)
            ++t;
        return t;
    }
}

/* The first thread t >= begin whose index `first + t` is a multiple of `divisor`: a guard
 * `if ((first + t) % divisor == 0)` folded into a thread loop that steps by `divisor`
 * (multiple_step).  guard-folding folds only where `first` and `divisor` are known never to be
 * negative, so the remainder is the mathematical one whatever types the guard computed it in.
 * A zero divisor faults here, as the guard would in the first thread that tests it; a loop
 * with no threads tests nothing. */
template <class First, class Divisor>
inline unsigned first_multiple(First first, Divisor divisor, unsigned begin, unsigned end)
{
    if (begin >= end)
        return end;
    unsigned long long d = static_cast<unsigned long long>(divisor);
    unsigned long long r = (static_cast<unsigned long long>(first) + begin) % d;
    unsigned long long ahead = r == 0 ? 0 : d - r;
    return ahead >= end - begin ? end : begin + static_cast<unsigned>(ahead);
}

/* The step of such a loop: the divisor, or past any block's extent where it is larger. */
template <class Divisor>
inline unsigned multiple_step(Divisor divisor)
{
    unsigned long long d = static_cast<unsigned long long>(divisor);
    return d > 1024u ? 1025u : static_cast<unsigned>(d);
}

/* Whether `first` leaves room for a whole block of indices `first + t` (t < 1024, a block's
 * extent) in its own type without wrapping or going negative.  A block-level test, not an
 * assumption: blocks that fail it take the guarded loop.  Within the guard-free loop gcc then
 * knows that `blockIdx.x * C + threadIdx.x` grows by one per thread and loads it as a vector
 * (without the fact, an unsigned index that might wrap is loaded element by element). */
template <class First>
inline bool index_room(First first)
{
    if constexpr (std::is_integral<First>::value) {
        if constexpr (std::is_signed<First>::value)
            if (first < 0)
                return false;
        return first <= std::numeric_limits<First>::max() - First(1024);
    } else {
        return true;
    }
}

/* Every thread t of `count` passes the guard `first + t < limit` (a guard-free version of a
 * thread loop may run), and the guarded index has room not to wrap (index_room). */
template <class First, class Limit>
inline bool every_thread_below(First first, Limit limit, unsigned count)
{
    return index_room(first) && threads_below(first, limit, count) == count;
}

/* As every_thread_below, for `first + t <= limit`. */
template <class First, class Limit>
inline bool every_thread_through(First first, Limit limit, unsigned count)
{
    return index_room(first) && threads_through(first, limit, count) == count;
}

/* Exact integers for the test of pass wide-subscripts: a product of a few 32-bit values does
 * not overflow them. */
__extension__ typedef __int128 exact_int;

/* Whether a thread loop's subscript, which C++ computes in 32-bit arithmetic of type T, has its
 * exact value at every thread of the box [x0, x1) x [y0, y1) x [z0, z1) (pass wide-subscripts).
 * `exact(x, y, z)` is that value without wrapping at thread (x, y, z); it is congruent to the
 * C++ value modulo 2^32, so the two agree where it lies in T's range, and it is affine in the
 * thread indices, so it does everywhere in the box when it does at the box's corners.  An
 * empty box runs no thread. */
template <class T, class Exact>
inline bool subscript_exact(Exact exact, unsigned x0, unsigned x1, unsigned y0, unsigned y1, unsigned z0,
                            unsigned z1)
{
    if (x0 >= x1 || y0 >= y1 || z0 >= z1)
        return true;
    const exact_int least = std::numeric_limits<T>::min(), most = std::numeric_limits<T>::max();
    const unsigned xs[2] = {x0, x1 - 1}, ys[2] = {y0, y1 - 1}, zs[2] = {z0, z1 - 1};
    // A dimension of one thread has one corner: the flat schedule tests every chunk of one row.
    const unsigned nx = x1 - x0 > 1 ? 2 : 1, ny = y1 - y0 > 1 ? 2 : 1, nz = z1 - z0 > 1 ? 2 : 1;
    for (unsigned k = 0; k < nz; ++k)
        for (unsigned j = 0; j < ny; ++j)
            for (unsigned i = 0; i < nx; ++i) {
                const exact_int value = exact(exact_int(xs[i]), exact_int(ys[j]), exact_int(zs[k]));
                if (value < least || value > most)
                    return false;
            }
    return true;
}

/* The block the OpenMP thread running `block` takes next under the blocks schedule (static
 * chunks of the x-fastest order), or one with z == grid.z after the grid's last (block-prefetch). */
inline uint3 next_block(uint3 block, dim3 grid)
{
    if (block.x + 1 < grid.x)
        return uint3{block.x + 1, block.y, block.z};
    if (block.y + 1 < grid.y)
        return uint3{0, block.y + 1, block.z};
    return uint3{0, 0, block.z + 1};
}

/* Asks the cache for the lines of base[first..last] (either order), which `threads` threads
 * read: the next block's part of a stream this block reads (block-prefetch).  A prefetch never
 * faults and changes no value, so the addresses are integers, not pointers that must stay
 * inside an object.  A span sparser than a few elements per thread (a column, a gather) or over
 * 16 KiB is left alone (false): prefetching it would cost more than it saves. */
template <class T, class First, class Last>
inline bool prefetch_span(const T *base, First first, Last last, unsigned threads)
{
    using Index = typename std::common_type<First, Last>::type;
    using Wide = typename std::conditional<std::is_signed<Index>::value, long long, unsigned long long>::type;
    const Wide a = static_cast<Wide>(first), b = static_cast<Wide>(last);
    const Wide lo = a < b ? a : b, hi = a < b ? b : a;
    const unsigned long long elements = (unsigned long long)hi - (unsigned long long)lo + 1;  // wraps: no UB
    if (elements > 16384 / sizeof(T) || elements > 4ull * threads + 64 / sizeof(T))
        return false;
    const unsigned long long start = (unsigned long long)(const void *)base + (unsigned long long)lo * sizeof(T);
    const unsigned long long bytes = elements * sizeof(T);
    for (unsigned long long line = start & ~63ull; line < start + bytes; line += 64)
        __builtin_prefetch((const void *)line);
    return true;
}

/* x << n, x >> n, x <<= n and x >>= n as the GPU computes them, for counts the translator cannot
 * prove below the width of x's promoted type.  PTX's shl/shr clamp the count: every bit is
 * shifted out, giving 0 (or, for >> of a negative signed value, -1), where x86 masks the count
 * (x << 32 == x) and C++ leaves it undefined.  One compare each; class types with their own
 * operators shift as they define.  The compound forms give the value stored (not the lvalue: a
 * volatile one would be read again).  constexpr: a shift in a constant expression (static_assert,
 * a constexpr local) stays one. */
template <class Value, class Count>
constexpr bool gpu_shift_applies = std::is_integral<Value>::value
                                   && (std::is_integral<Count>::value || std::is_enum<Count>::value);

template <class T, class C>
constexpr auto shl(T x, C n) -> decltype(x << n)
{
    using R = decltype(x << n);
    if constexpr (gpu_shift_applies<R, C>)
        return static_cast<unsigned long long>(n) < sizeof(R) * 8 ? R(x << n) : R(0);
    else
        return x << n;
}

template <class T, class C>
constexpr auto shr(T x, C n) -> decltype(x >> n)
{
    using R = decltype(x >> n);
    if constexpr (gpu_shift_applies<R, C> && std::is_signed<R>::value)
        return R(x >> (static_cast<unsigned long long>(n) < sizeof(R) * 8 ? static_cast<unsigned>(n) : sizeof(R) * 8 - 1));
    else if constexpr (gpu_shift_applies<R, C>)
        return static_cast<unsigned long long>(n) < sizeof(R) * 8 ? R(x >> n) : R(0);
    else
        return x >> n;
}

template <class T, class C>
constexpr typename std::remove_cv<T>::type shl_assign(T &x, C n)
{
    using Plain = typename std::remove_cv<T>::type;
    if constexpr (gpu_shift_applies<decltype(+x), C>) {
        const Plain value = static_cast<Plain>(shl(static_cast<Plain>(x), n));
        x = value;
        return value;
    } else {
        return x <<= n;
    }
}

template <class T, class C>
constexpr typename std::remove_cv<T>::type shr_assign(T &x, C n)
{
    using Plain = typename std::remove_cv<T>::type;
    if constexpr (gpu_shift_applies<decltype(+x), C>) {
        const Plain value = static_cast<Plain>(shr(static_cast<Plain>(x), n));
        x = value;
        return value;
    } else {
        return x >>= n;
    }
}

/* Per-block storage of one T per thread, for a variable that lives across a barrier
 * (barrier-split's kept values; it gives small types of known size a plain array instead).
 * Up to MOCCUDA_KEPT_STACK_BYTES it is an array in the block's stack frame, as fast as storage
 * gets.  Above, it is a buffer of the OpenMP thread's own, reused by the later blocks and launches
 * the thread runs: `unsigned char state[32768]` kept for 1024 threads is 32 MiB, beyond any
 * thread's stack.  Only the pages of the threads a block has are touched.  Elements are default-
 * initialized, as in an array. */
#ifndef MOCCUDA_KEPT_STACK_BYTES
#define MOCCUDA_KEPT_STACK_BYTES (64u * 1024u)
#endif

namespace detail {
/* The OpenMP thread's free per-thread storage buffers: a block takes one and gives it back. */
struct KeptBuffers {
    struct Buffer {
        void *data;
        size_t size;
    };
    Buffer free_[8];
    int count = 0;
    ~KeptBuffers()
    {
        for (int i = 0; i < count; ++i)
            ::free(free_[i].data);
    }
    static KeptBuffers &of_this_thread()
    {
        static thread_local KeptBuffers buffers;
        return buffers;
    }
    void *take(size_t bytes)
    {
        for (int i = 0; i < count; ++i)
            if (free_[i].size >= bytes) {
                void *data = free_[i].data;
                free_[i] = free_[--count];
                return data;
            }
        void *data = aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!data) {
            fprintf(stderr, "MocCUDA: out of memory for %zu bytes of per-thread storage\n", bytes);
            abort();
        }
        return data;
    }
    void give_back(void *data, size_t bytes)
    {
        if (count == 8) {
            ::free(free_[0].data);
            free_[0] = free_[--count];
        }
        free_[count++] = Buffer{data, bytes};
    }
};
}  // namespace detail

template <class T, unsigned Threads, bool OnStack = (sizeof(T) * Threads <= MOCCUDA_KEPT_STACK_BYTES),
          bool Constructible = std::is_default_constructible<T>::value>
class PerThread;

/* A declaration without an initializer of a variable kept per thread (`Loader load;` before a
 * barrier): the thread's element, made with the block's storage, is default-constructed again
 * where the declaration is, so its constructor runs in each thread, as in CUDA (it may read
 * threadIdx through moccuda::ambient()).  Nothing to do for trivial types. */
template <class T>
inline void default_construct(T &, std::true_type) {}

template <class T>
inline void default_construct(T &value, std::false_type)
{
    value.~T();
    new (static_cast<void *>(&value)) T;
}

template <class T>
inline void default_construct(T &value)
{
    default_construct(value, std::is_trivially_default_constructible<T>());
}

template <class T, size_t N>
inline void default_construct(T (&values)[N])
{
    for (size_t i = 0; i < N; ++i)
        default_construct(values[i]);
}

template <class T, unsigned Threads>
class PerThread<T, Threads, true, true> {
public:
    T &operator[](unsigned thread) { return data_[thread]; }

private:
    T data_[Threads];
};

template <class T, unsigned Threads>
class PerThread<T, Threads, false, true> {
    using Element = typename std::remove_all_extents<T>::type;
    static constexpr size_t elements = sizeof(T) / sizeof(Element) * Threads;

public:
    PerThread() : data_(static_cast<T *>(detail::KeptBuffers::of_this_thread().take(sizeof(T) * Threads)))
    {
        construct(std::is_trivially_default_constructible<Element>());
    }
    ~PerThread()
    {
        destroy(std::is_trivially_destructible<Element>());
        detail::KeptBuffers::of_this_thread().give_back(data_, sizeof(T) * Threads);
    }
    PerThread(const PerThread &) = delete;
    PerThread &operator=(const PerThread &) = delete;
    T &operator[](unsigned thread) { return data_[thread]; }

private:
    void construct(std::true_type) {}
    void construct(std::false_type)
    {
        Element *first = reinterpret_cast<Element *>(data_);
        for (size_t i = 0; i < elements; ++i)
            new (static_cast<void *>(first + i)) Element;
    }
    void destroy(std::true_type) {}
    void destroy(std::false_type)
    {
        Element *first = reinterpret_cast<Element *>(data_);
        for (size_t i = 0; i < elements; ++i)
            first[i].~Element();
    }
    T *data_;
};

/* A type without a default constructor (a CUB-like collective holding a reference to its
 * storage, made by `BlockExchange(storage)`): the block's storage is left raw, and each thread's
 * element is made where its declaration is (kept_init). */
template <class T, unsigned Threads, bool OnStack>
class PerThread<T, Threads, OnStack, false> {
public:
    PerThread() : data_(static_cast<T *>(detail::KeptBuffers::of_this_thread().take(sizeof(T) * Threads))) {}
    ~PerThread() { detail::KeptBuffers::of_this_thread().give_back(data_, sizeof(T) * Threads); }
    PerThread(const PerThread &) = delete;
    PerThread &operator=(const PerThread &) = delete;
    T &operator[](unsigned thread) { return data_[thread]; }

private:
    T *data_;
};

/* The initialization of a variable kept per thread, `C x = e;` before a barrier: an assignment
 * to the thread's element where the type allows one, else a construction in its place (a class
 * with a reference member, or without a default constructor, whose element PerThread left raw). */
template <class T, class U>
inline void kept_init(T &slot, U &&value, std::true_type)
{
    slot = static_cast<U &&>(value);
}

template <class T, class U>
inline void kept_init(T &slot, U &&value, std::false_type)
{
    if (std::is_default_constructible<T>::value)
        slot.~T();
    new (static_cast<void *>(&slot)) T(static_cast<U &&>(value));
}

template <class T, class U>
inline void kept_init(T &slot, U &&value)
{
    kept_init(slot, static_cast<U &&>(value),
              std::integral_constant<bool, std::is_default_constructible<T>::value &&
                                               std::is_assignable<T &, U &&>::value>());
}

/* The nested schedule's team sizes: an outer team over the blocks and, inside each, an inner
 * team over the block's threads, together about the OpenMP thread count (OMP_NUM_THREADS).
 * Nested parallelism is enabled while the object lives and restored after. */
#ifdef _OPENMP
class NestedTeams {
public:
    explicit NestedTeams(dim3 grid) : saved_levels_(omp_get_max_active_levels())
    {
        unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
        int threads = omp_get_max_threads();
        outer = blocks < (unsigned long long)threads ? (int)(blocks ? blocks : 1) : threads;
        inner = threads / outer > 1 ? threads / outer : 1;
        if (saved_levels_ < 2)
            omp_set_max_active_levels(2);
    }
    ~NestedTeams() { omp_set_max_active_levels(saved_levels_); }
    NestedTeams(const NestedTeams &) = delete;
    NestedTeams &operator=(const NestedTeams &) = delete;
    int outer, inner;

private:
    int saved_levels_;
};
#endif /* _OPENMP */

/* A thread-invariant value a block computes at most once, when its first thread needs it
 * (parallel-licm, a call under a guard): (cell.ready() ? cell.get() : cell.set(f(x))).  The
 * block's threads run one after another on one OpenMP thread, so the cell needs no lock. */
template <class Expr>  /* decltype of the call: the value type is its decay */
class BlockOnce {
    typedef typename std::decay<Expr>::type T;

public:
    // (No std::optional: the header must compile as C++11 and C++14, which nvcc users pass.)
    BlockOnce() {}
    BlockOnce(const BlockOnce &other)
    {
        if (other.ready_)
            set(other.get());
    }
    BlockOnce &operator=(const BlockOnce &) = delete;
    ~BlockOnce()
    {
        if (ready_)
            reinterpret_cast<T *>(storage_)->~T();
    }
    bool ready() const { return ready_; }
    const T &get() const { return *reinterpret_cast<const T *>(storage_); }
    const T &set(T value)
    {
        T *stored = ::new (static_cast<void *>(storage_)) T(static_cast<T &&>(value));
        ready_ = true;
        return *stored;
    }

private:
    alignas(T) unsigned char storage_[sizeof(T)];
    bool ready_ = false;
};

}  // namespace moccuda
#endif /* !__CUDA2CPU_PARSE__ */

#endif /* __cplusplus */
#if defined(__GNUC__) && defined(__cplusplus) && __cplusplus < 201703L
#pragma GCC diagnostic pop
#endif
#endif /* MOCCUDA_CUDA2CPU_DEVICE_H */
