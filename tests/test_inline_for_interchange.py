"""Pass inline-for-interchange: a call to a ``__device__`` function whose feature-major loop
``loop-interchange`` then moves (streamcluster's ``d_dist``) is inlined, and the loop moves out of
the thread loop; calls under ``&&``, to a function that returns early, or whose loop gains
nothing, stay calls.  The programs give the host's results bit for bit either way."""

from __future__ import annotations

import pytest

from support import MANY_THREADS, PROGRAMS, build_run, run_built
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "openmp" / "inline_for_interchange.cu"
INLINED = {"compute_cost": "dist", "statement_call": "column_sums"}
CALLS = {"conditional_call": "dist", "early_return": "capped_dist", "point_major": "row_sum"}


@pytest.fixture(scope="module")
def translations():
    return {name: translate_file(PROGRAM, TranslateOptions(disabled_passes=disabled))
            for name, disabled in (("on", ()), ("off", ("inline-for-interchange",)))}


def _calls(kernel: ir.Kernel) -> set[str]:
    return {ir.callee_name(n.func) for n in kernel.walk() if isinstance(n, ir.Call)}


def _block_level_loops(kernel: ir.Kernel) -> list[ir.For]:
    return [s for s in ir.grid_loop(kernel).body.stmts if isinstance(s, ir.For)]


def test_inlined_where_the_loop_then_moves(translations):
    kernels = {k.name: k for k in translations["on"].program.kernels}
    for name, fn in INLINED.items():
        assert fn not in _calls(kernels[name]), name
        (loop,) = _block_level_loops(kernels[name])
        assert any(isinstance(n, ir.ThreadLoop) for n in loop.walk()), name
    for name, fn in CALLS.items():
        assert fn in _calls(kernels[name]) and not _block_level_loops(kernels[name]), name
    off = {k.name: k for k in translations["off"].program.kernels}
    assert all(fn in _calls(off[name]) for name, fn in INLINED.items())
    reported = {k["name"]: k["inlined"] for k in translations["on"].explain["kernels"]}
    assert reported["compute_cost"] == [{"function": "dist", "line": 28, "loop_line": 16}], reported
    assert not any(reported[name] for name in CALLS), reported
    from transpiler.cli import _explain_text

    text = _explain_text(translations["on"].explain)
    assert "call of dist at line 28 inlined: the loop at line 16 moves outside the thread loop" in text, text


def test_parameters_read_the_arguments(translations):
    # p1 reads tid itself (the stride the interchange measures), p2 the long x converted as the
    # call converted it; the call's value is declared where it is set, not kept per thread.
    source = translations["on"].source
    cost = source[source.index("void compute_cost__team("):source.index("void compute_cost(")]
    assert "coord[i * num + tid] - coord[i * num + (int)x]" in cost, cost
    assert "float dist_result = sum;" in cost and "dist_result_per_thread" not in cost, cost
    # the guard tid < num (tid through the block-uniform local bid) became the thread loops' bound
    assert "if (tid < num)" not in cost and "threads_below" in cost, cost


@pytest.mark.parametrize("which", ["on", "off"])
def test_programs_give_the_host_results_bit_for_bit(which, translations, tmp_path):
    _, run, _ = build_run(translations[which], PROGRAM, tmp_path, threads=1)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    run = run_built(PROGRAM, tmp_path, MANY_THREADS)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
