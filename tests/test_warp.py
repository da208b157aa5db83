"""Warp-level operations (front end ``cuda_front/warp_front.py``, pass ``warp-collectives``, the
warp-scope splits of ``barrier-interchange``, ``moccuda/include/cuda2cpu_warp.h``).

Each program in tests/programs/warp is self-checking: the host computes, independently of the
translation, what every thread must see, and the program prints PASS.  Each runs the block sizes
32, 48, 64, 100 and 1024 (partial last warps included) and 2-D or 3-D blocks within one build,
run with 2 OpenMP threads and again with 16.
What cannot be translated is a located error.
"""

from __future__ import annotations

import pytest

from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, build_run, run_built, translate_build_run
from foundation import ir
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

WARP = PROGRAMS / "warp"


def run_program(name: str, tmp_path):
    result, run, _ = translate_build_run(WARP / f"{name}.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]
    many = run_built(WARP / f"{name}.cu", tmp_path, MANY_THREADS)
    assert many.returncode == 0 and many.stdout == run.stdout, f"{MANY_THREADS} threads:\n" + many.stdout[-3000:]
    for kernel in result.program.kernels:
        leftovers = [n for n in kernel.walk() if isinstance(n, (ir.WarpCollective, ir.WarpSync, ir.Barrier))]
        assert not leftovers, (kernel.name, leftovers[:3])
    for kernel in result.explain["kernels"]:
        assert kernel["lowering"] == "split", kernel
    return result


@covers("Warp shuffles", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
        "shuffles of int, long long, unsigned long long, float, double", "shuffle width (1 to 32)",
        "partial last warp", "2-D and 3-D blocks (lanes by flat thread id)",
        note="a lane outside the width segment gives the caller's own value; an inactive lane (past the "
        "block's end, or one that did not reach the shuffle: undefined in CUDA) gives 0, as GPUs do")
def test_shuffles(tmp_path):
    run_program("shuffle", tmp_path)


@covers("Warp shuffles", "shuffles of __half, __nv_bfloat16, __half2, __nv_bfloat162")
def test_shuffles_of_16_bit_floating_point_types(tmp_path):
    run_program("shuffle_half", tmp_path)


@covers("Warp votes", "__ballot_sync", "__any_sync", "__all_sync", "__activemask",
        "votes under a condition uniform per warp", "votes of a partial mask",
        note="__activemask() is the set of lanes that reach it")
def test_votes(tmp_path):
    run_program("vote", tmp_path)


@covers("Warp match and reduce", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync")
def test_match_and_reduce(tmp_path):
    run_program("match_reduce", tmp_path)


@covers("Block votes", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
        "__syncthreads_or as a loop condition")
def test_syncthreads_votes(tmp_path):
    run_program("syncthreads_vote", tmp_path)


@covers("Cooperative groups", "cg::this_thread_block", "thread_block::sync", "cg::sync(block)",
        "thread_block::thread_rank", "thread_block::size", "cg::tiled_partition<N> (N = 1..32)",
        "thread_block_tile::shfl / shfl_up / shfl_down / shfl_xor", "thread_block_tile::any / all / ballot",
        "thread_block_tile::thread_rank / meta_group_rank / num_threads", "thread_block_tile::sync",
        "cg::reduce with plus, less, greater, bit_xor", "thread_block_tile<N> with N a template parameter")
def test_cooperative_groups(tmp_path):
    run_program("cooperative_groups", tmp_path)


@covers("Cooperative groups", "cg::reduce with an operator of template-parameter type (Op<T>(), cg::plus<T>())",
        "cg::reduce with a functor (passed to the kernel, with state; or constructed in place)",
        "cg::reduce with a lambda without captures", note="the operator combines the lanes' values in lane order")
@covers("Cooperative groups", "auto tile = cg::tiled_partition<N>(...)")
@covers("Cooperative groups", "cg::reduce with a capturing lambda", status="not supported",
        note="located error (pass a functor object)")
def test_cg_reduce_with_any_operator(tmp_path):
    run_program("cg_reduce_ops", tmp_path)
    message = _error(tmp_path, PRELUDE + "#include <cooperative_groups/reduce.h>\n"
                     "__global__ void k(int *a, int cap) {\n"
                     "  auto tile = cg::tiled_partition<8>(cg::this_thread_block());\n"
                     "  a[threadIdx.x] = cg::reduce(tile, a[threadIdx.x], [=](int x, int y) { return x + y + cap; });\n"
                     "}\n")
    assert "t.cu:6:" in message and "cg::reduce with a lambda that captures" in message, message


@covers("Warp shuffles", "warp-shuffle block reduction in __device__ functions",
        "warp collective in a __device__ function template (explicit or deduced from a variable)",
        "warp-per-row loop (trip count differs between warps)", "warpSize")
def test_block_reduction_as_people_write_it(tmp_path):
    run_program("block_reduce", tmp_path)


@covers("Warp-synchronous legacy code", "volatile shared-memory warp reduction without __syncwarp",
        note="each statement writing volatile memory completes for the whole warp before the next, "
             "the lockstep order of pre-Volta GPUs")
def test_legacy_volatile_warp_reduction(tmp_path):
    """The lanes of the first warp update `volatile` shared memory in lockstep on a GPU; run thread
    after thread, lane 0 would read sdata[16] before lane 16 added sdata[48] into it (the
    program then fails: see the module docstring of barrier/warp_collectives.py)."""
    run_program("legacy_volatile", tmp_path)


@covers("Warp-synchronous legacy code", "volatile shared-memory warp scan without __syncwarp (v[t] += v[t - d], "
        "s[i] = x += s[i - d])", "volatile warp reduction after a per-lane loop",
        note="within a statement every lane of the warp reads before any stores (the lockstep order): "
             "the value goes into a local, then the warp syncs, then the lanes store")
@pytest.mark.parametrize("threads", [1, 3])
def test_legacy_volatile_warp_scan(tmp_path, threads):
    """Run lane after lane in one thread loop, lane i of `v[t] += v[t - 1]` read lane i-1's new
    value (the inclusive scans of HeCBench's bscan and radixsort were wrong), and the tree
    reduction read a partial sum before the lanes' loop over the block had added into it.  The
    fiber fallback runs this program in test_every_warp_program_runs_with_the_fiber_fallback."""
    result, run, _ = translate_build_run(WARP / "legacy_scan.cu", tmp_path, threads=threads)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]
    assert not result.warnings


@covers("Warp-synchronous legacy code", "volatile stores to global memory (flags, results)",
        "volatile shared-memory warp sum at block sizes 32, 64, 100",
        note="only stores that may reach __shared__ memory are ordered across the lanes; a kernel storing "
             "through volatile global pointers keeps one thread loop")
def test_volatile_global_stores_do_not_split_the_thread_loop(tmp_path):
    """`publish` stores results and flags through volatile global pointers: one thread loop (before,
    the loop was split after each store).  `warp_sum_any_size` is the legacy lockstep sum, which
    gives wrong sums at every block size without the order (checked by the host)."""
    result = run_program("volatile_global", tmp_path)
    publish = next(k for k in result.program.kernels if k.name == "publish")
    assert len([n for n in publish.walk() if isinstance(n, ir.ThreadLoop)]) == 1
    legacy = next(k for k in result.program.kernels if k.name == "warp_sum_any_size")
    assert len([n for n in legacy.walk() if isinstance(n, ir.ThreadLoop)]) >= 7  # a split after each step


@covers("Warp votes", "__syncwarp (with a partial mask, through shared memory)", "do/while whose condition is a vote",
        "warp loop nested in a condition uniform per warp", "shuffle after lanes returned early")
def test_divergent_warp_code(tmp_path):
    run_program("divergent", tmp_path)


@covers("Warp votes", "warp collectives inside a switch (uniform per warp or per block; grouped labels, "
        "default anywhere, braced cases)", note="lowered as an if/else chain; a switch with fall-through "
                                                 "between cases takes the fiber fallback")
@pytest.mark.parametrize("schedule", ["auto", "nested"])
def test_warp_collectives_in_a_switch(tmp_path, schedule):
    result, run, _ = translate_build_run(WARP / "switch_collectives.cu", tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]
    assert [k["lowering"] for k in result.explain["kernels"]] == ["split"]
    assert not any(isinstance(n, ir.Switch) for k in result.program.kernels for n in k.walk())


@covers("Warp shuffles", "warp collectives under a branch uniform per warp, between __syncthreads()",
        "a different number of warp collectives per warp between two __syncthreads()")
def test_warp_operations_under_warp_uniform_branches(tmp_path):
    run_program("uniform_branch", tmp_path)


@covers("Warp shuffles", "warp collectives under a guard on threadIdx.y or threadIdx.z (rows that are whole warps)",
        note="the guard bounds the thread loops of its branch: only that row's threads run them")
def test_collectives_under_a_thread_index_guard_run_only_its_threads(tmp_path):
    """The second stage of a 2-D block reduction, ``if (threadIdx.y == 0) { ... __shfl_down_sync
    ... }``, recorded its guard per thread, and every thread loop of the branch went through all
    of the block's threads to test its flag (HeCBench's jacobi spent 70% of its time there).  A
    guard that keeps its value through the branch is now tested in each thread loop, and
    guard-folding makes it the loop's bound; guards the branch can change stay recorded."""
    result = run_program("thread_guards", tmp_path)
    (kernel,) = result.program.kernels
    loops = [n for n in kernel.walk() if isinstance(n, ir.ThreadLoop)]
    bounded = [sorted({b.dim for b in loop.bounds}) for loop in loops if loop.bounds]
    # The first row and layer: a y and a z bound on each loop of that branch; row 5 and row 1
    # (through the local): a y range from the row through the row, in each loop of the branch.
    assert bounded.count(["y", "z"]) >= 3, bounded
    rows = [sorted((b.lower, b.limit.text) for b in loop.bounds) for loop in loops if {b.dim for b in loop.bounds} == {"y"}]
    assert rows.count([(False, "5"), (True, "5")]) >= 2 and rows.count([(False, "1"), (True, "1")]) >= 2, rows
    # Only the shared flag that its branch clears and the local that its branch assigns are recorded.
    recorded = sorted(n.name for n in kernel.walk() if isinstance(n, ir.VarDecl) and n.name.startswith("pred_"))
    assert len(recorded) == 2, recorded


@covers("Warp shuffles", "continue in a loop around __syncwarp() exchanges (block-uniform or warp-uniform; "
        "before, between or after the exchanges; the loop's body holding a while of exchanges)")
def test_continue_in_loops_around_warp_syncs(tmp_path):
    """Such a loop keeps per-thread state (a thread that continues skips the rest of the
    iteration's thread loops); the soak's kernel s1u4k26 once translated its continue to
    `if (skip_40) { goto ; }`, a per-block jump to no label that g++ rejected."""
    run_program("continue_warp_loop", tmp_path)


def test_collective_values_in_a_switch_the_fallback_keeps(tmp_path):
    """A switch with collectives that is no if/else chain (a statement after a break) goes to the
    fiber fallback as a switch; the local holding a collective's value in a case's second
    statement was declared in the switch's scope, and g++ refused the next case label ("jump to
    case label crosses initialization": the front-end fuzz, seed 20261127).  It has a block now."""
    cu = WARP / "switch_fallthrough_collectives.cu"
    result, run, _ = translate_build_run(cu, tmp_path, threads=1)
    assert [k["lowering"] for k in result.explain["kernels"]] == ["fallback"]
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]
    many = run_built(cu, tmp_path, MANY_THREADS)
    assert many.returncode == 0 and many.stdout == run.stdout, many.stdout[-3000:]


