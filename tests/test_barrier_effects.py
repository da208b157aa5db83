"""Memory effects of barriers (barrier/effects.py) and launch-site facts (cuda_front/launch_sites.py).

Unit tests of the analysis: expected effect sets, the cross-thread conflict test in both
directions (precision: accesses that no two threads share are excluded; soundness: an offset by
one thread, a transposed index, a possibly aliasing pointer are conflicts), and the aliasing rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from barrier.affine_forms import Affine, Poly
from barrier.conflicts import describe, may_meet
from barrier.effects import barrier_effects, cross_conflicts
from barrier.kernel_facts import kernel_facts
from coverage_table import covers
from cuda_front import launch_sites
from cuda_front.convert import Converter
from cuda_front.parse import parse_file
from foundation import ir
from transpiler import translate as tr
from foundation.options import TranslateOptions
from foundation.passes import PassContext, run_pipeline
from transpiler.pipeline import build_pipeline


def analysis_ir(source: str, tmp_path: Path, pipeline: str = "parallel-loops", name: str = "k.cu"):
    """The IR of ``source`` after ``pipeline`` (no lowering, no emission), and its pass context."""
    cu = tmp_path / name
    cu.write_text("#include <cuda_runtime.h>\n" + source)
    unit = parse_file(cu, TranslateOptions())
    scan = tr.scan_unit(unit)
    converter = Converter()
    program = ir.Program(tuple(converter.kernel(c) for c in scan.kernels))
    ctx = PassContext(dict(converter.symbols), device_bodies=tr.device_bodies_for_analysis(converter, scan),
                      launches=launch_sites.analyze(unit.user_top_level(), scan.kernels))
    return run_pipeline(program, build_pipeline(pipeline), ctx), ctx


def thread_loop(kernel: ir.Kernel) -> ir.ThreadLoop:
    body = kernel.body.stmts[-1] if isinstance(kernel.body, ir.Block) else kernel.body
    return next(s for s in body.body.stmts if isinstance(s, ir.ThreadLoop))


def effects_of(source: str, tmp_path: Path, kernel: str = "k"):
    program, ctx = analysis_ir(source, tmp_path)
    k = next(k for k in program.kernels if k.name == kernel)
    facts = kernel_facts(k, ctx)
    return barrier_effects(thread_loop(k), facts), facts


def conflicts_text(effects, facts) -> list[tuple[str, str]]:
    return [(str(a), str(b)) for a, b in cross_conflicts(effects, facts)]


LAUNCH_1D = """
int main() {
    float *a, *b;
    cudaMalloc(&a, 1024); cudaMalloc(&b, 1024);
    k<<<4, 64>>>(a, b);
}
"""


# ------------------------------------------------------------------------------- effect sets


def test_effect_sets_before_and_after(tmp_path):
    (e,), facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = a[t];
    __syncthreads();
    b[t] = s[63 - t];
}
""" + LAUNCH_1D, tmp_path)
    assert describe(e.before) == "read a[t], write s[t]"
    assert describe(e.after) == "read s[63 - t], write b[t]"
    assert conflicts_text(e, facts) == [("write s[t]", "read s[63 - t]")]
    # a and b are distinct cudaMalloc'd buffers, indexed by the thread: both accesses are private
    assert describe(e.private) == "read a[t], write b[t]"


def test_thread_private_accesses_are_excluded(tmp_path):
    """Paper Fig. 5: s[tid] written and read by its own thread needs no barrier."""
    (e,), facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float s[64];
    s[threadIdx.x] = a[threadIdx.x] * 2;
    __syncthreads();
    b[threadIdx.x] = s[threadIdx.x] + 1;
}
""" + LAUNCH_1D, tmp_path)
    assert cross_conflicts(e, facts) == []
    assert e.shared_effects == ()


def test_offset_by_one_thread_conflicts(tmp_path):
    (e,), facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float s[65];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    b[threadIdx.x] = s[threadIdx.x + 1];
}
""" + LAUNCH_1D, tmp_path)
    assert conflicts_text(e, facts) == [("write s[threadIdx.x]", "read s[threadIdx.x + 1]")]


