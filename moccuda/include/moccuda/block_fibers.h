/* MocCUDA block fibers: the blocks of a launch whose blocks wait for each other through memory
 * (the translator's `blocks_wait_for_each_other`: Chai's persistent blocks, where task t spins on
 * a flag until the task before it, another block's, sets it) as fibers on a few OS threads.
 *
 * On a GPU such blocks are resident at once and each hand-off of the chain takes nanoseconds.
 * Run each on an OS thread of its own, a hand-off waits for the waiting block's thread to be
 * scheduled, among the program's own busy threads.  Here an OS thread (one per OpenMP thread of
 * a parallel region) runs several blocks as fibers, one at a time, and a block's spinning loop
 * (spin_yield) switches to the next block of its OS thread: a hand-off between two blocks of one
 * thread costs two context switches of a few instructions (fibers.h's).
 *
 * Scheduling, per OS thread: its live blocks run in turn, round after round; a block runs until
 * it spins again (spin_yield) or ends.  A block made progress in its turn when it started, ended
 * a spinning loop (spin_done) or finished; a turn in which it only tested its loop's condition
 * again is fruitless, and a round is fruitless when every turn in it was.  After a fruitless
 * round the thread starts the next block (all threads take blocks from one counter, in order,
 * as a GPU's block scheduler does), so that a block waiting for one not yet started gets it
 * started, when
 *  - every live block of the launch waits: every OS thread with live blocks has had a fruitless
 *    round since the last progress of any block (Launch::all_waiting), or
 *  - fewer than unconfirmed_starts() blocks were started since that was last so.  The blocks of
 *    another OS thread may be on their way to what this thread's blocks wait for, or their
 *    flags may have been set since they last looked (the OS has not scheduled that thread
 *    since): waiting for its round would wait for the OS, milliseconds on a busy machine, at
 *    every start, but starting a block whenever this thread's blocks wait would start one after
 *    another while that thread is not scheduled, each with its stack (and its threads' fiber
 *    stacks under the fallback lowering).
 * Otherwise (or when no block is left, or `most_at_once` blocks are live, the device's limit) it
 * runs its next round, and after 100 us of fruitless rounds gives its core to the OS after each
 * (Worker::pause).  A thread with no live block starts one; with none left to start it is done.
 * So every live block gets a turn in every round of its thread, and a block that waits for a
 * block not started yet gets it started.  (A block that waits in a loop the translator did not
 * mark never counts as waiting.)

 * A fiber's stack is as large as a new thread's (pthread's default, 8 MiB under the usual
 * limit: a block's frame holds per-thread arrays of up to 1024 entries), reserved, not committed,
 * with a guard page (fibers::map_stack).  Finished blocks leave their fiber to the thread's next
 * block, in this launch or a later one (the OpenMP threads stay), with its stack, its dynamic
 * shared memory and its threads' fibers.  Fibers stay on the OS thread that made them: code may
 * keep the address of a thread_local across a switch.
 *
 * What MocCUDA keeps per OS thread for the running block (detail::BlockLocals: ambient indices,
 * dynamic shared memory, the grid barrier, the fibers of the block's own threads under the
 * fallback lowering) is swapped with the fiber's own copy while it runs.  So a fallback-lowered
 * kernel's block, whose CUDA threads are fibers too, runs its thread fibers from its block fiber:
 * a thread fiber that spins switches out the whole block (the block's context is then the thread
 * fiber's), and its block's Team waits as it was.
 *
 * Blocks on different OS threads still communicate through memory: the spinning loops the
 * translator marks read atomically or through volatile, as on the GPU.  An exception must not
 * leave a block (as with fibers.h's; device asserts end the failing thread inside the block).
 */
#ifndef MOCCUDA_BLOCK_FIBERS_H
#define MOCCUDA_BLOCK_FIBERS_H

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include <pthread.h>

#include "fibers.h"