WARP_PROGRAMS = sorted(p.stem for p in WARP.glob("*.cu"))


@covers("Warp shuffles", "warp collectives with --lowering=fallback (fibers: a warp sync waits only for the "
        "lanes of its warp, and for the lanes of its mask at the same sync point)")
@pytest.mark.parametrize("name", WARP_PROGRAMS)
def test_every_warp_program_runs_with_the_fiber_fallback(name, tmp_path):
    """The fallback is the reference of the differential tests, so it must give every warp
    program's results too: each kernel whose threads synchronize runs as fibers (warp collectives
    and legacy volatile code included), at 1 and 3 OpenMP threads.  Before warp syncs were per warp, warp 0's scan of
    uniform_branch.cu was paired with the other warps' __syncthreads() and read stale lanes."""
    cu = WARP / f"{name}.cu"
    result = translate_file(cu, TranslateOptions(lowering="fallback"))
    assert "fallback" in {k["lowering"] for k in result.explain["kernels"]}
    for threads in (1, 3):
        _, run, _ = build_run(result, cu, tmp_path, threads=threads)
        assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]


def test_warp_code_with_parallel_threads(tmp_path):
    """The default schedule runs blocks in parallel and a block's threads serially; with the threads
    in parallel too (schedule "nested") each phase B must still see every lane's phase A.  ("flat"
    does not apply: it needs a single thread loop.)"""
    result, run, _ = translate_build_run(WARP / "divergent.cu", tmp_path, TranslateOptions(schedule="nested"))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]
    assert [k["schedule"] for k in result.explain["kernels"]] == ["nested"]


