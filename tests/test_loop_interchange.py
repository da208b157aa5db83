"""Pass loop-interchange: a per-thread loop over a column with running indices moves out of the
thread loop (threads innermost, indices in closed form), only where the threads are independent,
the trip count is block-uniform, nothing jumps out and a running index is a subscript; the
programs give the host's results either way."""

from __future__ import annotations

import pytest

from support import PROGRAMS, build_run
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "openmp" / "loop_interchange.cu"
MOVED = {"column_stencil", "column_prefix", "column_pairs", "tile_product", "column_ends"}
KEPT = {"column_histogram", "ragged_columns", "first_negative", "index_sums", "bound_changed"}


def _block_level_loops(kernel: ir.Kernel) -> list[ir.For]:
    """``for`` loops run once per block (outside every thread loop)."""
    grid = ir.grid_loop(kernel)
    return [s for s in grid.body.stmts if isinstance(s, ir.For)]


@pytest.fixture(scope="module")
def translations():
    return {name: translate_file(PROGRAM, TranslateOptions(disabled_passes=disabled))
            for name, disabled in (("on", ()), ("off", ("loop-interchange",)))}


def test_moves_only_independent_uniform_profitable_loops(translations):
    kernels = {k.name: k for k in translations["on"].program.kernels}
    assert MOVED | KEPT == set(kernels)
    for name in MOVED:
        (loop,) = _block_level_loops(kernels[name])
        assert any(isinstance(n, ir.ThreadLoop) for n in loop.walk()), name
    for name in KEPT:
        assert not _block_level_loops(kernels[name]), name
    off = translations["off"].program.kernels
    assert not any(_block_level_loops(k) for k in off)
    # --explain says which loops moved and which indices it rewrote.
    reported = {k["name"]: k["interchanged"] for k in translations["on"].explain["kernels"]}
    assert {name for name, moved in reported.items() if moved} == MOVED
    assert [m["closed_form"] for m in reported["column_stencil"]] == [["c", "w"]], reported["column_stencil"]
    from transpiler.cli import _explain_text

    text = _explain_text(translations["on"].explain)
    assert "moved outside the thread loop (running indices in closed form: c, w)" in text, text
    assert "values kept across the loop moved at line" in text, text


def test_running_indices_in_closed_form(translations):
    source = translations["on"].source
    stencil = source[source.index("void column_stencil("):source.index("void column_prefix(")]
    assert "c += plane" not in stencil and "out[c + z * plane]" in stencil, stencil
    assert "in[w + z * plane]" in stencil and "below_per_thread" in stencil, stencil
    prefix = source[source.index("void column_prefix("):source.index("void column_histogram(")]
    assert "out[c - (z - 3) * nx]" in prefix, prefix
    # read after the loop at their final values: the counter's last value less its start
    ends = source[source.index("void column_ends("):]
    ends = ends[:ends.index("\n}\n")]
    assert "c += nx" not in ends and "(first + 1 < last ? last : first + 1) - (first + 1)" in ends, ends


