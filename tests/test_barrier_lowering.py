"""Barrier lowering (passes inline-device, barrier-interchange, barrier-split): every program of
the corpus in tests/programs translates with every barrier removed by splitting and interchange,
builds, runs and checks itself against its host reference (with 2 OpenMP threads, and again with
16: more than the cores, so blocks interleave at every barrier); the min-cut keeps the fewest values;
conditions that vary with the thread id are located errors."""

from __future__ import annotations

import pytest

from barrier.barrier_split import choose_kept
from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, run_built, translate_build_run
from foundation import ir
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

#: The barrier corpus (other directories of tests/programs belong to other features).
CORPUS = sorted(p for d in ("barriers", "topbarrier") for p in (PROGRAMS / d).glob("*.cu"))


@covers("Kernels and memory", "__syncthreads in for / while / do-while / if (block-uniform)",
        "__syncthreads in a __device__ function", "extern __shared__ (dynamic shared memory)",
        "2-D __shared__ tiles", "early return before and after barriers", "2-D and 3-D grids and blocks",
        "kernel template with a non-type parameter", "struct parameters with member functions",
        "__device__ functions reading threadIdx", "__constant__ with cudaMemcpyToSymbol")
@pytest.mark.parametrize("cu", CORPUS, ids=[f"{c.parent.name}/{c.stem}" for c in CORPUS])
def test_corpus_program_passes_through_the_split_lowering(cu, tmp_path):
    result, run, _ = translate_build_run(cu, tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    many = run_built(cu, tmp_path, MANY_THREADS)
    assert many.returncode == 0 and many.stdout == run.stdout, f"{MANY_THREADS} threads:\n" + many.stdout + many.stderr
    for kernel in result.explain["kernels"]:
        assert kernel["lowering"] == "split"
        for b in kernel["barriers"]:
            assert b["action"] in ("kept", "eliminated", "moved") and b["reason"]
    assert not any(ir.contains(k, ir.Barrier) for k in result.program.kernels)


def test_min_cut_on_the_paper_fig6_shape():
    # x and y are loads (cannot be recomputed); a = x + 1, b = y * 2, c = a * b are all used
    # after the barrier: storing x and y (2 values) beats storing a, b and c (3).
    x, y, a, b, c = 1, 2, 3, 4, 5
    values = {v: None for v in (x, y, a, b, c)}
    operands = {a: {x}, b: {y}, c: {a, b}}
    assert choose_kept(values, {x, y}, operands, {a, b, c}) == {x, y}
    # With only c live, storing c alone is cheapest.
    assert choose_kept(values, {x, y}, operands, {c}) == {c}
    # A value computed from builtins only is recomputed for free.
    assert choose_kept({a: None}, set(), {}, {a}) == set()


FIG6 = r"""
#include <cstdio>
#include <cuda_runtime.h>
__global__ void fig6(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int x = in[2 * t];
    int y = in[2 * t + 1];
    int a = x + 1;
    int b = y * 2;
    int c = a * b;
    s[t] = c;
    __syncthreads();
    out[t] = a + b + c + s[63 - t];
}
int main()
{
    int h[128], r[64], *din, *dout;
    for (int i = 0; i < 128; ++i) h[i] = i * 3 - 50;
    cudaMalloc(&din, sizeof h);
    cudaMalloc(&dout, sizeof r);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    fig6<<<1, 64>>>(din, dout);
    cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; ++t) {
        int a = h[2 * t] + 1, b = h[2 * t + 1] * 2, u = 63 - t;
        int expect = a + b + a * b + (h[2 * u] + 1) * (h[2 * u + 1] * 2);
        if (r[t] != expect) { printf("FAIL: %d: %d != %d\n", t, r[t], expect); return 1; }
    }
    printf("PASS\n");
    return 0;
}
"""


def test_fig6_keeps_the_loads_and_recomputes_the_rest(tmp_path):
    cu = tmp_path / "fig6.cu"
    cu.write_text(FIG6)
    result, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr
    (entry,) = result.explain["kernels"][0]["kept_values"]
    assert sorted(entry["names"]) == ["x", "y"] and sorted(entry["recomputed"]) == ["a", "b", "c", "t"]
    assert "x_per_thread" in result.source and "a_per_thread" not in result.source


NON_UNIFORM = {
    "while": "int i = threadIdx.x;\n    while (i < 8) {\n        __syncthreads();\n        ++i;\n    }",
    "for": "for (int i = threadIdx.x; i < 8; ++i) {\n        __syncthreads();\n    }",
    "if": "int lane = threadIdx.x % 4;\n    if (lane == 0) {\n        __syncthreads();\n    }",
}


@pytest.mark.parametrize("construct", sorted(NON_UNIFORM))
def test_thread_dependent_condition_around_a_barrier_is_an_error(construct, tmp_path):
    cu = tmp_path / "bad.cu"
    cu.write_text("__global__ void k(int *a)\n{\n    " + NON_UNIFORM[construct] + "\n    a[threadIdx.x] = 0;\n}\n")
    with pytest.raises(CompileError) as err:
        translate_file(cu)
    diag = err.value.diagnostics[0]
    assert "depends on threadIdx" in diag.message and diag.loc.line >= 3


def test_no_thread_loop_contains_a_barrier_after_lowering():
    program = translate_file(PROGRAMS / "barriers" / "bitonic_sort.cu").program
    for kernel in program.kernels:
        for loop in (n for n in kernel.walk() if isinstance(n, ir.ThreadLoop)):
            assert not ir.contains(loop, ir.Barrier)
        assert any(isinstance(n, ir.For) and not ir.contains(n, ir.Barrier)
                   and any(isinstance(m, ir.ThreadLoop) for m in n.walk()) for n in kernel.walk())


MEMBER_UPDATE = r"""
#include <cstdio>
#include <cuda_runtime.h>
__global__ void acc_members(const float *in, float2 *out, int rounds)
{
    __shared__ float s[32];
    float2 acc = make_float2(0.0f, 1.0f);   // pure initializer, then updated through members
    for (int r = 0; r < rounds; ++r) {
        s[threadIdx.x] = in[r * 32 + threadIdx.x];
        __syncthreads();
        acc.x += s[31 - threadIdx.x];
        acc.y *= 2.0f;
        __syncthreads();
    }
    out[threadIdx.x] = acc;
}
int main()
{
    float h[96];
    float2 r[32];
    for (int i = 0; i < 96; ++i) h[i] = i * 0.5f;
    float *din; float2 *dout;
    cudaMalloc(&din, sizeof h);
    cudaMalloc(&dout, sizeof r);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    acc_members<<<1, 32>>>(din, dout, 3);
    cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 32; ++t) {
        float x = 0.0f;
        for (int k = 0; k < 3; ++k) x += h[k * 32 + 31 - t];
        if (r[t].x != x || r[t].y != 8.0f) { printf("FAIL: %d: %g %g\n", t, r[t].x, r[t].y); return 1; }
    }
    printf("PASS\n");
    return 0;
}
"""


def test_value_updated_through_its_members_is_kept_not_recomputed(tmp_path):
    cu = tmp_path / "members.cu"
    cu.write_text(MEMBER_UPDATE)
    result, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr
    kept = [n for e in result.explain["kernels"][0]["kept_values"] for n in e["names"]]
    assert "acc" in kept


def test_call_to_an_overloaded_synchronizing_function_inlines_the_overload_called(tmp_path):
    # Each call is inlined by the overload clang resolved it to (both synchronize).
    cu = tmp_path / "overloaded.cu"
    cu.write_text("#include <cstdio>\n"
                  "__device__ void sync_twice(int *s) { __syncthreads(); s[threadIdx.x] += 1; __syncthreads(); }\n"
                  "__device__ void sync_twice(float *s) { __syncthreads(); s[threadIdx.x] *= 2.0f; }\n"
                  "__global__ void k(int *a, float *f) {\n    sync_twice(a);\n    sync_twice(f);\n}\n"
                  "int main() {\n  int *a; float *f;\n  cudaMallocManaged(&a, 32 * sizeof(int));\n"
                  "  cudaMallocManaged(&f, 32 * sizeof(float));\n"
                  "  for (int i = 0; i < 32; i++) { a[i] = i; f[i] = i; }\n"
                  "  k<<<1, 32>>>(a, f);\n  cudaDeviceSynchronize();\n"
                  "  for (int i = 0; i < 32; i++) if (a[i] != i + 1 || f[i] != 2.0f * i) { printf(\"FAIL\\n\"); return 1; }\n"
                  "  printf(\"PASS\\n\");\n}\n")
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_without_min_cut_every_crossing_value_is_kept(tmp_path):
    # --no-min-cut (MCUDA's way, the ablation baseline): the values used after the barrier are
    # all kept instead of the two loads they are computed from; the program still runs correctly.
    cu = tmp_path / "fig6.cu"
    cu.write_text(FIG6)
    result, run, _ = translate_build_run(cu, tmp_path, TranslateOptions(disabled_passes=("min-cut",)))
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr
    (entry,) = result.explain["kernels"][0]["kept_values"]
    assert sorted(entry["names"]) == ["a", "b", "c", "t"] and entry["recomputed"] == []


@pytest.mark.parametrize("cu", ["rodinia_suite/pathfinder/pathfinder.cu", "rodinia_suite/hotspot/hotspot.cu",
                                "tests/programs/barriers/break_continue_uniform.cu",
                                "tests/programs/barriers/do_while_flag.cu",
                                "tests/programs/barriers/device_func_barrier.cu"],
                         ids=["pathfinder", "hotspot", "break_continue", "do_while", "device_function"])
def test_split_leaves_no_dead_declarations(cu, tmp_path):
    # Values computed from the block's position cross the barriers and are recomputed after
    # them, which left their first declarations dead; a kept value declared without initializer
    # got a binding in a loop that never used it (g++ -Wall: unused variable).
    import subprocess

    from support import CXX, ROOT, moccuda_compile_flags

    common = ROOT / "rodinia_suite" / "common"
    result = translate_file(ROOT / cu, TranslateOptions(include_dirs=(str(common),)))
    cpp = tmp_path / "split.cpp"
    cpp.write_text(result.source)
    checked = subprocess.run([CXX, "-std=c++17", "-fopenmp", "-fsyntax-only", "-Wall", "-Werror", *moccuda_compile_flags(),
                              f"-I{common}", str(cpp)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr[-3000:]


REFERENCE_TO_VARIABLE = """\
__device__ void twice_around(int &a, const int &step) { a += step; __syncthreads(); a *= 2; }
__global__ void k(int *o, int step) { int x = o[threadIdx.x]; twice_around(x, step); o[threadIdx.x] = x; }
"""


def test_reference_parameter_bound_to_a_variable_is_that_variable(tmp_path):
    # Inlined, each use of a reference parameter bound to a variable of its type names the
    # variable: no pointer to it is declared, kept per thread across the barrier and read
    # through (HeCBench segsort's exchanges of k0 ... k31 by reference).
    from test_barrier_effects import analysis_ir

    program, ctx = analysis_ir(REFERENCE_TO_VARIABLE, tmp_path, pipeline="parallel-loops,inline-device")
    (kernel,) = program.kernels
    assert not [n.name for n in kernel.walk() if isinstance(n, ir.VarDecl) and "*" in n.type]
    assert not any(isinstance(n, ir.Unary) and n.op in ("*", "&") for n in kernel.walk())
    changed = {n.target.name for n in kernel.walk() if isinstance(n, ir.Assign) and isinstance(n.target, ir.Name)}
    assert changed == {"x"}
