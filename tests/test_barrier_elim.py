"""Pass barrier-elim: barriers that must stay stay, barriers that order nothing go, and every
transformed program still computes what its host reference expects (run-and-check), with the
same output as with ``--no-barrier-elim``."""

from __future__ import annotations

import pytest

from support import MANY_THREADS, PROGRAMS, run_built, translate_build_run
from test_barrier_effects import analysis_ir
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions

CASES = r"""
#include <cstdio>
#include <cuda_runtime.h>
#define B 64

// must stay: thread t reads the slot thread t + 1 wrote
__global__ void offset_by_one(const int *in, int *out)
{
    __shared__ int s[B + 1];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t == 0) s[B] = -1;
    __syncthreads();
    out[t] = s[t + 1];
}

// must stay: y points one element past x (same allocation), so y[t] is x[t + 1]
__global__ void aliasing(int *x, const int *y, int *out)
{
    int t = threadIdx.x;
    x[t] = 10 * t;
    __syncthreads();
    out[t] = y[t] + 1;
}

// the second barrier must stay: thread t reads s[t - 1] before thread t - 1 overwrites it;
// the third orders only each thread's own slot and goes
__global__ void write_after_read(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int left = s[(t + B - 1) % B];
    __syncthreads();
    s[t] = left * 2;
    __syncthreads();
    out[t] = s[t];
}

// must go: each thread reads back only its own slot
__global__ void private_slot(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t] * 3;
    __syncthreads();
    out[t] = s[t] + 1;
}

// must go: reads on both sides of the first; the second orders reads of `in` and writes of a
// distinct allocation
__global__ void read_only(const int *in, int *out)
{
    int t = threadIdx.x;
    int a = in[t];
    __syncthreads();
    int b = in[B - 1 - t];
    __syncthreads();
    out[t] = a + b;
}

// the first of two barriers in a row goes (subsumed), the second stays
__global__ void twice(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    __syncthreads();
    out[t] = s[B - 1 - t];
}

// must go: __restrict__ promises x and y do not overlap (the launch site proves nothing here)
__global__ void restricted(int *__restrict__ x, const int *__restrict__ y, int *out)
{
    int t = threadIdx.x;
    x[t] = 10 * t;
    __syncthreads();
    out[t] = y[t] + 1;
}

static void launch_restricted(int *x, const int *y, int *out) { restricted<<<1, B>>>(x, y, out); }

static int check(const char *name, const int *got, const int *want)
{
    for (int i = 0; i < B; ++i)
        if (got[i] != want[i]) {
            printf("FAIL: %s[%d] = %d, expected %d\n", name, i, got[i], want[i]);
            return 1;
        }
    printf("%s ok\n", name);
    return 0;
}

int main()
{
    int in[B], got[B], want[B], buf[B + 1];
    for (int i = 0; i < B; ++i) in[i] = 7 * i - 100;
    for (int i = 0; i <= B; ++i) buf[i] = 5000 + i;
    int *din, *dout, *dbuf, *dother;
    cudaMalloc(&din, sizeof(in));
    cudaMalloc(&dout, sizeof(got));
    cudaMalloc(&dbuf, sizeof(buf));
    cudaMalloc(&dother, sizeof(buf));
    cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice);
    int bad = 0;

    offset_by_one<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = i + 1 < B ? in[i + 1] : -1;
    bad |= check("offset_by_one", got, want);

    cudaMemcpy(dbuf, buf, sizeof(buf), cudaMemcpyHostToDevice);
    aliasing<<<1, B>>>(dbuf, dbuf + 1, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = (i + 1 < B ? 10 * (i + 1) : buf[B]) + 1;
    bad |= check("aliasing", got, want);

    write_after_read<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = 2 * in[(i + B - 1) % B];
    bad |= check("write_after_read", got, want);

    private_slot<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = 3 * in[i] + 1;
    bad |= check("private_slot", got, want);

    read_only<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = in[i] + in[B - 1 - i];
    bad |= check("read_only", got, want);

    twice<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = in[B - 1 - i];
    bad |= check("twice", got, want);

    cudaMemcpy(dother, buf, sizeof(buf), cudaMemcpyHostToDevice);
    launch_restricted(dbuf, dother, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = buf[i] + 1;
    bad |= check("restricted", got, want);

    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
"""

