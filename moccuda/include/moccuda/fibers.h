/* MocCUDA fibers: the threads of one CUDA block as cooperative contexts (cuda2cpu's fallback
 * barrier lowering, pass fiber-lowering).
 *
 * A kernel the split lowering cannot express is emitted as a per-thread function (a lambda taking
 * threadIdx and the block); the OpenMP loop over blocks calls moccuda::fibers::run_block for each
 * block, which runs that function once per CUDA thread, each on its own small stack.  A thread
 * that reaches __syncthreads() (Block::sync) switches back to the block's scheduler; once every
 * thread that has not returned is waiting there, the scheduler resumes them all.  A thread that
 * returns leaves the block and no longer holds the others back (as in CUDA, where exited threads
 * do not block barriers).  Threads of a block run one at a time on the OpenMP thread that runs
 * the block, in threadIdx order between barriers, so no locking is needed.
 *
 * Warps: a warp-scope synchronization (Block::sync_warp: __syncwarp, the middle of every warp
 * shuffle, vote or reduction, the lockstep order of legacy warp-synchronous code) waits only for
 * the lanes of its own warp (32 consecutive flat thread ids).  The scheduler runs the block one
 * warp at a time: the warp's lanes run, in lane order, until each has returned or waits.  Then
 * the lanes waiting at a warp sync whose mask is satisfied (every lane of the mask, within the
 * caller's width segment, has returned or waits at the same sync point, as CUDA's *_sync
 * intrinsics wait for the lanes of their mask) are resumed together, and the warp runs again.
 * When no waiting lane's mask is satisfied (lanes of a mask at different sync points or at
 * __syncthreads(): undefined in CUDA, a hang on some GPUs) all lanes waiting at warp syncs are
 * resumed rather than none.  When every lane of the warp has returned or waits at
 * __syncthreads(), the next warp runs.  So a shuffle in `if (warp == 0)` is never paired with
 * another warp's __syncthreads(): the other warps do not take part in it, as on a GPU.
 *
 * Stacks are allocated once per OpenMP thread (mmap, with an inaccessible guard page below each
 * so that an overflow faults instead of corrupting a neighbour) and reused by every block and
 * every launch that thread runs; a block that is itself a fiber (block_fibers.h: blocks that wait
 * for each other) has a Team of its own, kept with its fiber.  Their size is MOCCUDA_FIBER_STACK_SIZE bytes (a K or M suffix
 * allowed; default 64K, rounded up to whole pages).
 *
 * The context switch is a few instructions of assembly on x86-64 Linux (it saves only what the
 * SysV ABI says a called function preserves: rbx, rbp, r12-r15, the stack pointer, and the SSE
 * and x87 control words) and on aarch64 Linux (what AAPCS64 says: x19-x30, sp, d8-d15 and the
 * floating-point control register); elsewhere, or with MOCCUDA_FIBERS_UCONTEXT defined, it is POSIX
 * ucontext (slower: swapcontext saves the signal mask with a system call).
 *
 * Kernel code must not throw out of a fiber (an exception cannot cross the switch).
 */
#ifndef MOCCUDA_FIBERS_H
#define MOCCUDA_FIBERS_H

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#if !defined(MOCCUDA_FIBERS_UCONTEXT) && !((defined(__x86_64__) || defined(__aarch64__)) && defined(__linux__))
#define MOCCUDA_FIBERS_UCONTEXT 1
#endif
#ifdef MOCCUDA_FIBERS_UCONTEXT
#include <ucontext.h>
#endif

#if !defined(MOCCUDA_FIBERS_UCONTEXT) && defined(__x86_64__)
/* moccuda_fiber_switch(&from_sp, to_sp): save the callee-saved state on the current stack, store
 * the stack pointer in *from_sp, load to_sp and restore what was saved there.  A weak symbol, so
 * that every translation unit may carry it.  moccuda_fiber_start is where a new fiber's first
 * switch returns to: it calls the function in r13 (which never returns). */
