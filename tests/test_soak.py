"""The differential soak in CI (``benchmarks/soak``; ``python -m benchmarks.soak --kernels 10000``
is the long run): a few hundred random kernels, race-free under CUDA's rules by construction
(barriers in loops, ifs and whiles under block-uniform conditions, early returns, values and
local arrays live across barriers, one shared array reused phase after phase, shared atomics, warp
collectives and ``__syncwarp`` exchanges under warp-uniform branches, ``__device__`` helpers that
read ``threadIdx`` or synchronize), go through the default pipeline, ``--lowering=fallback`` and
every ``--schedule``; each build runs with 1, 3 and 16 OpenMP threads and must print, kernel by
kernel, what the fallback prints with one thread.  A hundred kernels share one translation unit.
"""

from __future__ import annotations

import pytest

from benchmarks.soak import differential, generator

UNITS = 2
KERNELS_PER_UNIT = 100
SEED = 20261125


@pytest.mark.parametrize("unit", range(UNITS))
def test_random_kernels_agree_in_every_configuration(unit, tmp_path):
    runner = differential.Runner(opt="-O1", cache=None, failures=tmp_path / "failures", scratch=tmp_path / "scratch")
    kernels = generator.kernels(SEED + unit, KERNELS_PER_UNIT, prefix=f"ci{unit}k")
    result = runner.unit(kernels, f"ci{unit}")
    report = []
    for f in result.failures[:5]:
        saved = (differential.Path(f.saved) / "kernel.cu").read_text() if f.saved else ""
        report.append(f"{f.kind} of {f.kernel} [{f.config}, {f.threads} threads]: {f.detail}\n{saved}")
    assert not result.failures, f"{len(result.failures)} failures; the first:\n" + "\n".join(report)
    assert result.kernels == KERNELS_PER_UNIT
    assert result.split == KERNELS_PER_UNIT  # the default pipeline splits them all: the comparison is not vacuous
