"""Pass single-assignment: locals assigned in straight-line code get one declaration per value, so
barrier-split recomputes them instead of keeping them per thread; the results stay bit-identical."""

from __future__ import annotations

import pytest

from support import PROGRAMS, translate_build_run
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "openmp" / "single_assignment.cu"
OFF = TranslateOptions(disabled_passes=("single-assignment",))


def _kept(program: ir.Program) -> dict[str, list[str]]:
    """Kernel name -> the names of the values it keeps per thread across barriers."""
    return {k.name: sorted({kv.name for n in k.walk() if isinstance(n, ir.ThreadLoop) for kv in n.kept})
            for k in program.kernels}


def test_values_assigned_at_the_top_level_are_recomputed_not_kept():
    assert _kept(translate_file(PROGRAM).program) == {
        # coef (declared, then assigned once) and W, E (clamped in place) are recomputed.
        "pyramid": ["computed"],
        "compound": [],
        # Assigned under a condition, through a pointer, through a reference parameter: kept.
        "in_branch": ["v"],
        "through_memory": ["v", "w"],
    }


def test_without_the_pass_they_are_kept():
    kept = _kept(translate_file(PROGRAM, OFF).program)
    assert kept["pyramid"] == ["E", "W", "coef", "computed"]
    assert kept["compound"] == ["k"]


@pytest.mark.parametrize("options", [TranslateOptions(), TranslateOptions(schedule="nested"), OFF],
                         ids=["default", "nested", "without"])
def test_results_are_bit_identical_to_the_host_reference(options, tmp_path):
    _, run, _ = translate_build_run(PROGRAM, tmp_path, options)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_renamed_values_print_as_declarations():
    source = translate_file(PROGRAM).source
    assert "int W_v1 = tx - 1;" in source and "int W = W_v1 < validMin ? validMin : W_v1;" in source
    assert "float coef = 1 / r;" in source
    assert "int k = k_v3 % 64;" in source
