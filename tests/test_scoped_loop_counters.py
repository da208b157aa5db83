"""Pass scoped-loop-counters: a local used only as the counter of loops that set it first gets one
variable per loop, so a counter the same in every thread stays at block level; the results stay
bit-identical."""

from __future__ import annotations

import pytest

from support import MANY_THREADS, PROGRAMS, run_built, translate_build_run
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "openmp" / "scoped_loop_counters.cu"
OFF = TranslateOptions(disabled_passes=("scoped-loop-counters",))


def _kept(program: ir.Program) -> dict[str, list[str]]:
    """Kernel name -> the names of the values it keeps per thread across barriers."""
    return {k.name: sorted({kv.name for n in k.walk() if isinstance(n, ir.ThreadLoop) for kv in n.kept})
            for k in program.kernels}


def _block_level_loops(program: ir.Program, kernel: str) -> list[str]:
    """The counters declared by the block-level ``for`` loops of ``kernel`` (outside thread loops)."""
    k = next(k for k in program.kernels if k.name == kernel)
    found: list[str] = []

    def visit(node: ir.Node) -> None:
        if isinstance(node, ir.ThreadLoop):
            return
        if isinstance(node, ir.For) and isinstance(node.init, ir.VarDecl):
            found.append(node.init.name)
        for child in node.children():
            visit(child)

    visit(k)
    return found


def test_each_loop_declares_its_own_counter():
    program = translate_file(PROGRAM).program
    # The full blocks' tree runs at block level with its own counter; only the last block's
    # tree, whose bound df each thread computes, keeps its counter per thread.
    assert _block_level_loops(program, "reduce_like") == ["i"]
    assert _kept(program)["reduce_like"] == ["df", "i_3"]


def test_read_after_its_loop_nested_or_by_address_the_counter_stays_one_variable():
    kept = _kept(translate_file(PROGRAM).program)
    assert kept["read_after_loop"] == ["acc", "i"]
    assert kept["address_taken"] == ["acc", "i", "p"]
    program = translate_file(PROGRAM).program
    nested = next(k for k in program.kernels if k.name == "nested_same")
    assert not any(isinstance(n, ir.For) and isinstance(n.init, ir.VarDecl) for n in nested.walk())


def test_without_the_pass_the_counter_is_kept_per_thread():
    program = translate_file(PROGRAM, OFF).program
    assert _block_level_loops(program, "reduce_like") == []
    assert "i" in _kept(program)["reduce_like"]


@pytest.mark.parametrize("options", [TranslateOptions(), TranslateOptions(schedule="nested"), OFF],
                         ids=["default", "nested", "without"])
def test_results_are_bit_identical_to_the_host_reference(options, tmp_path):
    _, run, _ = translate_build_run(PROGRAM, tmp_path, options)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    again = run_built(PROGRAM, tmp_path, MANY_THREADS)
    assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr
