"""Pass constant-block: a kernel every launch of which gives one constant block size reads
``blockDim`` as those constants, and computes exactly what it computes with the launch's."""

from __future__ import annotations

import pytest

from support import PROGRAMS, translate_build_run
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

CONSTANT_BLOCK = PROGRAMS / "openmp" / "constant_block.cu"


def _extents(program: ir.Program) -> dict[str, tuple[int, int, int] | None]:
    return {k.name: ir.grid_loop(k).block_extent for k in program.kernels}


def test_kernels_launched_with_one_constant_block_read_it_as_constants():
    result = translate_file(CONSTANT_BLOCK)
    assert _extents(result.program) == {"reduce_sdk": (256, 1, 1), "reduce_float": (128, 1, 1),
                                        "transpose_tile": (16, 8, 1), "scale": None}
    assert "const dim3 blockDim = dim3(256u, 1u, 1u);" in result.source
    assert "const dim3 blockDim = dim3(16u, 8u, 1u);" in result.source
    assert result.source.count("const dim3 blockDim = launch.block;") == 1  # scale's


@pytest.mark.parametrize("disabled", [(), ("constant-block",)], ids=["constant", "launch"])
def test_results_are_bit_identical_with_and_without_the_constants(disabled, tmp_path):
    # Integer sums exactly, float sums in the tree's own order (bit-identical), a 2-D block, and
    # a kernel launched with two block sizes; one and three OpenMP threads.
    options = TranslateOptions(disabled_passes=disabled)
    for threads in (1, 3):
        _, run, _ = translate_build_run(CONSTANT_BLOCK, tmp_path, options, threads=threads)
        assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    if disabled:
        assert not any(_extents(translate_file(CONSTANT_BLOCK, options).program).values())
