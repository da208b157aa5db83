"""Pass reassociate-reductions (opt-in, --reassociate-reductions): a block's halving tree over a
``__shared__`` array becomes one SIMD sum; without the flag nothing changes.

The program (tests/programs/openmp/reassociate_reductions.cu) checks its partial sums itself:
``exact`` bit for bit against the tree computed on the host in CUDA's order, ``tolerant``
against a double reference within a relative tolerance (integers and trees the pass must leave
alone exactly in both modes)."""

from __future__ import annotations

import re

import pytest

from support import PROGRAMS, build_run, run_cli
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.pipeline import build_pipeline, default_pipeline
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "openmp" / "reassociate_reductions.cu"
FLAG = TranslateOptions(reassociate_reductions=True)


def _summed_kernels(program: ir.Program, kind=(ir.SimdReduction, ir.ThreadLoop)) -> set[str]:
    """Kernels with a sum in any order: a loop of its own, or added to the loop that fills the array."""
    return {k.name for k in program.kernels
            if any(isinstance(n, kind) and (not isinstance(n, ir.ThreadLoop) or n.sums) for n in k.body.walk())}


def test_without_the_flag_only_integer_trees_are_summed():
    # Integer sums are exact in any order; floating-point trees keep CUDA's order.
    assert "reassociate-reductions" in default_pipeline().split(",")
    result = translate_file(PROGRAM)
    assert _summed_kernels(result.program) == {"sum_int"}
    without = translate_file(PROGRAM, TranslateOptions(disabled_passes=("reassociate-reductions",)))
    assert not _summed_kernels(without.program) and "reduction(+:" not in without.source


def test_the_flag_sums_the_trees_it_recognises_and_leaves_the_others():
    result = translate_file(PROGRAM, FLAG)
    # sum_and_second reads sdata[1] after its tree: the tree's partial sums are its result.
    assert _summed_kernels(result.program) == {"sum_sdk", "sum_double_constant", "sum_int", "sum_after_copy"}
    # Where the loop that fills the array ends with its store, that loop sums as it stores;
    # sum_after_copy's does more after it, so its sum is a loop of its own.
    assert _summed_kernels(result.program, ir.ThreadLoop) == {"sum_sdk", "sum_double_constant", "sum_int"}
    assert _summed_kernels(result.program, ir.SimdReduction) == {"sum_after_copy"}
    assert "unsigned int block_sum = 0;" in result.source and "block_sum += (unsigned int)value;" in result.source
    # Where the sum replaces the tree, the fill's stores are dead (only a[0] is read after it,
    # and it receives the sum): the loop stores only for blocks whose tree still runs.
    assert "const bool block_summed = blockDim.y == 1u && blockDim.z == 1u" in result.source
    assert re.search(r"if \(!block_summed\) \{\n *sdata\[tid\] = value;", result.source)
    assert "if (block_summed) {" in result.source
    assert "blockDim.x == 128u" in result.source  # a constant first stride: its entries are the threads'


def test_without_the_flag_every_sum_is_the_trees_bit_for_bit(tmp_path):
    _, run, _ = build_run(translate_file(PROGRAM), PROGRAM, tmp_path, args=("exact",))
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


@pytest.mark.parametrize("schedule, threads", [("auto", 1), ("auto", 3), ("nested", 3)])
def test_with_the_flag_sums_are_within_tolerance_and_the_rest_exact(schedule, threads, tmp_path):
    # Under the nested schedule a block's threads run on several OpenMP threads: the sum is a
    # reduction of the inner work-sharing loop.
    options = TranslateOptions(reassociate_reductions=True, schedule=schedule)
    _, run, _ = build_run(translate_file(PROGRAM, options), PROGRAM, tmp_path, args=("tolerant",), threads=threads)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_with_the_flag_float_sums_round_differently_from_the_tree(tmp_path):
    # What the flag changes, seen: the exact check against CUDA's order fails for the float sums.
    _, run, _ = build_run(translate_file(PROGRAM, FLAG), PROGRAM, tmp_path, args=("exact",))
    assert run.returncode == 1 and "FAIL sum_sdk (tree order)" in run.stdout, run.stdout + run.stderr
    assert "sum_int" not in run.stdout and "sum_and_second" not in run.stdout


def test_the_flag_adds_the_pass_to_an_explicit_pipeline_at_its_place():
    names = [p.name for p in build_pipeline("parallel-loops,barrier-interchange,barrier-split,guard-folding", (),
                                            ("reassociate-reductions",))]
    assert names == ["parallel-loops", "barrier-interchange", "barrier-split", "reassociate-reductions", "guard-folding"]
    assert "reassociate-reductions" not in [p.name for p in build_pipeline(None, ("reassociate-reductions",),
                                                                            ("reassociate-reductions",))]
    assert "reassociate-reductions" in [p.name for p in build_pipeline(None)]


def test_the_command_line_flag(tmp_path):
    out = tmp_path / "p.cpp"
    # Counted without wide-subscripts, whose 64-bit copies of loops would count twice.
    done = run_cli("--emit=openmp", "--reassociate-reductions", "--no-wide-subscripts", PROGRAM, "-o", out)
    assert done.returncode == 0, done.stderr
    flagged = out.read_text().count("reduction(+:")
    assert "#pragma omp simd reduction(+:block_sum)" in out.read_text()
    done = run_cli("--emit=openmp", "--no-wide-subscripts", PROGRAM, "-o", out)
    # without it, only the integer tree (sum_int) is summed
    assert done.returncode == 0 and 1 == out.read_text().count("reduction(+:") < flagged
    assert "--reassociate-reductions" in run_cli("--help").stdout