def test_write_after_read_across_threads_conflicts(tmp_path):
    (e,), facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float s[64];
    float v = s[(threadIdx.x + 1) % 64];
    __syncthreads();
    s[threadIdx.x] = v;
}
""" + LAUNCH_1D, tmp_path)
    assert conflicts_text(e, facts) == [("read s[(threadIdx.x + 1) % 64]", "write s[threadIdx.x]")]


def test_uniform_location_and_transposed_index_conflict(tmp_path):
    effects, facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float w[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    w[ty][tx] = a[ty * 16 + tx];
    __syncthreads();
    b[ty * 16 + tx] = w[tx][ty];
    __syncthreads();
    if (tx == 0) w[0][0] = 1;
}
int main() {
    float *a, *b;
    cudaMalloc(&a, 1024); cudaMalloc(&b, 1024);
    k<<<1, dim3(16, 16)>>>(a, b);
}
""", tmp_path)
    first, second = effects
    assert conflicts_text(first, facts) == [("write w[ty][tx]", "read w[tx][ty]")]
    assert conflicts_text(second, facts) == [("read w[tx][ty]", "write w[0][0]")]
    # a[ty * 16 + tx] is injective for a 16 x 16 block (a mixed-radix index)
    assert "read a[ty * 16 + tx]" in describe(first.private)


def test_effects_follow_loops_and_branches(tmp_path):
    """A barrier in a loop sees the next iteration after it and the previous one before it."""
    (e,), facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float s[64];
    float acc = 0;
    for (int i = 0; i < 4; ++i) {
        if (i > 0) acc += s[(threadIdx.x + i) % 64];
        s[threadIdx.x] = a[threadIdx.x] + i;
        __syncthreads();
    }
    b[threadIdx.x] = acc;
}
""" + LAUNCH_1D, tmp_path)
    assert "read s[(threadIdx.x + i) % 64]" in describe(e.after)   # next iteration
    assert "write b[threadIdx.x]" in describe(e.after)             # after the loop
    assert "write s[threadIdx.x]" in describe(e.before)
    assert "read s[(threadIdx.x + i) % 64]" in describe(e.before)  # this iteration, before it
    assert e.previous == (e.barrier,) and e.following == (e.barrier,)
    assert ("write s[threadIdx.x]", "read s[(threadIdx.x + i) % 64]") in conflicts_text(e, facts)


def test_neighbouring_barriers_bound_the_regions(tmp_path):
    effects, facts = effects_of("""
__global__ void k(float *a, float *b) {
    __shared__ float s[64];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    __syncthreads();
    b[threadIdx.x] = s[63 - threadIdx.x];
}
""" + LAUNCH_1D, tmp_path)
    first, second = effects
    assert first.after == () and first.following == (second.barrier,)
    assert second.before == () and second.previous == (first.barrier,)


# ------------------------------------------------------------------------------ aliasing rule


ALIAS_KERNEL = """
__global__ void k(float *x, float *y) {
    x[threadIdx.x] = 1;
    __syncthreads();
    y[threadIdx.x + 1] = 2;
}
"""


@pytest.mark.parametrize("launch, restrict, aliases", [
    ("", "", True),                                                        # no launch: nothing proven
    ("float *a, *b; cudaMalloc(&a, 8); cudaMalloc(&b, 8); k<<<1, 4>>>(a, b);", "", False),
    ("float *a; cudaMalloc(&a, 8); k<<<1, 4>>>(a, a + 1);", "", True),     # one allocation
    ("float *a, *b; cudaMalloc(&a, 8); b = a; k<<<1, 4>>>(a, b);", "", True),  # b copies a
    ("float *a, *b; cudaMalloc(&a, 8); cudaMalloc(&b, 8); k<<<1, 4>>>(a, b); void (*f)(float *, float *) = k;",
     "", True),                                                            # k escapes
    ("", "__restrict__ ", False),
])
def test_pointer_parameters_alias_unless_proven_distinct(tmp_path, launch, restrict, aliases):
    source = ALIAS_KERNEL.replace("float *x", f"float *{restrict}x") + f"int main() {{ {launch} }}\n"
    (e,), facts = effects_of(source, tmp_path)
    assert bool(cross_conflicts(e, facts)) == aliases


def test_distinct_shared_arrays_never_alias_but_unknown_pointers_do(tmp_path):
    (e,), facts = effects_of("""
