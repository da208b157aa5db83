"""Pass guard-folding: range guards become thread-loop bounds, exactly where that is faithful."""

from __future__ import annotations

import re

import pytest

from support import MANY_THREADS, PROGRAMS, compile_cpp, run_built, translate_build_run, without_line_markers
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

GUARDS = PROGRAMS / "openmp" / "guards.cu"


def _bounds(program: ir.Program) -> dict[str, list[str]]:
    """Kernel name -> the dimensions of its folded bounds."""
    found = {}
    for k in program.kernels:
        found[k.name] = sorted(b.dim for n in k.walk() if isinstance(n, ir.ThreadLoop) for b in n.bounds)
        versions = sorted(f"full-block {b.dim}" for n in k.walk() if isinstance(n, ir.ThreadLoop) for b in n.fast_bounds)
        found[k.name] += versions
    return found


def test_foldable_guards_fold_and_the_others_stay():
    bounds = _bounds(translate_file(GUARDS).program)
    assert bounds == {
        "lt": ["x"], "le_flipped": ["x"], "early_exit": ["x"], "signed_minus": ["x"],
        "two_d": ["x", "y"], "negative_limit": ["x"], "unsigned_vs_negative": ["x"],
        "limit_from_memory": ["x"],
        # Guards in the middle of the body: a second, guard-free body for blocks all threads pass.
        "two_loads": ["full-block x", "full-block x"],
        "constant_stride": ["full-block x", "full-block x"],
        # A guard in a conditional expression (the CUDA SDK's reduction loads this way).
        "conditional_load": ["full-block x"],
        "conditional_type": ["full-block x"],
        # The thread stores to memory before its guard reads the limit from memory: no version.
        "limit_stored_first": [],
        "first_thread": ["x"],
        # the index through a block-uniform local: its value goes into the bound
        "block_start_local": ["x"],
        # tid - 1 wraps at tid == 0 in unsigned arithmetic: the threads passing are not a prefix.
        "unsigned_minus": [],
        # An equality: the threads from the value through the value (none past the block).
        "one_row": ["x", "y", "y"],
        "one_element": ["x", "x"],
    }