FIBER_KERNEL = r"""#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(const int *in, int *out, int mode)
{
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = in[t];
    int s = v;
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_xor_sync(0xffffffff, s, o);
    int c = __syncthreads_count(v % 2);
    int m = 0;
    if (warp == 1)
        m = __reduce_max_sync(0xffffffff, (unsigned)v);
    switch (mode) { case 1: __syncthreads(); break; default: break; }   // only fibers lower this
    out[3 * t] = s;
    out[3 * t + 1] = c;
    out[3 * t + 2] = m + lane * 0;
}
int main()
{
    const int n = 64;
    int *in, *out; cudaMallocManaged(&in, n * sizeof(int)); cudaMallocManaged(&out, 3 * n * sizeof(int));
    for (int i = 0; i < n; ++i) in[i] = (i * 7) % 23;
    k<<<1, n>>>(in, out, 1);
    cudaDeviceSynchronize();
    int bad = 0, count = 0, mx = 0;
    for (int i = 0; i < n; ++i) count += in[i] % 2;
    for (int i = 32; i < 64; ++i) mx = in[i] > mx ? in[i] : mx;
    for (int i = 0; i < n; ++i) {
        int w = i / 32, sum = 0;
        for (int j = 32 * w; j < 32 * w + 32; ++j) sum += in[j];
        if (out[3 * i] != sum || out[3 * i + 1] != count || out[3 * i + 2] != (w == 1 ? mx : 0)) bad++;
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
}
"""