namespace moccuda {
namespace block_fibers {

/* The stack size of a block fiber: what a new thread's would be, in whole pages. */
inline std::size_t stack_size()
{
    static const std::size_t size = [] {
        std::size_t bytes = 8u << 20;
        pthread_attr_t attr;
        if (pthread_attr_init(&attr) == 0) {
            std::size_t thread_default = 0;
            if (pthread_attr_getstacksize(&attr, &thread_default) == 0 && thread_default >= (1u << 20))
                bytes = thread_default;
            pthread_attr_destroy(&attr);
        }
        const std::size_t page = fibers::page_size();
        return (bytes + page - 1) / page * page;
    }();
    return size;
}

/* A block's fiber: a context on a stack of its own, and the block's own copy of what MocCUDA
 * keeps per OS thread.  Reused by block after block of the OS thread that made it. */
struct Fiber {
    char *stack = nullptr;
    fibers::Context context;
    detail::BlockLocals locals;
    fibers::Team team;
    unsigned long long block = 0;
    bool finished = false;
    /* Whether the block made progress in its present turn (see the top of this file). */
    bool progressed = false;

    Fiber() : stack(fibers::map_stack(stack_size(), "a block of a launch whose blocks wait for each other")) {}
    Fiber(const Fiber &) = delete;
    Fiber &operator=(const Fiber &) = delete;
    ~Fiber()
    {
        fibers::unmap_stack(stack, stack_size());
        std::free(locals.dynamic_shared_buffer);
    }
};

/* The fibers of finished blocks an OS thread keeps for its next blocks. */
inline std::vector<std::unique_ptr<Fiber>> &idle_fibers()
{
    static thread_local std::vector<std::unique_ptr<Fiber>> idle;
    return idle;
}

/* How many blocks the OS threads of a launch may start, together, while the blocks of one of
 * them wait as far as the others know: they may be waiting for a block not started yet, or for
 * a block of another thread, or not wait any more (their thread has not run since).  Each is
 * started at once, as a GPU would start it, rather than after a round of every other thread,
 * which waits for the OS to schedule that thread; more than this many wait for that round. */
inline unsigned long long unconfirmed_starts(int threads) { return 2 * (unsigned long long)(threads > 0 ? threads : 1); }

/* One launch, shared by its OS threads: the blocks not started yet, how many are live, and
 * whether all of them wait.  `progress` counts the progress of every block (a start, the end of
 * a spinning loop, a finish); each OS thread publishes the count at the start of its last round
 * if no block of it made progress in that round (`quiet`), or says it has none live or has just
 * seen progress.  Every live block waits when every thread with live blocks had a fruitless
 * round that began at the present count: a thread the OS has not scheduled since its blocks
 * last waited has published an older count, and its blocks may no longer wait.  `unconfirmed`
 * counts the blocks started since every live block was last seen to wait. */
struct Launch {
    static constexpr unsigned long long kIdle = ~0ull, kBusy = ~0ull - 1;

    Launch(unsigned long long blocks, unsigned long long most, void (*call)(void *, unsigned long long), void *body,
           int threads)
        : count(blocks), most_at_once(most), invoke(call), run(body), next(0), live(0), progress(0),
          unconfirmed(0), unconfirmed_limit(unconfirmed_starts(threads)), quiet(static_cast<std::size_t>(threads))
    {
        for (std::atomic<unsigned long long> &q : quiet)
            q.store(kIdle, std::memory_order_relaxed);
    }
    const unsigned long long count;
    const unsigned long long most_at_once;
    void (*const invoke)(void *run, unsigned long long block);
    void *const run;
    std::atomic<unsigned long long> next;
    std::atomic<unsigned long long> live;
    std::atomic<unsigned long long> progress;
    std::atomic<unsigned long long> unconfirmed;
    const unsigned long long unconfirmed_limit;
    std::vector<std::atomic<unsigned long long>> quiet;