__global__ void k(float *a, int flag) {
    __shared__ float s[64], r[64];
    float *p = s;
    if (flag) p = r;
    s[threadIdx.x] = 1;
    __syncthreads();
    a[threadIdx.x] = r[threadIdx.x + 1] + p[0];
}
""" + LAUNCH_1D.replace("(a, b)", "(a, 1)"), tmp_path)
    # r never aliases s; p (reassigned) may point anywhere
    assert conflicts_text(e, facts) == [("write s[threadIdx.x]", "read p[0]")]


def test_device_function_effects_through_pointer_arguments(tmp_path):
    (e,), facts = effects_of("""
__device__ void put(float *p, int i, float v) { p[i] = v; }
__device__ float twice(float v) { return 2 * v; }
__global__ void k(float *a, float *b) {
    __shared__ float s[64], r[64];
    put(s, threadIdx.x, twice(a[threadIdx.x]));
    __syncthreads();
    b[threadIdx.x] = s[threadIdx.x] + r[threadIdx.x];
}
""" + LAUNCH_1D, tmp_path)
    # the write inside put has an unknown index: it may meet another thread's read of s
    (pair,) = conflicts_text(e, facts)
    assert pair[0].startswith("write put(s, threadIdx.x, twice(a[threadIdx.x])): p[i]")
    assert pair[1] == "read s[threadIdx.x]"


def test_unknown_calls_and_atomics_are_conflicts(tmp_path):
    effects, facts = effects_of("""
__device__ void opaque(float *p);
__global__ void k(float *a, int *c) {
    __shared__ float s[64];
    __shared__ int n;
    atomicAdd(&n, 1);
    __syncthreads();
    c[threadIdx.x] = n;
    __syncthreads();
    opaque(a);
    __syncthreads();
    s[threadIdx.x] = 0;
}
int main() { float *a; int *c; cudaMalloc(&a, 8); cudaMalloc(&c, 8); k<<<1, 64>>>(a, c); }
""", tmp_path)
    first, second, third = effects
    assert ("write atomicAdd(&n, 1)", "read n") in conflicts_text(first, facts)
    assert cross_conflicts(second, facts) and cross_conflicts(third, facts)


# -------------------------------------------------------------------------- the affine test


def _f(*coefs, const=0):
    return Affine(tuple(c if isinstance(c, Poly) else Poly.const(c) for c in coefs), Poly.const(const))


class _Facts:
    """Just what may_meet needs: the block extents."""

    def __init__(self, extents):
        self.extents = extents

    def varying_dims(self):
        return [d for d in range(3) if self.extents[d] != 1]

    def extent(self, d):
        e = self.extents[d]
        return Poly.const(e) if e is not None else Poly.atom("blockDim." + "xyz"[d])


@pytest.mark.parametrize("a, b, extents, meet", [
    ((_f(1, 0, 0),), (_f(1, 0, 0),), (None, 1, 1), False),            # s[tx] / s[tx]
    ((_f(1, 0, 0),), (_f(1, 0, 0),), (None, None, 1), True),          # ... when blockDim.y may exceed 1
    ((_f(1, 0, 0),), (_f(1, 0, 0, const=1),), (None, 1, 1), True),    # s[tx] / s[tx + 1]
    ((_f(2, 0, 0),), (_f(2, 0, 0, const=1),), (None, 1, 1), False),   # s[2tx] / s[2tx + 1]
    ((_f(1, 0, 0),), (_f(0, 0, 0),), (None, 1, 1), True),             # s[tx] / s[0]
    ((_f(1, 16, 0),), (_f(1, 16, 0),), (16, 16, 1), False),           # s[16ty + tx], 16 x 16 block
    ((_f(1, 15, 0),), (_f(1, 15, 0),), (16, 16, 1), True),            # s[15ty + tx]: 15*1 + 0 == 0*1 + 15
    ((_f(1, Poly.atom("blockDim.x"), 0),), (_f(1, Poly.atom("blockDim.x"), 0),), (None, None, 1), False),
    ((_f(1, 0, 0),), (Affine((Poly.const(1), Poly(), Poly()), Poly.atom("blockDim.x")),), (None, 1, 1), False),
    ((_f(0, 1, 0), _f(1, 0, 0)), (_f(0, 1, 0), _f(1, 0, 0)), (None, None, 1), False),  # w[ty][tx]
    ((_f(0, 1, 0), _f(1, 0, 0)), (_f(1, 0, 0), _f(0, 1, 0)), (None, None, 1), True),   # w[ty][tx] / w[tx][ty]
    ((_f(0, 0, 0), _f(1, 0, 0)), (_f(0, 0, 0, const=1), _f(1, 0, 0)), (None, 1, 1), False),  # w[0][tx] / w[1][tx]
])
def test_may_meet(a, b, extents, meet):
    assert may_meet(a, b, _Facts(extents)) is meet


# ------------------------------------------------------------------------------ launch sites


def test_launch_site_facts(tmp_path):
    cu = tmp_path / "l.cu"
    cu.write_text("""#include <cuda_runtime.h>
