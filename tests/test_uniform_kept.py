"""Pass uniform-kept: a kept value every thread assigns the same block-invariant value is one
variable of the block, assigned once before its thread loop; the others stay per thread."""

from __future__ import annotations

import pytest

from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, run_built, translate_build_run
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

UNIFORM_KEPT = PROGRAMS / "openmp" / "uniform_kept.cu"


def _kept(options: TranslateOptions | None = None) -> dict[str, list[str]]:
    """Kernel name -> the variables its thread loops keep per thread."""
    program = translate_file(UNIFORM_KEPT, options).program
    return {k.name: sorted({kv.name for n in k.walk() if isinstance(n, ir.ThreadLoop) for kv in n.kept})
            for k in program.kernels}


def test_uniform_values_are_the_blocks_and_the_others_stay_per_thread():
    assert _kept() == {
        "centre_sums": [],  # base = c * nf, read behind the guard p < n
        "nearest": ["best", "best_c", "d"],  # base, behind the folded bound of every loop
        "tree_sum": [],  # i = 1 and i++ by every thread alike
        "varying": [],  # recomputed: threadIdx.x * 3 + blockIdx.x
        "read_before_assign": ["total", "v"],  # read before the assignment in the same loop
        "conditional": ["v"],  # assigned under threadIdx.x % 2 == 0
        "compound": ["v"],  # v += 2
    }


@covers("Kernels and memory", "a value every thread assigns the same block-invariant value, kept across a barrier: one variable of the block (uniform-kept)")
@pytest.mark.parametrize("schedule", ["auto", "blocks", "nested"])
def test_uniform_kept_gives_the_host_results(schedule, tmp_path):
    _, run, _ = translate_build_run(UNIFORM_KEPT, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    again = run_built(UNIFORM_KEPT, tmp_path, MANY_THREADS)
    assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr


def test_without_the_pass_they_stay_per_thread_with_the_same_results(tmp_path):
    options = TranslateOptions(disabled_passes=("uniform-kept",))
    kept = _kept(options)
    assert "base" in kept["centre_sums"] and "base" in kept["nearest"] and "i" in kept["tree_sum"]
    _, run, _ = translate_build_run(UNIFORM_KEPT, tmp_path, options)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