@covers("Warp shuffles", "warp collectives in a kernel lowered with the fiber fallback",
        note="the block's fibers meet at a fiber barrier; arrivals alternate between two buffers")
def test_warp_code_in_a_fiber_kernel(tmp_path):
    """A barrier in a switch sends the kernel to the fiber fallback; its shuffles (in a loop),
    __syncthreads_count and a reduction of one warp still give the GPU's results."""
    cu = tmp_path / "fibers.cu"
    cu.write_text(FIBER_KERNEL)
    result, run, _ = translate_build_run(cu, tmp_path)
    assert [k["lowering"] for k in result.explain["kernels"]] == ["fallback"]
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]


# ------------------------------------------------------------------------------------- errors


def _error(tmp_path, source: str) -> str:
    cu = tmp_path / "t.cu"
    cu.write_text(source)
    with pytest.raises(CompileError) as info:
        translate_file(cu)
    return str(info.value)


PRELUDE = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"


@covers("Warp shuffles", "__shfl, __shfl_up, __shfl_down, __shfl_xor (no mask, removed in CUDA 9)",
        status="not supported", note="located error naming the _sync replacement")
@pytest.mark.parametrize("body, line, what", [
    ("int v = a[threadIdx.x];\n  a[0] = v > 0 && __any_sync(0xffffffff, v > 1);", 3,
     "a warp collective that runs only under a condition inside an expression"),
    ("int n = 0;\n  if (threadIdx.x < 7) n = __syncthreads_count(a[0]);", 3, "depends on threadIdx"),
    ("for (int i = 0; __any_sync(0xffffffff, i < a[threadIdx.x]); ++i) { if (i == 2) continue; a[i] = i; }", 2,
     "'continue' in a loop whose condition or step is a warp collective"),
    ("a[0] = __shfl(a[1], 0);", 2, "__shfl() without a mask (use __shfl_sync)"),
    ("auto t = cg::tiled_partition<3>(cg::this_thread_block());\n  a[0] = t.shfl(a[1], 0);", 3,
     "tile sizes are powers of two from 1 to 1024"),
])
def test_untranslatable_warp_code_is_a_located_error(tmp_path, body, line, what):
    message = _error(tmp_path, PRELUDE + "__global__ void k(int *a) {\n  " + body + "\n}\n")
    assert what in message
    assert f"t.cu:{line + 2}:" in message, message