#: The actions expected for each kernel's barriers, in source order.
EXPECTED = {
    "offset_by_one": ["kept"],
    "aliasing": ["kept"],
    "write_after_read": ["kept", "kept", "eliminated"],
    "private_slot": ["eliminated"],
    "read_only": ["eliminated", "eliminated"],
    "twice": ["eliminated", "kept"],
    "restricted": ["eliminated"],
}


def _actions(explain: dict) -> dict[str, list[str]]:
    return {k["name"]: [b["action"] for b in sorted(k["barriers"], key=lambda b: b["line"])]
            for k in explain["kernels"]}


def _reasons(explain: dict, kernel: str) -> list[str]:
    (k,) = [k for k in explain["kernels"] if k["name"] == kernel]
    return [b["reason"] for b in sorted(k["barriers"], key=lambda b: b["line"])]


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    work = tmp_path_factory.mktemp("elim")
    cu = work / "elim_cases.cu"
    cu.write_text(CASES)
    return work, cu


def test_barriers_that_must_stay_stay_and_the_others_go(cases):
    work, cu = cases
    result, run, _ = translate_build_run(cu, work)
    assert _actions(result.explain) == EXPECTED
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    assert "only reads" in _reasons(result.explain, "read_only")[0]
    assert "subsumed by the barrier at line" in _reasons(result.explain, "twice")[0]
    assert "s[t + 1]" in _reasons(result.explain, "offset_by_one")[0]
    assert "y[t]" in _reasons(result.explain, "aliasing")[0]


def test_output_is_the_same_without_barrier_elim(cases, tmp_path):
    work, cu = cases
    _, with_elim, _ = translate_build_run(cu, work)
    result, without, _ = translate_build_run(cu, tmp_path, TranslateOptions(disabled_passes=("barrier-elim",)))
    assert all(a != "eliminated" for actions in _actions(result.explain).values() for a in actions)
    assert without.returncode == 0 and without.stdout == with_elim.stdout


# ------------------------------------------------------------------------- paper Fig. 9 shape

FIG9 = PROGRAMS / "barriers" / "backprop_layerforward.cu"


def test_fig9_first_and_last_barriers_are_eliminated(tmp_path):
    source = FIG9.read_text().replace("#include <cuda_runtime.h>\n", "")
    program, ctx = analysis_ir(source, tmp_path, "parallel-loops,barrier-elim", name=FIG9.name)
    (report,) = [ctx.reports[k.name].as_json() for k in program.kernels]
    actions = [b["action"] for b in report["barriers"]]
    assert actions == ["eliminated", "kept", "kept", "kept", "eliminated"]
    assert all(b["reason"] for b in report["barriers"])


def test_fig9_output_is_unchanged(tmp_path):
    result, run, _ = translate_build_run(FIG9, tmp_path)
    assert [b["action"] for b in result.explain["kernels"][0]["barriers"]] == [
        "eliminated", "kept", "kept", "kept", "eliminated"]
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    off = tmp_path / "off"
    off.mkdir()
    _, plain, _ = translate_build_run(FIG9, off, TranslateOptions(disabled_passes=("barrier-elim",)))
    assert plain.stdout == run.stdout


UNROLLED = FIG9.read_text()
_LOOP = """    for (int level = 1; (1 << level) <= HEIGHT; ++level) {
        int power_two = 1 << level;
        if (ty % power_two == 0)
            weight_matrix[ty][tx] += weight_matrix[ty + power_two / 2][tx];
        __syncthreads();
    }
"""


def test_fig9_with_the_reduction_unrolled_runs_unchanged(tmp_path):
    """All barriers at top level (no loop to lower): elimination and forwarding keep the output."""
    assert _LOOP in UNROLLED
    steps = "".join(f"""    if (ty % {2 << k} == 0)
        weight_matrix[ty][tx] += weight_matrix[ty + {1 << k}][tx];
    __syncthreads();
""" for k in range(4))
    cu = tmp_path / "fig9_unrolled.cu"
    cu.write_text(UNROLLED.replace(_LOOP, steps))
    result, run, _ = translate_build_run(cu, tmp_path)
    actions = [b["action"] for b in result.explain["kernels"][0]["barriers"]]
    assert actions[0] == "eliminated" and actions[1:5] == ["kept"] * 4
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


# ------------------------------------------------------------------------------- barrier-motion

