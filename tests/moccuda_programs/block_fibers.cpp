// MocCUDA's block fibers (moccuda/block_fibers.h): the scheduler of blocks that wait for each other,
// driven as a translated kernel drives it (moccuda::cooperative::spin_yield / spin_done around each
// spinning loop).  `block_fibers SECTION` runs one section and prints PASS, or FAIL with the line
// and condition of the first check that failed (exit status 1).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <moccuda/fibers.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"

namespace {

using moccuda::cooperative::spin_done;
using moccuda::cooperative::spin_yield;

// Counts the live blocks (started, not finished) and remembers the most at once.
struct Census {
    std::atomic<int> live{0};
    std::atomic<int> most{0};
    void enter()
    {
        const int now = ++live;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
    }
    void leave() { --live; }
};

void wait_for(std::atomic<int> &flag)
{
    while (flag.load() == 0)
        spin_yield();
    spin_done();
}

// Block b waits for block b + 1: the last block must start while every other one waits, so all
// are live at once (a GPU holding the grid runs it; blocks run one by one would wait forever).
int reverse_chain()
{
    const unsigned long long count = 200;
    std::vector<std::atomic<int>> done(count + 1);
    for (auto &d : done)
        d = 0;
    done[count] = 1;
    std::atomic<int> finished{0};
    std::vector<int> finish_rank(count, -1);
    auto block = [&](unsigned long long b) {
        wait_for(done[b + 1]);
        finish_rank[b] = finished++;
        done[b] = 1;
    };
    moccuda::block_fibers::run_blocks(count, count, block);
    for (unsigned long long b = 0; b < count; ++b)
        CHECK(finish_rank[b] == (int)(count - 1 - b));
    return 0;
}

// Block b waits for block b - 1, then works a while: the chain needs no more live blocks than OS
// threads, and a block starts beyond them only when every live block waits at once.
int forward_chain(int threads)
{
    const unsigned long long count = 300;
    std::vector<std::atomic<int>> done(count + 1);
    for (auto &d : done)
        d = 0;
    std::atomic<long long> sum{0};
    Census census;
    auto block = [&](unsigned long long b) {
        census.enter();
        if (b > 0)
            wait_for(done[b - 1]);
        long long work = 0;
        for (int i = 0; i < 50000; ++i)
            work += (i ^ (int)b) & 7;
        sum += work;
        census.leave();
        done[b] = 1;
    };
    moccuda::block_fibers::run_blocks(count, count, block);
    for (unsigned long long b = 0; b < count; ++b)
        CHECK(done[b].load() == 1);
    CHECK(sum.load() > 0);
    // A block waits only for a live block that is on its way (not waiting itself): no more live
    // blocks than OS threads, and the starts made before every thread saw its blocks wait.  (A
    // runtime that started a block whenever the blocks of one thread wait would start one after
    // another while the thread running the chain's head is not scheduled.)
    const int most = threads + (int)moccuda::block_fibers::unconfirmed_starts(threads);
    CHECK(census.most.load() >= 1 && census.most.load() <= most);
    return 0;
}

// At most most_at_once blocks live, even when all of them wait (for a flag set after a number of
// blocks finished).
int device_limit()
{
    const unsigned long long count = 40, most = 5;
    std::atomic<int> finished{0};
    std::vector<std::atomic<int>> gate(count);
    for (auto &g : gate)
        g = 0;
    Census census;
    auto block = [&](unsigned long long b) {
        census.enter();
        // Blocks of each group of `most` wait until the whole group is live.
        const unsigned long long group = b / most;
        ++gate[group];
        while (gate[group].load() < (int)most)
            spin_yield();
        spin_done();
        census.leave();
        ++finished;
    };
    moccuda::block_fibers::run_blocks(count, most, block);
    CHECK(finished.load() == (int)count);
    CHECK(census.most.load() == (int)most);
    return 0;
}

// What MocCUDA keeps per OS thread for a block follows the block's fiber: ambient indices,
// dynamic shared memory (also as block_dynamic_shared()), and the fibers of its own threads (a
// fallback-lowered block: thread 0 spins inside a thread fiber, the block's threads wait at a
// barrier meanwhile).  Blocks wait for each other in reverse, so all interleave.
int block_locals()
{
    const unsigned long long count = 24;
    const unsigned threads = 64;
    std::vector<std::atomic<int>> done(count + 1);
    for (auto &d : done)
        d = 0;
    done[count] = 1;
    std::atomic<int> wrong{0};
    std::atomic<int> interleaved{0};
    auto block = [&](unsigned long long b) {
        const unsigned mark = (unsigned)b * 1000u;
        moccuda::set_ambient(uint3{0, 0, 0}, uint3{(unsigned)b, 0, 0}, dim3(threads), dim3((unsigned)count));
        unsigned *shared = static_cast<unsigned *>(moccuda::dynamic_shared_memory(threads * sizeof(unsigned)));
        if (moccuda::block_dynamic_shared() != shared)
            ++wrong;
        moccuda::fibers::run_block(dim3(threads), [&](const uint3 t, moccuda::fibers::Block &blk) {
            shared[t.x] = mark + t.x;
            blk.sync();
            if (t.x == 0) {
                if (moccuda::detail::blocks_interleaved_on_thread() > 1)
                    ++interleaved;
                wait_for(done[b + 1]);
            }
            blk.sync();
            if (shared[(t.x + 1) % threads] != mark + (t.x + 1) % threads)
                ++wrong;
        });
        if (moccuda::ambient().blockIdx.x != b || moccuda::block_dynamic_shared() != shared)
            ++wrong;
        done[b] = 1;
    };
    moccuda::block_fibers::run_blocks(count, count, block);
    CHECK(wrong.load() == 0);
    CHECK(interleaved.load() > 0);
    // Outside a block again: the OS thread's own values.
    CHECK(moccuda::detail::blocks_interleaved_on_thread() == 0);
    CHECK(moccuda::cooperative::current_grid() == nullptr);
    return 0;
}

// A spinning loop outside any block fiber (a grid the device cannot hold, run as an OpenMP loop)
// yields to the OS and goes on.
int outside_fibers()
{
    std::atomic<int> flag{0};
    std::thread setter([&] { flag = 1; });
    wait_for(flag);
    setter.join();
    CHECK(flag.load() == 1);
    return 0;
}

}  // namespace

int main(int argc, char **argv)
{
    const std::string section = argc > 1 ? argv[1] : "";
    const int threads = omp_get_max_threads();
    int failed = 0;
    if (section == "reverse_chain")
        failed = reverse_chain();
    else if (section == "forward_chain")
        failed = forward_chain(threads);
    else if (section == "device_limit")
        failed = device_limit();
    else if (section == "block_locals")
        failed = block_locals();
    else if (section == "outside_fibers")
        failed = outside_fibers();
    else {
        printf("unknown section '%s'\n", section.c_str());
        return 2;
    }
    if (!failed)
        printf("PASS\n");
    return failed;
}
