"""Pass thread-order: a block's serial thread loops run the unit-stride dimension innermost where
the threads are independent, keep CUDA's order where an atomic or a warp operation is in the
loop, and the reordered programs (flat, blocks and nested schedules) give the host's results."""

from __future__ import annotations

import re

import pytest

from barrier.accesses import Access
from barrier.affine_forms import Affine, Poly
from openmp_emit.thread_order import innermost_dimension
from support import PROGRAMS, translate_build_run
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "openmp" / "thread_order.cu"
CUDA_ORDER = ("z", "y", "x")


def _nestings(options: TranslateOptions) -> dict[str, list[tuple[str, ...]]]:
    program = translate_file(PROGRAM, options).program
    return {k.name: [n.nesting for n in k.walk() if isinstance(n, ir.ThreadLoop)] for k in program.kernels}


def _shuffles(loop: ir.ThreadLoop) -> bool:
    """The loop exchanges values within warps (``warp-collectives`` made each shuffle a call)."""
    return any(isinstance(n, ir.Call) and str(n.func).startswith("moccuda::warp::") for n in loop.walk())


def test_unit_stride_dimension_goes_innermost_unless_threads_synchronize():
    program = translate_file(PROGRAM, TranslateOptions()).program
    loops = {k.name: [n for n in k.walk() if isinstance(n, ir.ThreadLoop)] for k in program.kernels}
    assert [l.nesting for l in loops["eliminate"]] == [("z", "x", "y")]  # a[row * n + col], col from y
    assert [l.nesting for l in loops["fill3d"]] == [("y", "x", "z")]  # out[(x * ny + y) * nz + z]
    assert [l.nesting for l in loops["tile_twice"]] == [("z", "x", "y")] * 2  # both sides of the barrier
    assert [l.nesting for l in loops["count_columns"]] == [CUDA_ORDER]  # atomicAdd
    # A loop that reads shuffled values and writes the next shuffle's operands keeps CUDA's order;
    # one that only reads values an earlier loop exchanged is independent and may change.
    sums = [l for l in loops["warp_sums"] if _shuffles(l)]
    assert sums and all(l.nesting == CUDA_ORDER for l in sums)
    pairs = [l for l in loops["warp_pairs"] if _shuffles(l)]
    assert [l.nesting for l in pairs] == [("z", "x", "y")]


def test_no_thread_order_keeps_cuda_order():
    nestings = _nestings(TranslateOptions(disabled_passes=("thread-order",)))
    assert all(n == CUDA_ORDER for loops in nestings.values() for n in loops), nestings


@pytest.mark.parametrize("schedule", ["auto", "nested"])
def test_reordered_program_gives_the_host_results(schedule, tmp_path):
    result, run, _ = translate_build_run(PROGRAM, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    # The emitted SIMD loop of eliminate runs over threadIdx.y, inside the loop over threadIdx.x.
    eliminate = result.source[result.source.index("void eliminate("):result.source.index("void fill3d(")]
    assert re.search(r"for \(unsigned tx = 0; tx < [^;]+; \+\+tx\)\s*\n(.*\n)*?\s*for \(unsigned ty = ", eliminate), eliminate


def _access(*coefs: int | str) -> Access:
    """A read whose contiguous subscript is ``sum(coef_d * threadIdx.d)`` (a string: a symbol)."""
    poly = [Poly.atom(c) if isinstance(c, str) else Poly.const(c) for c in coefs]
    return Access("read", ("param", 1), (Affine(tuple(poly)),))


def test_innermost_choice_counts_strided_then_unit_accesses():
    fan2 = [_access("n", 1, 0), _access("n", 0, 0), _access(0, 1, 0)]  # a[row*n+col], m[row*n+t], a[t*n+col]
    assert innermost_dimension(fan2, (16, 16, 1)) == "y"
    assert innermost_dimension(fan2, (16, None, 1)) == "x"  # y's extent unknown: maybe 1
    assert innermost_dimension(fan2, (16, 1, 1)) == "x"
    assert innermost_dimension([_access(1, 1, 0)], (16, 16, 1)) == "x"  # a tie keeps x
    assert innermost_dimension([_access(2, 0, 1)], (16, 4, 8)) == "z"
    assert innermost_dimension([], (16, 16, 16)) == "x"