@pytest.mark.parametrize("schedule", ["auto", "blocks", "nested", "flat"])
def test_folded_guards_give_the_host_results(schedule, tmp_path):
    _, run, _ = translate_build_run(GUARDS, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_without_folding_the_results_are_the_same(tmp_path):
    _, run, _ = translate_build_run(GUARDS, tmp_path, TranslateOptions(disabled_passes=("guard-folding",)))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    assert not any(_bounds(translate_file(GUARDS, TranslateOptions(disabled_passes=("guard-folding",)))
                           .program).values())


def test_gcc_vectorizes_the_folded_thread_loops(tmp_path):
    # The point of folding: gcc 12 vectorizes `for (tx ...; tx < tx_end; ...)` but not a loop
    # whose body is `if (i < n)`.  Every SIMD thread loop left without a guard must be reported.
    source = without_line_markers(translate_file(GUARDS, TranslateOptions(schedule="blocks")).source)
    cpp = tmp_path / "guards.cpp"
    cpp.write_text(source)
    built = compile_cpp(cpp, tmp_path / "guards", ["-fopt-info-vec-optimized"], opt="-O3")
    assert built.returncode == 0, built.stderr
    lines = source.split("\n")
    vectorized = {int(m.group(1)) for m in re.finditer(r"guards\.cpp:(\d+):\d+: optimized: loop vectorized",
                                                       built.stderr)}
    kernels_end = next(i for i, line in enumerate(lines) if line.startswith("int main"))
    simd_loops = [_extent(lines, i + 1) for i, line in enumerate(lines[:kernels_end]) if line == "#pragma omp simd"]
    # Loops still holding a guard that could not fold (an `if`, or a `?:` that loads in one arm)
    # have control flow gcc 12 does not vectorize; a loop that does not read the thread index
    # (first_thread's one thread) has nothing to.
    simd_loops = [(first, last) for first, last in simd_loops
                  if not any(line.strip().startswith("if (") or " < n ? " in line or " < (unsigned int)n ? " in line
                             for line in lines[first - 1:last])
                  and any("threadIdx" in line for line in lines[first - 1:last])]
    missed = [first for first, last in simd_loops if not any(first <= n <= last for n in vectorized)]
    assert simd_loops and not missed, (missed, built.stderr[-3000:])


def test_guard_free_loops_load_contiguous_vectors(tmp_path):
    # `blockIdx.x * 192 + tid` is unsigned: it may wrap as far as gcc knows, and then gcc loads
    # it element by element ("evolution of base is not affine").  The test that picks the
    # guard-free loop also checks that the index has room not to wrap (moccuda::index_room),
    # which lets gcc see one contiguous vector per load.  The control build drops that check.
    # Both without wide-subscripts, whose 64-bit copies of these loops load contiguously anyway.
    source = without_line_markers(translate_file(GUARDS, TranslateOptions(
        schedule="blocks", disabled_passes=("wide-subscripts",))).source)
    without_room = source.replace("#include <cuda_runtime.h>\n", (
        "#include <cuda_runtime.h>\n"
        "namespace moccuda { template <class F, class L> bool every_thread_below_no_room(F f, L l, unsigned c)"
        " { return threads_below(f, l, c) == c; } }\n"), 1).replace("every_thread_below(", "every_thread_below_no_room(")
    assert without_room.count("\n") == source.count("\n") + 1

    def scalar_loads_in_guard_free_loops(text: str, name: str) -> list[int]:
        cpp, dump = tmp_path / f"{name}.cpp", tmp_path / f"{name}.vect"
        cpp.write_text(text)
        built = compile_cpp(cpp, tmp_path / name, [f"-fdump-tree-vect-details={dump}"], opt="-O3")
        assert built.returncode == 0, built.stderr
        lines = text.split("\n")
        comments = [i for i, line in enumerate(lines) if line.strip().startswith("// Every thread of this block passes")]
        fast_loops = [_extent(lines, lines.index("#pragma omp simd", i) + 1) for i in comments]
        assert len(fast_loops) == 4, text  # two_loads, constant_stride, conditional_load, conditional_type
        scalar = {int(m.group(1)) for m in re.finditer(rf"{name}\.cpp:(\d+):\d+: missed: +failed: evolution of "
                                                        r"base is not affine", dump.read_text())}
        return sorted(n for n in scalar for first, last in fast_loops if first <= n <= last)

    assert scalar_loads_in_guard_free_loops(without_room, "control"), "the control build shows nothing to avoid"
    assert not scalar_loads_in_guard_free_loops(source, "guards")


def _extent(lines: list[str], for_line: int) -> tuple[int, int]:
    """The 1-based line numbers of the loop starting at 0-based ``for_line``, to its closing brace."""
    depth = 0
    for i in range(for_line, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if depth == 0 and i > for_line:
            return for_line + 1, i + 1
    raise AssertionError("unbalanced braces")


GUARDS_LOWER = PROGRAMS / "openmp" / "guards_lower.cu"


def _lower_bounds(program: ir.Program) -> dict[str, list[str]]:
    """Kernel name -> its folded bounds, as ``x>=`` (a start) and ``x<`` (an end)."""
    return {k.name: sorted(f"{b.dim}{'>=' if b.lower else '<'}" for n in k.walk() if isinstance(n, ir.ThreadLoop)
                           for b in n.bounds) for k in program.kernels}


def test_lower_sides_of_guards_fold_into_the_loop_start():
    assert _lower_bounds(translate_file(GUARDS_LOWER).program) == {
        # IN_RANGE(tx, i + 1, T - i - 2) && IN_RANGE(tx, validXmin, validXmax), the same in y,
        # and the load's IN_RANGE(y, 0, rows - 1) && IN_RANGE(x, 0, cols - 1); the copy back under
        # `if (computed)`, the flag the first guard's threads set, folds that guard's bounds too.
        "halo2d": ["x<"] * 5 + ["x>="] * 5 + ["y<"] * 5 + ["y>="] * 5,
        "interior": ["x<", "x>="],
        "above": ["x>="],
        "through_flag": ["x<", "x>="],
    }


def test_the_flag_reset_before_a_guard_runs_in_a_loop_of_its_own():
    kernel = next(k for k in translate_file(GUARDS_LOWER).program.kernels if k.name == "halo2d")
    loops = [n for n in kernel.walk() if isinstance(n, ir.ThreadLoop)]
    reset = next(i for i, loop in enumerate(loops) if [type(s) for s in loop.body.stmts] == [ir.ExprStmt]
                 and isinstance(loop.body.stmts[0].expr, ir.Assign) and loop.body.stmts[0].expr.target.name == "computed")
    guarded = loops[reset + 1]
    assert not loops[reset].bounds and {b.dim for b in guarded.bounds if b.lower} == {"x", "y"}
    assert not any(isinstance(n, ir.If) for n in guarded.body.walk())


@pytest.mark.parametrize("schedule", ["auto", "blocks", "flat", "nested"])
def test_lower_bounds_give_the_host_results(schedule, tmp_path):
    _, run, _ = translate_build_run(GUARDS_LOWER, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_lower_bounds_without_folding_give_the_same(tmp_path):
    _, run, _ = translate_build_run(GUARDS_LOWER, tmp_path, TranslateOptions(disabled_passes=("guard-folding",)))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_gcc_vectorizes_the_loops_that_start_past_a_lower_bound(tmp_path):
    # A loop started at tx_begin counts in int: with an unsigned counter gcc 12 cannot tell that
    # `int tx = threadIdx.x` does not wrap, finds the body's accesses non-affine and leaves the
    # loop scalar (hotspot's stencil step).
    source = without_line_markers(translate_file(GUARDS_LOWER, TranslateOptions(schedule="blocks")).source)
    cpp = tmp_path / "guards_lower.cpp"
    cpp.write_text(source)
    built = compile_cpp(cpp, tmp_path / "guards_lower", ["-fopt-info-vec-optimized", "-fopt-info-loop-optimized"],
                        opt="-O3")
    assert built.returncode == 0, built.stderr
    lines = source.split("\n")
    # A loop that only copies is a library call (memcpy) instead: as good.
    vectorized = {int(m.group(1)) for m in re.finditer(r"guards_lower\.cpp:(\d+):\d+: optimized: (loop vectorized"
                                                       r"|Loop \d+ distributed: split to 0 loops)", built.stderr)}
    started = [_extent(lines, i) for i, line in enumerate(lines) if line.strip().startswith("for (int tx_int = ")]
    # halo2d's staging load stays scalar for another reason: its global index `y * cols + x` goes
    # through `small * blockIdx.x`, unsigned arithmetic converted to int ("evolution of base is
    # not affine"), as hotspot's does.  (wide-subscripts leaves it: from the thread index on, its
    # arithmetic is int.)
    started = [(first, last) for first, last in started
               if not any("= in[y * cols + x];" in line for line in lines[first - 1:last])]
    missed = [first for first, last in started if not any(first <= n <= last for n in vectorized)]
    # 5 loops, and wide-subscripts' 64-bit copies of 3 of them (interior, above, through_flag)
    assert len(started) == 8 and not missed, (started, missed, built.stderr[-3000:])


GUARDS_STRIDE = PROGRAMS / "openmp" / "guards_stride.cu"


def _strides(program: ir.Program) -> dict[str, list[str]]:
    """Kernel name -> the dimensions of its strided thread loops."""
    return {k.name: sorted(n.stride.dim for n in k.walk() if isinstance(n, ir.ThreadLoop) and n.stride)
            for k in program.kernels}


def test_divisibility_guards_become_strided_loops_where_both_sides_are_nonnegative():
    assert _strides(translate_file(GUARDS_STRIDE).program) == {
        # (tx + 1) % i with i the block-level counter 2, 4, ..., B; tid % (2 * s) with s unsigned.
        "tree_plus_one": ["x"], "reduce0": ["x"],
        # a literal divisor beside a bound; !(index % d); a stride along y.
        "leaders": ["x"], "negated": ["x"], "even_rows": ["y"],
        # threadIdx.x - 8 is negative for the first threads, k a parameter that may be negative.
        "signed_remainder": [],
    }


def test_a_strided_loop_starts_at_the_first_multiple_and_steps_by_the_divisor():
    source = translate_file(GUARDS_STRIDE).source
    assert "moccuda::first_multiple((int)0u + 1, i, 0, blockDim.x)" in source
    assert "moccuda::multiple_step(2 * s)" in source
    assert "tx_int += (int)tx_step" in source and "ty += ty_step" in source
    assert "(tx + 1) % i" not in source and "t % 32" not in source  # the kernels' guards are gone


@pytest.mark.parametrize("schedule", ["auto", "blocks", "nested", "flat"])
def test_strided_loops_give_the_host_results(schedule, tmp_path):
    _, run, _ = translate_build_run(GUARDS_STRIDE, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    again = run_built(GUARDS_STRIDE, tmp_path, MANY_THREADS)
    assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr


def test_strided_guards_without_folding_give_the_same(tmp_path):
    _, run, _ = translate_build_run(GUARDS_STRIDE, tmp_path, TranslateOptions(disabled_passes=("guard-folding",)))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


GUARDS_FLAGS = PROGRAMS / "openmp" / "guards_flags.cu"


def _flag_guards(program: ir.Program) -> dict[str, int]:
    """Kernel name -> how many ``if (flag)`` statements on a kept bool remain in its thread loops."""
    found = {}
    for k in program.kernels:
        kept = {kv.sym for n in k.walk() if isinstance(n, ir.ThreadLoop) for kv in n.kept}
        found[k.name] = sum(1 for n in k.walk() if isinstance(n, ir.If) and isinstance(n.cond, ir.Name) and n.cond.sym in kept)
    return found


def test_a_flag_set_under_folded_bounds_folds_where_it_is_tested_again():
    # pyramid: the copy back (if (computed) prev[tx] = result[tx], same iteration) takes the
    # stencil's bounds; the store after the loop keeps its test (the flag's last iteration is
    # not known there).  The limit read from memory and the flag set twice keep theirs.
    assert _flag_guards(translate_file(GUARDS_FLAGS).program) == {"pyramid": 1, "limit_in_memory": 1, "set_twice": 1}


def test_a_uniform_break_runs_at_block_level_without_a_flag():
    program = translate_file(GUARDS_FLAGS).program
    pyramid = next(k for k in program.kernels if k.name == "pyramid")
    assert not any(isinstance(n, ir.VarDecl) and n.name.startswith("break_") for n in pyramid.walk())
    in_threads = {id(m) for n in pyramid.walk() if isinstance(n, ir.ThreadLoop) for m in n.walk()}
    assert any(isinstance(n, ir.Break) and id(n) not in in_threads for n in pyramid.walk())


@pytest.mark.parametrize("schedule", ["auto", "blocks", "nested"])
def test_folded_flags_give_the_host_results(schedule, tmp_path):
    _, run, _ = translate_build_run(GUARDS_FLAGS, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    again = run_built(GUARDS_FLAGS, tmp_path, MANY_THREADS)
    assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr


def test_flags_without_folding_give_the_same(tmp_path):
    _, run, _ = translate_build_run(GUARDS_FLAGS, tmp_path, TranslateOptions(disabled_passes=("guard-folding",)))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
