/* MocCUDA: cooperative groups (thread blocks, warp tiles and the grid of a cooperative launch).
 *
 * Parse mode declares the API so that clang type-checks kernels; cuda2cpu's front end replaces
 * every member call (sync, thread_rank, shfl, ballot, ...) with its own IR (warp collectives,
 * barriers, index arithmetic).  Compile mode keeps only the group types, as empty values, and the
 * functions that make them: a group variable may stay in the translated code, but any operation
 * the translator missed is a compile error, not a silently wrong program.
 *
 * The grid of a cooperative launch (grid_group, this_grid()): cuda2cpu runs the blocks of a
 * kernel that uses it each on a thread of its own (moccuda::cooperative::run_grid below), so that
 * all blocks are resident at once, as cudaLaunchCooperativeKernel promises; grid.sync() is a
 * barrier of the block's threads followed by a barrier of the blocks (GridPhase).
 */
#ifndef MOCCUDA_COOPERATIVE_GROUPS_H
#define MOCCUDA_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups {

#ifdef __CUDA2CPU_PARSE__
class thread_group {
public:
    __device__ void sync() const;
    __device__ unsigned long long thread_rank() const;
    __device__ unsigned long long size() const;
    __device__ unsigned long long num_threads() const;
};

class thread_block : public thread_group {
public:
    __device__ dim3 group_index() const;
    __device__ dim3 thread_index() const;
    __device__ dim3 group_dim() const;
    __device__ dim3 dim_threads() const;
};

template <unsigned int Size>
class thread_block_tile : public thread_group {
public:
    template <class T> __device__ T shfl(T var, int src_rank) const;
    template <class T> __device__ T shfl_up(T var, unsigned int delta) const;
    template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
    template <class T> __device__ T shfl_xor(T var, unsigned int lane_mask) const;
    __device__ int any(int predicate) const;
    __device__ int all(int predicate) const;
    __device__ unsigned int ballot(int predicate) const;
    template <class T> __device__ unsigned int match_any(T value) const;
    template <class T> __device__ unsigned int match_all(T value, int &pred) const;
    __device__ unsigned long long meta_group_rank() const;
    __device__ unsigned long long meta_group_size() const;
};

/* The lanes of a warp that called coalesced_threads() together; a thread's rank counts the
 * group's lanes below it.  cuda2cpu's front end reads the mask (the lanes' __activemask()). */
class coalesced_group : public thread_group {
public:
    unsigned int mask;
    template <class T> __device__ T shfl(T var, int src_rank) const;
    __device__ int any(int predicate) const;
    __device__ int all(int predicate) const;
    __device__ unsigned long long meta_group_rank() const;
    __device__ unsigned long long meta_group_size() const;
};

class grid_group : public thread_group {
public:
    __device__ bool is_valid() const;
    __device__ unsigned long long block_rank() const;
    __device__ unsigned long long num_blocks() const;
    __device__ dim3 block_index() const;
    __device__ dim3 dim_blocks() const;
    __device__ dim3 group_dim() const;
};

/* Scratch memory for tiles of more than one warp (CUDA 11.1+); a __shared__ variable of this
 * type, passed to this_thread_block.  Tiles are at most a warp here: a located error names them. */
template <unsigned int MaxBlockSize>
struct block_tile_memory {
    char reserved[8];
};

__device__ thread_block this_thread_block();
template <unsigned int MaxBlockSize>
__device__ thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch);
__device__ coalesced_group coalesced_threads();
__device__ grid_group this_grid();
template <unsigned int Size, class ParentT>
__device__ thread_block_tile<Size> tiled_partition(const ParentT &parent);
__device__ void sync(const thread_group &group);
#else
/* Variables of these types stay declared in the translation while their uses are gone: they are
 * meant to appear possibly unused (no -Wunused-but-set-variable). */
/* A thread_group (a function taking any group) knows which it is: `tile` is the size of a
 * thread_block_tile, 0 for the whole block; the front end reads it for thread_rank, size and
 * sync of a thread_group. */
class __attribute__((unused)) thread_group {
public:
    unsigned int tile = 0;
};
class __attribute__((unused)) thread_block : public thread_group {};
template <unsigned int Size> class __attribute__((unused)) thread_block_tile : public thread_group {
    /* A tile's size the front end could not check (a template's parameter) is checked here. */
    static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                  "cuda2cpu: thread_block_tile<N> is supported for N a power of two from 1 to 1024");
public:
    thread_block_tile() { tile = Size; }
};
class __attribute__((unused)) grid_group : public thread_group {};
/* The group's lanes, as the front end computed them where coalesced_threads() was called. */
class coalesced_group : public thread_group {
public:
    unsigned int mask = 0;
    coalesced_group() = default;
    explicit coalesced_group(unsigned int lanes) : mask(lanes) {}
};

template <unsigned int MaxBlockSize>
struct block_tile_memory {
    char reserved[8];
};

/* The size of a group a function template takes by a type parameter (`template <class Group>
 * T f(T v, Group &g) { return cg::reduce(g, v, op); }`): the front end writes the collective's
 * width as reduce_width(g), resolved where the inlined call has bound the parameter. */
template <unsigned int Size> inline int reduce_width(const thread_block_tile<Size> &) { return (int)Size; }
template <class Group> inline int reduce_width(const Group &)
{
    static_assert(sizeof(Group) == 0, "cuda2cpu: cg::reduce is supported over a thread_block_tile<N> (not over a "
                                      "whole thread block or a coalesced_group)");
    return 0;
}

/* The size of a tile whose lanes exchange values (shfl, votes, match), where it is a template's
 * parameter: CUDA's tiles of several warps offer no such operations. */