@pytest.mark.parametrize("which", ["on", "off"])
def test_programs_give_the_host_results(which, translations, tmp_path):
    _, run, _ = build_run(translations[which], PROGRAM, tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


GUARDED = PROGRAMS / "openmp" / "loop_interchange_guarded.cu"


@pytest.fixture(scope="module")
def guarded_translations():
    return {name: translate_file(GUARDED, TranslateOptions(disabled_passes=disabled))
            for name, disabled in (("on", ()), ("off", ("loop-interchange",)))}


def _thread_loops_in(loop: ir.For) -> int:
    return sum(isinstance(n, ir.ThreadLoop) for n in loop.walk())


def test_loops_behind_the_bounds_guard_move(guarded_translations):
    """kmeans' shape: the centre loop and the feature loop nested in it move out of the thread
    loop though they sit inside ``if (p < n)`` and have no running index; a guard whose limit
    the body assigns, and a trip count that depends on the thread, keep theirs."""
    kernels = {k.name: k for k in guarded_translations["on"].program.kernels}
    for name in ("nearest_centre", "nearest_centre_c89"):
        (centres,) = _block_level_loops(kernels[name])
        features = [n for n in ir.as_block(centres.body).stmts if isinstance(n, ir.For)]
        # the texture's fetch reads a span where all its texels are in range (texture-span):
        # the thread loop has two versions
        versions = 2 if name == "nearest_centre_c89" else 1
        assert len(features) == 1 and _thread_loops_in(features[0]) == versions, (name, centres)
    for name in ("moving_limit", "ragged_rows", "divided_rows"):
        assert not _block_level_loops(kernels[name]), name
    assert not any(_block_level_loops(k) for k in guarded_translations["off"].program.kernels)
    reported = {k["name"]: k["interchanged"] for k in guarded_translations["on"].explain["kernels"]}
    assert [m["line"] for m in reported["nearest_centre"]] == [19, 21], reported
    assert not any(reported[name] for name in ("moving_limit", "ragged_rows", "divided_rows")), reported
    from transpiler.cli import _explain_text

    text = _explain_text(guarded_translations["on"].explain)
    assert "loop at line 21 moved outside the thread loop\n" in text + "\n", text
    # the guard became the thread loops' bound (guard-folding): each piece is a plain loop
    source = guarded_translations["on"].source
    start = source.index("void nearest_centre__team(")
    team = source[start:source.index("void nearest_centre(", start)]
    assert "if (p < n)" not in team and team.count("threads_below") == 5, team


@pytest.mark.parametrize("which", ["on", "off"])
def test_guarded_programs_give_the_host_results_bit_for_bit(which, guarded_translations, tmp_path):
    from support import MANY_THREADS, run_built

    _, run, _ = build_run(guarded_translations[which], GUARDED, tmp_path, threads=1)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    run = run_built(GUARDED, tmp_path, MANY_THREADS)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


GRID_STRIDE = PROGRAMS / "openmp" / "loop_interchange_grid_stride.cu"


@pytest.fixture(scope="module")
def grid_stride_translations():
    return {name: translate_file(GRID_STRIDE, TranslateOptions(disabled_passes=disabled))
            for name, disabled in (("on", ()), ("off", ("loop-interchange",)))}


def test_grid_stride_loops_move(grid_stride_translations):
    """A grid-stride loop (graphExecution's reduce: each thread strides through memory by the whole
    grid) runs with the block's threads innermost: its counter starts at the block's first
    thread's index and each thread takes its element behind the loop's own bound.  Loops that
    leave early, or whose start is not the thread's index plus a uniform value, keep theirs."""
    kernels = {k.name: k for k in grid_stride_translations["on"].program.kernels}
    for name in ("sum_size_t", "scale_int", "copy_through_locals", "rows_2d"):
        (loop,) = _block_level_loops(kernels[name])
        assert _thread_loops_in(loop) == 1, (name, loop)
        assert isinstance(loop.step, ir.Assign) and loop.step.op == "+=", loop
    # graphExecution's reduce: warp shuffles beyond the barrier after the loop (and the block's
    # cooperative-groups handle before it) leave it free to move; an atomic between the same
    # barriers does not
    moved = [s for s in _block_level_loops(kernels["block_sums"]) if s.loc.line == 77]
    assert len(moved) == 1 and _thread_loops_in(moved[0]) == 1, _block_level_loops(kernels["block_sums"])
    for name in ("first_above", "pairs", "count_above"):
        assert not _block_level_loops(kernels[name]), name
    grid_stride_lines = {s.loc.line for k in kernels.values() for s in _block_level_loops(k) if s.loc.line != 83}
    assert len(grid_stride_lines) == 5, grid_stride_lines  # 83: block_sums' shuffle tree
    assert not any(s.loc.line in grid_stride_lines
                   for k in grid_stride_translations["off"].program.kernels for s in _block_level_loops(k))
    source = grid_stride_translations["on"].source
    start = source.index("void sum_size_t__team(")
    team = source[start:source.index("void scale_int__team(")]
    # the block's loop from thread 0's index; the threads' guard became their loop's bound
    assert "for (size_t i_block = (size_t)blockIdx.x * blockDim.x + 0; i_block < n; i_block += gridDim.x * blockDim.x)" \
        in team, team
    assert "size_t i = i_block + threadIdx.x;" in team and "if (i < n)" not in team, team


@pytest.mark.parametrize("which", ["on", "off"])
def test_grid_stride_programs_give_the_host_results_bit_for_bit(which, grid_stride_translations, tmp_path):
    from support import MANY_THREADS, run_built

    _, run, _ = build_run(grid_stride_translations[which], GRID_STRIDE, tmp_path, threads=1)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    run = run_built(GRID_STRIDE, tmp_path, MANY_THREADS)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