    /* Release: a thread whose round starts from the new count sees what the progress wrote (the
     * flag a block set before it finished). */
    void progressed() { progress.fetch_add(1, std::memory_order_acq_rel); }

    /* Whether a thread whose own blocks all wait may start another: when every live block
     * waits, or within the limit of unconfirmed starts. */
    bool may_start()
    {
        if (all_waiting()) {
            unconfirmed.store(0, std::memory_order_relaxed);
            return true;
        }
        unsigned long long started = unconfirmed.load(std::memory_order_relaxed);
        while (started < unconfirmed_limit)
            if (unconfirmed.compare_exchange_weak(started, started + 1, std::memory_order_relaxed))
                return true;
        return false;
    }

    bool all_waiting() const
    {
        const unsigned long long now = progress.load(std::memory_order_acquire);
        for (const std::atomic<unsigned long long> &q : quiet) {
            const unsigned long long seen = q.load(std::memory_order_acquire);
            if (seen != kIdle && seen != now)
                return false;
        }
        return true;
    }

    /* The next block, if one may start now (fewer than most_at_once live); else count. */
    unsigned long long take()
    {
        unsigned long long now = live.load(std::memory_order_relaxed);
        do {
            if (now >= most_at_once)
                return count;
        } while (!live.compare_exchange_weak(now, now + 1, std::memory_order_relaxed));
        const unsigned long long b = next.fetch_add(1, std::memory_order_relaxed);
        if (b >= count) {
            live.fetch_sub(1, std::memory_order_relaxed);
            return count;
        }
        return b;
    }
};

/* One OS thread's part of a launch: its live blocks, in the order they started. */
class Worker {
public:
    Worker(Launch &launch, int index) : launch_(launch), quiet_(launch.quiet[static_cast<std::size_t>(index)]) {}

    /* The worker of the calling OS thread, while it runs blocks (else null). */
    static Worker *&current()
    {
        static thread_local Worker *worker = nullptr;
        return worker;
    }

    void run()
    {
        Worker *const outer = current();
        const unsigned outer_interleaved = detail::blocks_interleaved_on_thread();
        current() = this;
        for (;;) {
            if (live_.empty() && !start())
                break;
            const unsigned long long before = launch_.progress.load(std::memory_order_acquire);
            bool progress = false;
            for (std::size_t i = 0; i < live_.size();) {
                Fiber *f = live_[i];
                resume(*f);
                progress |= f->progressed || f->finished;
                if (f->finished)
                    finish(i);
                else
                    ++i;
            }
            if (live_.empty())
                quiet_.store(Launch::kIdle, std::memory_order_release);
            else
                quiet_.store(progress ? Launch::kBusy : before, std::memory_order_release);
            if (progress || live_.empty())
                waiting_ = false;
            else if (!(launch_.may_start() && start()))
                pause();
        }
        quiet_.store(Launch::kIdle, std::memory_order_release);
        current() = outer;
        detail::blocks_interleaved_on_thread() = outer_interleaved;
    }

    /* From the running block's spinning loop: its turn ends. */
    void yield_spinning() { fibers::switch_context(running_->context, scheduler_); }

    /* After the running block's spinning loop. */
    void spin_ended()
    {
        running_->progressed = true;
        launch_.progressed();
    }

    bool in_block() const { return running_ != nullptr; }

private:
    bool start()
    {
        // Not quiet from before the new block is counted live until it has had a turn.
        quiet_.store(Launch::kBusy);
        const unsigned long long b = launch_.take();
        if (b >= launch_.count)
            return false;
        launch_.progressed();
        std::vector<std::unique_ptr<Fiber>> &idle = idle_fibers();
        if (idle.empty())
            idle.emplace_back(new Fiber);
        Fiber *f = idle.back().release();
        idle.pop_back();
        f->block = b;
        f->finished = false;
        f->locals.ambient = AmbientIndex();
        f->locals.dynamic_shared = nullptr;
        f->locals.grid = nullptr;
        f->locals.team = &f->team;
        fibers::make_context(f->context, f->stack, stack_size(), &Worker::entry);
        live_.push_back(f);
        detail::blocks_interleaved_on_thread() = static_cast<unsigned>(live_.size());
        return true;
    }