__asm__(R"(
    .pushsection .text
    .p2align 4
    .weak moccuda_fiber_switch
    .hidden moccuda_fiber_switch
    .type moccuda_fiber_switch, @function
moccuda_fiber_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size moccuda_fiber_switch, .-moccuda_fiber_switch

    .p2align 4
    .weak moccuda_fiber_start
    .hidden moccuda_fiber_start
    .type moccuda_fiber_start, @function
moccuda_fiber_start:
    callq *%r13
    ud2
    .size moccuda_fiber_start, .-moccuda_fiber_start
    .popsection
)");
#endif
#if !defined(MOCCUDA_FIBERS_UCONTEXT) && defined(__aarch64__)
/* The same on aarch64, saving what AAPCS64 says a called function preserves: x19-x28, the frame
 * pointer x29, the link register x30 (where ret returns to), the low halves d8-d15 of v8-v15, and
 * the floating-point control register, in a 176-byte frame (sp stays 16-byte aligned).
 * moccuda_fiber_start calls the function in x19 (which never returns). */
__asm__(R"(
    .pushsection .text
    .p2align 4
    .weak moccuda_fiber_switch
    .hidden moccuda_fiber_switch
    .type moccuda_fiber_switch, %function
moccuda_fiber_switch:
    sub sp, sp, #176
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mrs x9, fpcr
    str x9, [sp, #160]
    mov x9, sp
    str x9, [x0]
    mov sp, x1
    ldr x9, [sp, #160]
    msr fpcr, x9
    ldp d14, d15, [sp, #144]
    ldp d12, d13, [sp, #128]
    ldp d10, d11, [sp, #112]
    ldp d8, d9, [sp, #96]
    ldp x29, x30, [sp, #80]
    ldp x27, x28, [sp, #64]
    ldp x25, x26, [sp, #48]
    ldp x23, x24, [sp, #32]
    ldp x21, x22, [sp, #16]
    ldp x19, x20, [sp, #0]
    add sp, sp, #176
    ret
    .size moccuda_fiber_switch, .-moccuda_fiber_switch

    .p2align 4
    .weak moccuda_fiber_start
    .hidden moccuda_fiber_start
    .type moccuda_fiber_start, %function
moccuda_fiber_start:
    blr x19
    brk #0
    .size moccuda_fiber_start, .-moccuda_fiber_start
    .popsection
)");
#endif
#ifndef MOCCUDA_FIBERS_UCONTEXT
extern "C" void moccuda_fiber_switch(void **from_sp, void *to_sp);
extern "C" void moccuda_fiber_start(void);
#endif

namespace moccuda {
namespace fibers {

/* The stack size from MOCCUDA_FIBER_STACK_SIZE (bytes, or with a K or M suffix), in whole pages. */
inline std::size_t stack_size()
{
    static const std::size_t size = [] {
        std::size_t bytes = 64 * 1024;
        if (const char *text = std::getenv("MOCCUDA_FIBER_STACK_SIZE")) {
            char *end = nullptr;
            unsigned long long value = std::strtoull(text, &end, 10);
            if (end && (*end == 'k' || *end == 'K'))
                value *= 1024, ++end;
            else if (end && (*end == 'm' || *end == 'M'))
                value *= 1024 * 1024, ++end;
            if (end == text || *end != '\0' || value < 4096 || value > (1ull << 30)) {
                std::fprintf(stderr, "MocCUDA: MOCCUDA_FIBER_STACK_SIZE='%s' is not a size between 4K and 1G; "
                                     "using 64K\n", text);
            } else {
                bytes = static_cast<std::size_t>(value);
            }
        }
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        return (bytes + page - 1) / page * page;
    }();
    return size;
}

/* A suspended context: where switch_context resumes it.  A new one is made by make_context. */
struct Context {
#ifdef MOCCUDA_FIBERS_UCONTEXT
    ucontext_t context;
#else
    void *sp = nullptr;
#endif
};

inline std::size_t page_size()
{
    static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return page;
}

/* A stack of `size` bytes (a whole number of pages) with an inaccessible guard page below it, so
 * that an overflow faults instead of corrupting a neighbour: the stack is [base + page, base +
 * page + size).  Reserved, not committed (MAP_NORESERVE): only the pages a fiber touches take
 * memory.  `what` names the stack in the message if there is no room for it. */
inline char *map_stack(std::size_t size, const char *what)
{
    void *mem = mmap(nullptr, page_size() + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (mem == MAP_FAILED || mprotect(mem, page_size(), PROT_NONE) != 0) {
        std::fprintf(stderr, "MocCUDA: cannot allocate a %zu-byte fiber stack for %s: %s\n", size, what,
                     std::strerror(errno));
        std::abort();
    }
    return static_cast<char *>(mem);
}

inline void unmap_stack(char *base, std::size_t size) { munmap(base, page_size() + size); }

/* Makes `context` call `entry` (which never returns) on the stack of `size` bytes above the guard
 * page at `base` when it is first switched to. */
inline void make_context(Context &context, char *base, std::size_t size, void (*entry)());

/* Saves the running context in `from` and resumes `to`; returns when something switches back to
 * `from`. */
inline void switch_context(Context &from, Context &to);

class Block;

/* One CUDA thread's context.  Its stack is [base + page, base + page + size), with the guard page
 * at base. */
struct Fiber {
    char *base = nullptr;
    Context context;
    uint3 index{};
    bool done = false;
    /* What a live fiber waits for: nothing (it runs in the next round of its warp), the other
     * lanes of its warp (sync_warp), or the whole block (sync). */
    enum Wait : unsigned char { Ready, Warp, Whole } wait = Ready;
    /* At a warp sync: its sync point, and the lanes (bits by lane) that must wait there too. */
    unsigned site = 0, required = 0;
};

/* The fibers of the blocks one OpenMP thread runs, and the block now running.  A block that runs
 * as a fiber itself (block_fibers.h: blocks that wait for each other, several on an OS thread)
 * has a Team of its own (detail::BlockLocals::team). */
class Team {
public:
    static Team &local()
    {
        if (Team *own = detail::block_locals().team)
            return *own;
        static thread_local Team team;
        return team;
    }

    Team() = default;
    Team(const Team &) = delete;
    Team &operator=(const Team &) = delete;
    ~Team()
    {
        for (Fiber &f : fibers_)
            unmap_stack(f.base, stack_);
    }

    /* At least n fibers with stacks (allocated once, kept for later blocks and launches). */
    void reserve(std::size_t n)
    {
        if (fibers_.size() >= n)
            return;
        stack_ = stack_size();
        fibers_.reserve(n);
        while (fibers_.size() < n) {
            Fiber f;
            f.base = map_stack(stack_, "a CUDA thread of a block");
            fibers_.push_back(f);
        }
    }

    std::vector<Fiber> fibers_;
    std::size_t stack_ = 0;
    std::size_t current_ = 0;
    Context scheduler_;
    /* The per-thread function of the running block, type-erased. */
    void (*invoke_)(void *body, const uint3 &index, Block &block) = nullptr;
    void *body_ = nullptr;
    Block *block_ = nullptr;
};

/* What a fiber sees of its block: the barriers. */
class Block {
public:
    /* __syncthreads(): wait until every thread of the block that has not returned is here. */
    void sync() { suspend(Fiber::Whole); }

    /* A warp-scope synchronization at sync point `site`: wait until every lane of this thread's
     * warp that has not returned waits too, and the lanes of `mask` within this lane's segment of
     * `width` lanes wait at `site` (see the top of this file). */
    void sync_warp(unsigned site, unsigned mask, int width)
    {
        Team &team = Team::local();
        Fiber &f = team.fibers_[team.current_];
        const unsigned lane = static_cast<unsigned>(team.current_ % 32);
        const unsigned w = width >= 1 && width <= 32 ? static_cast<unsigned>(width) : 32u;
        const unsigned segment = w == 32 ? ~0u : ((1u << w) - 1u) << (lane & ~(w - 1u));
        f.site = site;
        f.required = mask & segment;
        suspend(Fiber::Warp);
    }

    /* Runs one block: body(threadIdx, block) once per thread of `shape`. */
    template <class Body>
    static void run(const dim3 &shape, Body &body)
    {
        const std::size_t n = static_cast<std::size_t>(shape.x) * shape.y * shape.z;
        Team &team = Team::local();
        team.reserve(n);
        Block block;
        team.block_ = &block;
        team.body_ = static_cast<void *>(&body);
        team.invoke_ = [](void *b, const uint3 &index, Block &blk) { (*static_cast<Body *>(b))(index, blk); };
        std::size_t i = 0;
        for (unsigned z = 0; z < shape.z; ++z)
            for (unsigned y = 0; y < shape.y; ++y)
                for (unsigned x = 0; x < shape.x; ++x, ++i) {
                    Fiber &f = team.fibers_[i];
                    f.index = uint3{x, y, z};
                    f.done = false;
                    f.wait = Fiber::Ready;
                    prepare(team, f);
                }
        // Phases between __syncthreads(): each warp in turn runs until every lane has returned or
        // waits at __syncthreads(); then the waiting threads are released together.
        for (;;) {
            for (std::size_t first = 0; first < n; first += 32)
                run_warp(team, first, first + 32 < n ? first + 32 : n);
            bool waiting = false;
            for (i = 0; i < n; ++i) {
                Fiber &f = team.fibers_[i];
                if (!f.done)
                    f.wait = Fiber::Ready, waiting = true;
            }
            if (!waiting)
                break;
        }
        team.block_ = nullptr;
    }

private:
    void suspend(Fiber::Wait what)
    {
        Team &team = Team::local();
        Fiber &f = team.fibers_[team.current_];
        f.wait = what;
        back_to_scheduler(team, f);
    }

    /* Rounds of one warp (fibers [first, last)): each ready lane runs, in lane order, to its next
     * synchronization or its end; a round after which some lane waits at a warp sync is followed
     * by another that releases them (every lane of the warp is then waiting or done, as a warp
     * sync requires). */
    static void run_warp(Team &team, std::size_t first, std::size_t last)
    {
        for (;;) {
            for (std::size_t i = first; i < last; ++i) {
                Fiber &f = team.fibers_[i];
                if (f.done || f.wait != Fiber::Ready)
                    continue;
                team.current_ = i;
                switch_to(team, f);
            }
            unsigned waiting = 0, satisfied = 0;
            for (std::size_t i = first; i < last; ++i) {
                const Fiber &f = team.fibers_[i];
                if (f.done || f.wait != Fiber::Warp)
                    continue;
                waiting |= 1u << (i - first);
                if (mask_waits(team, first, last, f))
                    satisfied |= 1u << (i - first);
            }
            if (!waiting)
                return;
            const unsigned resumed = satisfied ? satisfied : waiting;
            for (std::size_t i = first; i < last; ++i)
                if ((resumed >> (i - first)) & 1u)
                    team.fibers_[i].wait = Fiber::Ready;
        }
    }

    /* Does every lane of f's mask that exists and has not returned wait at f's sync point? */
    static bool mask_waits(const Team &team, std::size_t first, std::size_t last, const Fiber &f)
    {
        for (std::size_t i = first; i < last; ++i) {
            const Fiber &g = team.fibers_[i];
            if (((f.required >> (i - first)) & 1u) && !g.done && (g.wait != Fiber::Warp || g.site != f.site))
                return false;
        }
        return true;
    }

    static void entry()
    {
        Team &team = Team::local();
        Fiber &f = team.fibers_[team.current_];
        team.invoke_(team.body_, f.index, *team.block_);
        f.done = true;
        back_to_scheduler(team, f);
        std::abort();  // a finished fiber is never resumed
    }

    static void prepare(Team &team, Fiber &f) { make_context(f.context, f.base, team.stack_, &Block::entry); }
    static void switch_to(Team &team, Fiber &f) { switch_context(team.scheduler_, f.context); }
    static void back_to_scheduler(Team &team, Fiber &f) { switch_context(f.context, team.scheduler_); }
};

#ifdef MOCCUDA_FIBERS_UCONTEXT
inline void make_context(Context &context, char *base, std::size_t size, void (*entry)())
{
    getcontext(&context.context);
    context.context.uc_stack.ss_sp = base + page_size();
    context.context.uc_stack.ss_size = size;
    context.context.uc_link = nullptr;
    makecontext(&context.context, entry, 0);
}
inline void switch_context(Context &from, Context &to) { swapcontext(&from.context, &to.context); }
#elif defined(__aarch64__)
/* A new context's stack holds the frame moccuda_fiber_switch loads: x19 = entry, x29 = 0 (the end
 * of the frame chain), x30 = moccuda_fiber_start, the current floating-point control register,
 * everything else zero.  The frame's top is the stack's top, 16-byte aligned, so entry is
 * called with the stack aligned as AAPCS64 asks. */
inline void make_context(Context &context, char *base, std::size_t size, void (*entry)())
{
    std::uintptr_t top = reinterpret_cast<std::uintptr_t>(base + page_size() + size);
    top &= ~std::uintptr_t(15);
    void **sp = reinterpret_cast<void **>(top - 176);
    std::memset(sp, 0, 176);
    std::uint64_t fpcr = 0;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    sp[0] = reinterpret_cast<void *>(entry);                   // x19
    sp[11] = reinterpret_cast<void *>(&moccuda_fiber_start);   // x30
    std::memcpy(&sp[20], &fpcr, sizeof fpcr);
    context.sp = sp;
}
inline void switch_context(Context &from, Context &to) { moccuda_fiber_switch(&from.sp, to.sp); }
#else
/* A new context's stack holds what moccuda_fiber_switch pops: the control words, r15..r12, rbx,
 * rbp, and the return address moccuda_fiber_start, which calls entry (in r13) with the stack
 * 16-byte aligned as the ABI asks at a call. */
inline void make_context(Context &context, char *base, std::size_t size, void (*entry)())
{
    std::uintptr_t top = reinterpret_cast<std::uintptr_t>(base + page_size() + size);
    top = (top & ~std::uintptr_t(15)) - 16;
    void **sp = reinterpret_cast<void **>(top) - 8;
    std::uint32_t control[2] = {0, 0};
    __asm__ volatile("stmxcsr %0" : "=m"(control[0]));
    __asm__ volatile("fnstcw %0" : "=m"(control[1]));
    std::memcpy(&sp[0], control, sizeof control);
    sp[1] = nullptr;                                           // r15
    sp[2] = nullptr;                                           // r14
    sp[3] = reinterpret_cast<void *>(entry);                   // r13
    sp[4] = nullptr;                                           // r12
    sp[5] = nullptr;                                           // rbx
    sp[6] = nullptr;                                           // rbp (end of the frame chain)
    sp[7] = reinterpret_cast<void *>(&moccuda_fiber_start);    // return address
    context.sp = sp;
}
inline void switch_context(Context &from, Context &to) { moccuda_fiber_switch(&from.sp, to.sp); }
#endif

/* The fallback lowering's call: run `body` (a callable taking (uint3 threadIdx, Block &)) for each
 * thread of a block of shape `block`. */
template <class Body>
inline void run_block(const dim3 &block, Body &&body)
{
    Block::run(block, body);
}

}  // namespace fibers
}  // namespace moccuda

#endif /* MOCCUDA_FIBERS_H */