@covers("Warp shuffles", "warp collective in a __device__ function template called from a kernel template, "
        "arguments deduced from an expression of the kernel's template type",
        status="not supported", note="located error asking for explicit template arguments (deduction from a "
                                     "variable or an array element works, and any deduction clang resolves in a "
                                     "kernel that is not a template)")
def test_collective_in_a_device_function_template_with_undeducible_arguments_is_a_located_error(tmp_path):
    message = _error(tmp_path, "template <typename T>\n__device__ T warp_sum(T v) {\n"
                               "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
                               "  return v;\n}\n"
                               "template <typename U>\n"
                               "__global__ void k(U *a) {\n  a[threadIdx.x] = warp_sum(a[threadIdx.x] * 2);\n}\n"
                               "template __global__ void k<float>(float *);\n")
    assert "t.cu:8:" in message and "warp_sum<T>(...)" in message, message


def test_lowered_collectives_are_exchanges_around_warp_splits(tmp_path):
    """After the pipeline no collective is left; a warp-uniform `if` guards each thread loop of its
    branch (no block-level helper; a condition that reads only threadIdx is tested again in
    each, not recorded per thread) and the collective under it has its own stamp array; the
    shuffle every thread reaches needs none."""
    cu = tmp_path / "t.cu"
    cu.write_text("__global__ void k(int *a) {\n"
                  "  int v = a[threadIdx.x];\n"
                  "  if (threadIdx.x / 32 == 1) v = __reduce_add_sync(0xffffffff, v);\n"
                  "  v += __shfl_xor_sync(0xffffffff, v, 1);\n"
                  "  a[threadIdx.x] = v;\n}\n")
    # Without wide-subscripts' 64-bit copies of the loops, which would double the counts below.
    source = translate_file(cu, TranslateOptions(disabled_passes=("wide-subscripts",))).source
    assert "pred_3" not in source and "cond_3" not in source
    assert source.count("if (threadIdx.x / 32 == 1) {") == 2  # phase A and phase B
    assert source.count("_stamp[1024];") == 1 and source.count("moccuda::warp::clear_slots(") == 1
    assert "shfl_xor_4_stamp" not in source and "moccuda::warp::clear_pads(shfl_xor_4, " in source
    assert "moccuda::warp::reduce<moccuda::warp::Add>(" in source and "moccuda::warp::shfl_xor(" in source