    void finish(std::size_t i)
    {
        Fiber *f = live_[i];
        live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
        detail::blocks_interleaved_on_thread() = static_cast<unsigned>(live_.size());
        launch_.live.fetch_sub(1, std::memory_order_relaxed);
        launch_.progressed();
        idle_fibers().emplace_back(f);
    }

    /* After a fruitless round when no block can start: go on for a while (the block awaited is
     * most likely another OS thread's, running now, and hands back within microseconds), then
     * give the core up after each round (it may be a thread the OS has not scheduled: more OS
     * threads than cores, or a busy machine).  Giving it up at once costs a loaded machine's
     * time slice, milliseconds, at every hand-off between two OS threads. */
    void pause()
    {
        const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
        if (!waiting_) {
            waiting_ = true;
            waiting_since_ = now;
        } else if (now - waiting_since_ >= std::chrono::microseconds(100)) {
            std::this_thread::yield();
        }
    }

    /* Runs f's block until it spins again or finishes, with its own BlockLocals. */
    void resume(Fiber &f)
    {
        f.progressed = false;
        running_ = &f;
        detail::block_locals().swap(f.locals);
        fibers::switch_context(scheduler_, f.context);
        detail::block_locals().swap(f.locals);
        running_ = nullptr;
    }

    static void entry() noexcept
    {
        Worker *w = current();
        Fiber *f = w->running_;
        f->progressed = true;
        w->launch_.invoke(w->launch_.run, f->block);
        f->finished = true;
        fibers::switch_context(f->context, w->scheduler_);
        std::abort();  // a finished block's fiber is never resumed
    }

    Launch &launch_;
    std::atomic<unsigned long long> &quiet_;
    std::vector<Fiber *> live_;
    fibers::Context scheduler_;
    Fiber *running_ = nullptr;
    /* Whether the thread's last rounds were fruitless with no block to start, since when. */
    bool waiting_ = false;
    std::chrono::steady_clock::time_point waiting_since_;
};

/* In a block's spinning loop, each turn: switch to the next block of the OS thread.  False when
 * the caller is not a block fiber (a cooperative launch's block, or an ordinary loop's). */
inline bool yield_spinning()
{
    Worker *w = Worker::current();
    if (w == nullptr || !w->in_block())
        return false;
    w->yield_spinning();
    return true;
}

/* After a block's spinning loop: the block made progress. */
inline void spin_ended()
{
    Worker *w = Worker::current();
    if (w != nullptr && w->in_block())
        w->spin_ended();
}

/* Runs run(b) for blocks b = 0 .. count - 1 as fibers, at most most_at_once live at a time, on
 * as many OS threads as OpenMP's (no more than blocks). */
template <class Run>
inline void run_blocks(unsigned long long count, unsigned long long most_at_once, Run &run)
{
    if (count == 0)
        return;
    void (*const invoke)(void *, unsigned long long) = [](void *r, unsigned long long b) {
        (*static_cast<Run *>(r))(b);
    };
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    if (threads < 1)
        threads = 1;
    if ((unsigned long long)threads > count)
        threads = (int)count;
    Launch launch(count, most_at_once, invoke, static_cast<void *>(&run), threads);
#pragma omp parallel num_threads(threads)
    {
        Worker worker(launch, omp_get_thread_num());
        worker.run();
    }
#else
    Launch launch(count, most_at_once, invoke, static_cast<void *>(&run), 1);
    Worker worker(launch, 0);
    worker.run();
#endif
}

}  // namespace block_fibers
}  // namespace moccuda

#endif /* MOCCUDA_BLOCK_FIBERS_H */