__global__ void k(float *x, float *y, float *z, int n) {}
__global__ void never(float *x, float *y) {}
int main() {
    float *a = nullptr, *b, *c;
    cudaMalloc(&a, 64); cudaMalloc((void **)&b, 64); cudaMalloc(&c, 64);
    float *d = a;
    dim3 threads(16, 8);
    k<<<2, threads>>>(a, b + 4, (float *)c, 1);
    k<<<dim3(3), dim3(16, 4)>>>(b, c, d, 2);
}
""")
    unit = parse_file(cu, TranslateOptions())
    facts = launch_sites.analyze(unit.user_top_level(), tr.scan_unit(unit).kernels)
    assert facts["k"].launches == 2
    # first launch: a, b, c are three allocations; second: d is a copy of a, proving nothing
    assert facts["k"].distinct == {frozenset({"x", "y"})}
    assert facts["k"].block_extent == (16, None, 1)
    assert facts["never"] == launch_sites.NO_FACTS


def test_launch_site_in_a_macro_argument_gives_its_real_block_size(tmp_path):
    """A launch written in a macro argument (PyTorch's AT_DISPATCH lambdas, error-check macros)
    has argument cursors with empty source extents: they once read as dim3's defaulted `= 1`, so
    blockDim was "proven" 1 and every thread looked like thread 0 to the barrier analyses.  Only
    what clang evaluates is a block size; anything else is unknown."""
    cu = tmp_path / "m.cu"
    cu.write_text("""#include <cuda_runtime.h>
#define BLOCK 64
#define LAUNCH(...) do { __VA_ARGS__ } while (0)
__global__ void a(float *x) {}
__global__ void b(float *x) {}
__global__ void c(float *x) {}
int main(int argc, char **argv) {
    float *p;
    cudaMalloc(&p, 64);
    LAUNCH(a<<<3, BLOCK>>>(p););
    LAUNCH(b<<<3, dim3(16, 4)>>>(p););
    int dynamic = argc * 32;
    LAUNCH(c<<<3, dim3(dynamic, BLOCK / 32)>>>(p););
}
""")
    unit = parse_file(cu, TranslateOptions())
    facts = launch_sites.analyze(unit.user_top_level(), tr.scan_unit(unit).kernels)
    assert facts["a"].block_extent == (64, 1, 1)
    assert facts["b"].block_extent == (16, 4, 1)
    assert facts["c"].block_extent == (None, 2, 1)


def test_barrier_kept_when_the_launch_is_in_a_macro(tmp_path):
    """The barrier between every thread's read of red[0] and the writes red[threadIdx.x] orders a
    cross-thread conflict, wherever the launch is written."""
    effects, facts = effects_of("""
#define BLOCK 64
#define LAUNCH(...) do { __VA_ARGS__ } while (0)
__global__ void k(float *y) {
    __shared__ float red[BLOCK];
    red[threadIdx.x] = 1.0f;
    __syncthreads();
    const float rmax = red[0];
    __syncthreads();
    red[threadIdx.x] = rmax;
    y[threadIdx.x] = red[1];
}
int main() { float *y; cudaMalloc(&y, 256); LAUNCH(k<<<1, BLOCK>>>(y);); }
""", tmp_path)
    assert facts.extents == (64, 1, 1)
    assert ("read red[0]", "write red[threadIdx.x]") in conflicts_text(effects[1], facts)


def test_writes_through_references_are_not_thread_private(tmp_path):
    """A reference (a device function's parameter, a local) names the lvalue it is bound to; a
    variable passed to a reference parameter may change.  Not understood, they once counted as
    the thread's own storage, and barriers ordering shared memory were removed."""
    effects, facts = effects_of("""
__device__ void put(float &dst, float v) { dst = v; }
__device__ void next_slot(int &i) { i = (i + 1) % 64; }
__global__ void k(float *out) {
    __shared__ float s[64];
    __shared__ float t[64];
    put(s[threadIdx.x], 1.0f);
    __syncthreads();
    float &mine = t[threadIdx.x];
    mine = s[63 - threadIdx.x];
    __syncthreads();
    int slot = threadIdx.x;
    next_slot(slot);
    out[threadIdx.x] = t[slot];
}
""" + LAUNCH_1D.replace("k<<<4, 64>>>(a, b)", "k<<<4, 64>>>(a)"), tmp_path)
    first, second = (conflicts_text(e, facts) for e in effects)
    assert any(a.startswith("write put(s[threadIdx.x]") and b == "read s[63 - threadIdx.x]" for a, b in first), first
    assert ("write mine", "read t[slot]") in second, second


LAST_ROW = """#include <cstdio>
{storage}__global__ void last_row(int *out)
{{
    __shared__ int s[64];
    int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == blockDim.y - 1)
        s[tx] = tx * 3 + 1;
    __syncthreads();
    out[(blockIdx.x * blockDim.y + ty) * blockDim.x + tx] = s[tx];
}}
int from_other_file();
int main()
{{
    int *out;
    cudaMallocManaged(&out, 256 * sizeof(int));
    last_row<<<2, 32>>>(out);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < 64; ++i) bad += out[i] != (i % 32) * 3 + 1;
    bad += from_other_file();
    printf("%s %d\\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}}
"""
FROM_OTHER_FILE = """__global__ void last_row(int *out);
int from_other_file()
{{
    int *out;
    cudaMallocManaged(&out, 256 * sizeof(int));
    last_row<<<2, {block}>>>(out);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < 2 * {threads}; ++i) bad += out[i] != (i % 32) * 3 + 1;
    return bad;
}}
"""


@covers("Kernels and memory", "a kernel launched from another file too (through a prototype)", status="partial",
        note="each launch is checked against the block size and the distinct allocations that the launches in the "
             "kernel's own file gave the translation; another one stops the program with a message located at the "
             "kernel")
@pytest.mark.parametrize("block, threads", [("dim3(32, 4)", 128), ("32", 32)])
def test_a_launch_from_another_file_is_checked_against_the_block_size_assumed(tmp_path, block, threads):
    """Every launch in last_row's file gives blocks of 32x1x1, so its barrier looks redundant (each
    thread reads the slot it wrote).  A launch from another file with 32x4 blocks (rows 0-2 read
    what row 3 writes) computed wrong values, silently (FAIL 96); the kernel, which other files can
    launch, now checks the block size the translation assumed and stops there with a located
    message.  The same block size from the other file runs."""
    from support import run_cli

    (tmp_path / "a.cu").write_text(LAST_ROW.format(storage=""))
    (tmp_path / "b.cu").write_text(FROM_OTHER_FILE.format(block=block, threads=threads))
    built = run_cli("a.cu", "b.cu", "-o", "prog", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    import subprocess
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=60)
    if threads == 32:
        assert run.returncode == 0 and run.stdout.strip() == "PASS 0", run.stdout + run.stderr
    else:
        assert run.returncode != 0 and "PASS" not in run.stdout and "FAIL" not in run.stdout, run.stdout
        assert ("a.cu:2:17: error: kernel 'last_row' was translated for blocks of 32x1x1 threads (the block size of "
                "every launch of it in its file) and is launched with 32x4x1, from another file") in run.stderr


def test_a_kernel_only_its_own_file_can_launch_is_not_checked(tmp_path):
    """A static kernel's launches are all in its file: the block size they give is a proof."""
    from support import run_cli

    (tmp_path / "a.cu").write_text(LAST_ROW.format(storage="static ").replace("int from_other_file();", "")
                                   .replace("bad += from_other_file();", ""))
    translated = run_cli("--emit=openmp", "a.cu", "-o", "a.cpp", cwd=tmp_path)
    assert translated.returncode == 0, translated.stderr
    assert "check_assumed_block" not in (tmp_path / "a.cpp").read_text()
    (tmp_path / "c.cu").write_text(LAST_ROW.format(storage="").replace("int from_other_file();", "")
                                   .replace("bad += from_other_file();", ""))
    assert run_cli("--emit=openmp", "c.cu", "-o", "c.cpp", cwd=tmp_path).returncode == 0
    assert 'check_assumed_block(launch, 32u, 1u, 1u, "c.cu:2:17", "last_row");' in (tmp_path / "c.cpp").read_text()


TWICE_THEN_NEXT = """#include <cstdio>
__global__ void twice_then_next(const int *in, int *out, int *next)
{
    int t = threadIdx.x;
    out[t] = in[t] * 2;
    __syncthreads();
    next[t] = in[(t + 1) % blockDim.x];
}
int from_other_file();
int main()
{
    int *in, *out, *next;
    cudaMallocManaged(&in, 256 * sizeof(int));
    cudaMallocManaged(&out, 256 * sizeof(int));
    cudaMallocManaged(&next, 256 * sizeof(int));
    for (int i = 0; i < 256; ++i) in[i] = i;
    twice_then_next<<<1, 256>>>(in, out, next);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < 256; ++i) bad += out[i] != 2 * i || next[i] != (i + 1) % 256;
    bad += from_other_file();
    printf("%s %d\\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
"""
IN_PLACE_FROM_OTHER_FILE = """__global__ void twice_then_next(const int *in, int *out, int *next);
int from_other_file()
{{
    int *buf, *other, *next;
    cudaMallocManaged(&buf, 256 * sizeof(int));
    cudaMallocManaged(&other, 256 * sizeof(int));
    cudaMallocManaged(&next, 256 * sizeof(int));
    for (int i = 0; i < 256; ++i) buf[i] = i;
    twice_then_next<<<1, 256>>>({args});
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < 256; ++i) bad += next[i] != {want};
    return bad;
}}
"""


@pytest.mark.parametrize("args, want", [("buf, buf, next", "2 * ((i + 1) % 256)"), ("buf, other, next", "(i + 1) % 256")],
                         ids=["in-place", "distinct"])
def test_a_launch_from_another_file_is_checked_against_the_distinct_arguments_assumed(tmp_path, args, want):
    """Every launch in twice_then_next's file passes three cudaMalloc'd buffers, so 'in' and 'out'
    are distinct memory and the barrier between writing out[t] and reading in[t + 1] looks
    redundant.  Launched in place from another file (in == out) it computed wrong values,
    silently (FAIL 255); now the kernel checks that the two arguments are in distinct allocations
    and stops with a located message.  Arguments in distinct allocations run."""
    import subprocess

    from support import run_cli

    (tmp_path / "a.cu").write_text(TWICE_THEN_NEXT)
    (tmp_path / "b.cu").write_text(IN_PLACE_FROM_OTHER_FILE.format(args=args, want=want))
    built = run_cli("a.cu", "b.cu", "-o", "prog", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=60)
    if args.startswith("buf, buf"):
        assert run.returncode != 0 and "PASS" not in run.stdout and "FAIL" not in run.stdout, run.stdout
        assert ("a.cu:2:17: error: kernel 'twice_then_next' was translated for arguments 'in' and 'out' in distinct "
                "allocations (as every launch of it in its file passes them) and is launched with both in one "
                "allocation, from another file") in run.stderr
    else:
        assert run.returncode == 0 and run.stdout.strip() == "PASS 0", run.stdout + run.stderr


def test_buffers_of_zero_bytes_pass_the_distinct_allocations_check(tmp_path):
    """cudaMalloc of 0 bytes gives null pointers: a launch of this file with them (and 0 elements)
    is valid CUDA, and the check that the arguments are in distinct allocations lets it run."""
    from support import translate_build_run

    cu = tmp_path / "empty.cu"
    cu.write_text("""#include <cstdio>
__global__ void copy_next(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    if (t < n) out[t] = in[t];
    __syncthreads();
    if (t < n) out[t] += in[(t + 1) % n];
}
int main()
{
    int *in, *out, n = 0;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    copy_next<<<1, 32>>>(in, out, n);
    printf("%s\\n", cudaDeviceSynchronize() == cudaSuccess && in == nullptr ? "PASS" : "FAIL");
    return 0;
}
""")
    result, run, _ = translate_build_run(cu, tmp_path)
    assert "check_distinct_allocations(in, out" in result.source
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
