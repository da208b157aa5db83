"""Pass row-licm: what a thread loop computes once per row of threads, which guards select whole
rows, that the programs still give the host's results, and that gcc vectorizes the rows' loops."""

from __future__ import annotations

import re

from support import PROGRAMS, assert_passes_per_schedule, compile_cpp, without_line_markers
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

ROWS = PROGRAMS / "openmp" / "row_licm.cu"


def _row_hoisted(result) -> dict[str, list[str]]:
    return {k["name"]: [h["text"] for h in k["hoisted"] if h["to"] == "row"] for k in result.explain["kernels"]}


def test_row_invariant_declarations_and_guards_move_to_the_row():
    hoisted = _row_hoisted(translate_file(ROWS, TranslateOptions(schedule="blocks")))
    assert hoisted["tree_rows"] == ["int ty = threadIdx.y", "int power_two = __powf(2, i)",
                                    "if (ty % power_two == 0)"]
    assert hoisted["both_branches"] == ["int row = threadIdx.y", "int square = row * row + shift",
                                        "if (square % 3 == 1)"]
    # `at` reads threadIdx.x: it stays with each thread, before the guard's branch
    assert hoisted["store_before"] == ["int part = (int)threadIdx.y / divisor", "if (part % 2 == 0)"]
    assert hoisted["planes"] == ["int plane_row = threadIdx.z * 8 + threadIdx.y",
                                 "float scale = sqrtf((float)(plane_row + 1))", "if (plane_row % 3 != 2)"]
    # thread-order runs y innermost (unit stride along it): the row is a column, x its index
    assert hoisted["columns"] == ["int column = threadIdx.x", "int picked = column * 7 % modulus", "if (picked < 3)"]
    # a guard read from memory, one on a variable the loop assigns, and rows that bounds folded
    # along x may leave empty: per thread
    assert hoisted["per_thread"] == [] and hoisted["bounded_rows"] == []


def test_only_the_blocks_schedule_splits_rows():
    # The nested schedule collapses the thread loops for OpenMP: no row to hold a prelude.
    nested = translate_file(ROWS, TranslateOptions(schedule="nested"))
    assert not any(_row_hoisted(nested).values())
    off = translate_file(ROWS, TranslateOptions(schedule="blocks", disabled_passes=("row-licm",)))
    assert not any(_row_hoisted(off).values())


def test_programs_give_the_host_results(tmp_path):
    assert_passes_per_schedule(ROWS, tmp_path, ("auto", "blocks", "nested"))


def test_a_row_runs_its_threads_under_the_guard_and_the_else_branch():
    source = without_line_markers(translate_file(ROWS, TranslateOptions(schedule="blocks")).source)
    both = source[source.index("void both_branches("):source.index("void store_before(")]
    # the guard once per row, around a loop over the row's threads for each branch
    assert re.search(r"int square = row \* row \+ shift;\s*if \(square % 3 == 1\) \{\s*#pragma omp simd\s*for \(",
                     both), both
    assert re.search(r"\} else \{\s*#pragma omp simd\s*for \(", both), both
    store = source[source.index("void store_before("):source.index("void planes(")]
    # rows failing the guard still run the store before it
    assert store.count("first[at] = at;") == 2 and store.count("second[at] = 7 * at;") == 1, store


def test_gcc_vectorizes_the_guarded_rows(tmp_path):
    # Per thread, the tree's power (a call with a branch) and remainder keep gcc from vectorizing
    # the row; once per row, the row's loop is a plain vector add.
    def vectorized(disabled: tuple[str, ...]) -> bool:
        source = without_line_markers(
            translate_file(ROWS, TranslateOptions(schedule="blocks", disabled_passes=disabled)).source)
        cpp = tmp_path / "rows.cpp"
        cpp.write_text(source)
        built = compile_cpp(cpp, tmp_path / "rows", ["-fopt-info-vec-optimized"], opt="-O3")
        assert built.returncode == 0, built.stderr
        lines = source.split("\n")
        start = next(i for i, line in enumerate(lines) if line.startswith("void tree_rows("))
        end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("void "))
        add = [i + 1 for i in range(start, end) if "m[ty][tx] = m[ty][tx] + m[ty + power_two / 2][tx]" in lines[i]]
        loops = {int(m.group(1)) for m in re.finditer(r"rows\.cpp:(\d+):\d+: optimized: loop vectorized", built.stderr)}
        return any(a - 6 <= n <= a for a in add for n in loops)

    assert vectorized(())
    assert not vectorized(("row-licm",))