MOTION = r"""
#include <cstdio>
#include <cuda_runtime.h>
#define B 64

// moving the barrier above w, u, z keeps t and v per thread instead of t, u, w and z
__global__ void fewer_kept(const int *in, float *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    int v = in[t];
    s[t] = v;
    float w = v * 0.5f;
    int u = v + 3;
    int z = u * u;
    __syncthreads();
    out[t] = s[t ^ 1] + w + u + z;
}

// the barrier cannot pass over s[t] = v: the neighbour reads it after the barrier
__global__ void must_not_move(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    int a = in[t] * 2;
    int b = in[t] * 3;
    s[t] = a + b;
    __syncthreads();
    out[t] = s[t ^ 1];
}

int main()
{
    int in[B], iout[B];
    float fout[B];
    for (int i = 0; i < B; ++i) in[i] = 3 * i - 50;
    int *din, *diout;
    float *dfout;
    cudaMalloc(&din, sizeof(in));
    cudaMalloc(&diout, sizeof(iout));
    cudaMalloc(&dfout, sizeof(fout));
    cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice);
    fewer_kept<<<1, B>>>(din, dfout);
    must_not_move<<<1, B>>>(din, diout);
    cudaMemcpy(fout, dfout, sizeof(fout), cudaMemcpyDeviceToHost);
    cudaMemcpy(iout, diout, sizeof(iout), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) {
        int v = in[i], u = v + 3;
        float want = in[i ^ 1] + v * 0.5f + u + u * u;
        if (fout[i] != want || iout[i] != 5 * in[i ^ 1]) {
            printf("FAIL: %d: %g %g / %d %d\n", i, fout[i], want, iout[i], 5 * in[i ^ 1]);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
"""


def _kept(explain: dict, kernel: str) -> list[str]:
    (k,) = [k for k in explain["kernels"] if k["name"] == kernel]
    (entry,) = k["kept_values"]
    return entry["names"]


def test_barrier_moves_where_fewer_values_live_across_it(tmp_path):
    cu = tmp_path / "motion.cu"
    cu.write_text(MOTION)
    result, run, _ = translate_build_run(cu, tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    assert _actions(result.explain) == {"fewer_kept": ["moved"], "must_not_move": ["kept"]}
    assert "moved up over 3 statement(s)" in _reasons(result.explain, "fewer_kept")[0]
    assert _kept(result.explain, "fewer_kept") == ["v"]  # t = threadIdx.x is recomputed
    off = tmp_path / "off"
    off.mkdir()
    plain_result, plain, _ = translate_build_run(cu, off, TranslateOptions(disabled_passes=("barrier-motion",)))
    # Without motion the min-cut of barrier-split still stores only v, recomputing u, w, z after it.
    assert _kept(plain_result.explain, "fewer_kept") == ["v"]
    (k,) = [k for k in plain_result.explain["kernels"] if k["name"] == "fewer_kept"]
    assert {"u", "w", "z"} <= set(k["kept_values"][0]["recomputed"])
    assert _kept(plain_result.explain, "must_not_move") == _kept(result.explain, "must_not_move")
    assert plain.stdout == run.stdout


def test_barrier_under_a_thread_dependent_condition_is_left_for_the_lowering(tmp_path):
    """Not every thread reaches it, which CUDA forbids: it stays, so the lowering reports it."""
    program, ctx = analysis_ir("""
__global__ void k(float *a) {
    int lane = threadIdx.x % 32;
    if (lane < 16) { __syncthreads(); }
    if (blockIdx.x > 0) { __syncthreads(); }
    a[threadIdx.x] = 0;
}
""", tmp_path, "parallel-loops,barrier-elim")
    (report,) = [ctx.reports[k.name].as_json() for k in program.kernels]
    first, second = report["barriers"]
    assert first["action"] == "kept" and "depends on the thread index" in first["reason"]
    assert second["action"] == "eliminated"


# ------------------------------------------------------------------- blocks that signal each other

SIGNALS = PROGRAMS / "barriers" / "blocks_signal_across_barrier.cu"


def test_barriers_before_a_signal_to_other_blocks_stay(tmp_path):
    """A barrier between the block's global accesses and thread 0's atomic or volatile signal to
    the next block (or its wait for the previous one) orders no two threads of the block, but
    the signal must follow every thread's access: it stays.  Without the signal's side it goes."""
    result, run, _ = translate_build_run(SIGNALS, tmp_path)
    assert _actions(result.explain) == {"move_up": ["kept", "kept"], "move_up_volatile": ["kept", "kept"],
                                        "count_after_private_work": ["eliminated"]}
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    for threads in (1, 2, MANY_THREADS):
        again = run_built(SIGNALS, tmp_path, threads)
        assert again.returncode == 0 and again.stdout == run.stdout, again.stdout + again.stderr