template <unsigned int Size> constexpr int lane_exchange_width()
{
    static_assert(Size <= 32, "cuda2cpu: a thread_block_tile<N> of more than 32 threads, a tile of several warps, "
                              "has no lane exchanges (shfl, any, all, ballot, match)");
    return (int)Size;
}

inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int MaxBlockSize>
inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &) { return thread_block(); }
inline grid_group this_grid() { return grid_group(); }
template <unsigned int Size, class ParentT>
inline thread_block_tile<Size> tiled_partition(const ParentT &) { return thread_block_tile<Size>(); }
#endif /* __CUDA2CPU_PARSE__ */

}  // namespace cooperative_groups

#ifndef __CUDA2CPU_PARSE__
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "moccuda/block_fibers.h"

namespace moccuda {
namespace cooperative {

/* The barrier of the blocks of one cooperative launch: each block's thread waits until every
 * block arrived (a generation count tells one phase from the next).  The mutex orders the blocks'
 * memory accesses across it, as grid.sync() does on a GPU. */
class GridBarrier {
public:
    explicit GridBarrier(unsigned long long blocks) : blocks_(blocks) {}
    void wait()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        unsigned long long generation = generation_;
        if (++arrived_ == blocks_) {
            arrived_ = 0;
            ++generation_;
            all_arrived_.notify_all();
            return;
        }
        all_arrived_.wait(lock, [&] { return generation_ != generation; });
    }

private:
    std::mutex mutex_;
    std::condition_variable all_arrived_;
    unsigned long long blocks_, arrived_ = 0, generation_ = 0;
};

/* The grid barrier of the launch the calling thread runs a block of (null: not cooperative); it
 * follows a block fiber (detail::BlockLocals). */
inline GridBarrier *&current_grid() { return detail::block_locals().grid; }

/* grid_group::is_valid(): the kernel was launched with cudaLaunchCooperativeKernel. */
inline bool grid_is_valid() { return current_grid() != nullptr; }

/* The block-level side of grid.sync() in a translated kernel: `++phase` runs once per block after
 * all of the block's threads reached grid.sync() (the thread loop was split there), and returns
 * when every block of the grid has. */
class GridPhase {
public:
    GridPhase &operator++()
    {
        if (grid_ == nullptr) {
            fflush(stdout);
            fprintf(stderr, "MocCUDA: error: grid.sync() (cooperative_groups::grid_group::sync) in a kernel that "
                            "was not launched with cudaLaunchCooperativeKernel: grid-wide synchronization needs "
                            "a cooperative launch\n");
            std::_Exit(1);
        }
        grid_->wait();
        return *this;
    }

private:
    GridBarrier *grid_ = current_grid();
};

/* Each turn of a loop waiting for another block: switch to the next block of the OS thread
 * (block_fibers.h), or, in a block that is not a fiber (a cooperative launch's, or a grid the
 * device could not hold at once), give up the core, so that the block it waits for runs. */
inline void spin_yield()
{
    if (!block_fibers::yield_spinning())
        std::this_thread::yield();
}

/* After a loop waiting for another block: the block made progress (block_fibers.h starts another
 * block only when every block of the OS thread is waiting without). */
inline void spin_done() { block_fibers::spin_ended(); }

/* Whether the device holds the launch's blocks all at once (the size a cooperative launch may
 * have, at most the device's resident blocks). */
inline bool grid_fits_at_once(unsigned long long count)
{
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, 0);
    return count <= (unsigned long long)sms * (unsigned long long)per_sm;
}

/* Runs `block(bx, by, bz)` for every block of the launch.  A cooperative launch (whose size
 * cudaLaunchCooperativeKernel checked) runs every block on a thread of its own, all at once, so
 * that a block waiting in grid.sync() never keeps another from arriving.  A launch of a kernel
 * whose blocks wait for each other through memory (`blocks_wait_for_each_other`, the
 * translator's finding) runs its blocks in order as fibers on OpenMP's threads, starting more
 * only while the running ones wait (block_fibers.h), when the device could hold its grid at once.
 * Otherwise the blocks run as an OpenMP loop, as any kernel's do (grid_group::is_valid() is then
 * false). */
template <class Block>
inline void run_grid(const LaunchConfig &launch, Block block, bool blocks_wait_for_each_other = false)
{
    const dim3 g = launch.grid;
    const unsigned long long count = (unsigned long long)g.x * g.y * g.z;
    auto run = [&](unsigned long long b, GridBarrier *grid) {
        current_grid() = grid;
        block((unsigned)(b % g.x), (unsigned)(b / g.x % g.y), (unsigned)(b / g.x / g.y));
        current_grid() = nullptr;
    };
    if (!launch.cooperative && blocks_wait_for_each_other && grid_fits_at_once(count)) {
        auto run_block = [&](unsigned long long b) { run(b, nullptr); };
        block_fibers::run_blocks(count, count, run_block);
        return;
    }
    if (!launch.cooperative) {
#pragma omp parallel for schedule(static)
        for (unsigned long long b = 0; b < count; ++b)
            run(b, nullptr);
        return;
    }
    GridBarrier grid(count);
    GridBarrier *const grid_of_blocks = launch.cooperative ? &grid : nullptr;  /* grid.sync() needs a cooperative launch */
    std::vector<std::thread> threads;
    threads.reserve(count > 0 ? count - 1 : 0);
    for (unsigned long long b = 1; b < count; ++b)
        threads.emplace_back(run, b, grid_of_blocks);
    if (count > 0)
        run(0, grid_of_blocks);
    for (std::thread &t : threads)
        t.join();
}

}  // namespace cooperative
}  // namespace moccuda
#endif /* __CUDA2CPU_PARSE__ */

#endif /* MOCCUDA_COOPERATIVE_GROUPS_H */
