"""Pass schedule: every OpenMP schedule gives the same results on the whole barrier corpus."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from support import PROGRAMS, build_run, run_cli, translate_build_run
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

#: The barrier corpus and the OpenMP programs: self-checking, each prints PASS.
CORPUS = sorted(p for d in ("barriers", "topbarrier", "openmp") for p in (PROGRAMS / d).glob("*.cu"))


@functools.lru_cache(maxsize=None)
def _default_translation(cu: Path):
    """The default schedule's translation of ``cu``, made once (per worker) for its tests."""
    return translate_file(cu)


@pytest.mark.parametrize("schedule", ["blocks", "flat", "nested"])
@pytest.mark.parametrize("cu", CORPUS, ids=[f"{c.parent.name}/{c.stem}" for c in CORPUS])
def test_every_schedule_passes_the_corpus(cu, schedule, tmp_path):
    result = translate_file(cu, TranslateOptions(schedule=schedule))
    if result.source == _default_translation(cu).source:
        return  # the same program as the default schedule's, which the corpus test runs
    _, run, _ = build_run(result, cu, tmp_path, threads=4)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_auto_picks_flat_only_without_shared_memory_or_barriers():
    explain = translate_file(PROGRAMS / "openmp" / "simd_mixed.cu").explain
    assert {k["name"]: k["schedule"] for k in explain["kernels"]} == {"mixed": "blocks", "running_sum": "blocks"}
    explain = _default_translation(PROGRAMS / "openmp" / "guards.cu").explain
    chosen = {k["name"]: k["schedule"].split(" (")[0] for k in explain["kernels"]}
    assert chosen.pop("two_d") == "blocks"  # 16x8 blocks: see the next test
    # Its `?:` guard gets a whole-block version, chosen per block: code around the thread loop.
    assert chosen.pop("conditional_type") == "blocks"
    assert chosen.pop("one_row") == "blocks"  # 16x4 blocks: rows shorter than flat's chunks
    assert set(chosen.values()) == {"flat"}


ROWS = PROGRAMS / "openmp" / "schedule_rows.cu"


def _grid_loop_source(source: str, name: str) -> str:
    """The function holding kernel ``name``'s grid loop: its work-sharing form where the kernel
    joins launch regions, else the kernel's own function."""
    head = f"void {name}__team(moccuda::LaunchConfig"
    start = source.index(head if head in source else f"void {name}(moccuda::LaunchConfig")
    return source[start:source.index("\n}\n", start)]


def test_auto_takes_flat_only_where_its_chunks_are_full():
    # Flat's chunks never span two rows of the innermost thread dimension: with 16- or 32-thread
    # rows it would step its collapsed loop once per short row (Rodinia's gaussian and backprop
    # ran 1.3-1.8x slower than under blocks).  Rows of a constant 64 or more, or 1-D kernels of
    # unknown block size, stay flat.
    result = _default_translation(ROWS)
    chosen = {k["name"]: k["schedule"] for k in result.explain["kernels"]}
    assert {name: why.split(" (")[0] for name, why in chosen.items()} == {
        "update_rows": "blocks", "scale": "flat", "offset": "blocks", "wide_rows": "flat", "transpose_add": "blocks"}
    assert "rows of 16 along y" in chosen["update_rows"]  # thread-order made y, the unit stride, innermost
    assert "rows of 32 along x" in chosen["offset"]
    assert "indexed along y too" in chosen["transpose_add"]
    for name, schedule in chosen.items():
        collapse = "collapse(6)" if schedule == "flat" else "collapse(3)"
        assert collapse in _grid_loop_source(result.source, name), name


def test_auto_schedule_choices_give_the_host_results(tmp_path):
    # test_every_schedule_passes_the_corpus runs the forced schedules of the same program.
    _, run, _ = build_run(_default_translation(ROWS), ROWS, tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_forced_flat_keeps_blocks_where_it_cannot_apply_and_says_so(tmp_path):
    cu = PROGRAMS / "openmp" / "simd_mixed.cu"
    done = run_cli("--schedule=flat", "--emit=openmp", "--explain=json", str(cu), "-o", str(tmp_path / "out.cpp"))
    assert done.returncode == 0, done.stderr
    kernels = json.loads(done.stdout)["kernels"]
    assert all(k["schedule"].startswith("blocks (flat needs") for k in kernels)


def test_unknown_schedule_is_a_usage_error():
    done = run_cli("--schedule=fast", "a.cu")
    assert done.returncode == 1 and "--schedule" in done.stderr and "Traceback" not in done.stderr


def test_nested_schedule_restores_the_nesting_level(tmp_path):
    # Nested parallelism is on only inside a nested-schedule launch: afterwards the host's
    # max-active-levels setting is what it was, so host OpenMP code is not affected.
    cu = tmp_path / "levels.cu"
    cu.write_text(LEVELS)
    _, run, _ = translate_build_run(cu, tmp_path, TranslateOptions(schedule="nested"), threads=4)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


LEVELS = r"""
#include <cstdio>
#include <cuda_runtime.h>
extern "C" int omp_get_max_active_levels(void);
extern "C" void omp_set_max_active_levels(int);

__global__ void scale(float *x, int n)
{
    __shared__ float tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) x[i] = 2.0f * tile[blockDim.x - 1 - threadIdx.x];
}

int main()
{
    omp_set_max_active_levels(1);
    const int n = 200;
    float *x;
    cudaMallocManaged(&x, n * sizeof(float));
    for (int i = 0; i < n; ++i) x[i] = (float)i;
    scale<<<(n + 63) / 64, 64>>>(x, n);
    cudaDeviceSynchronize();
    int bad = omp_get_max_active_levels() != 1;
    for (int i = 0; i < n; ++i) {
        int j = (i / 64) * 64 + 63 - i % 64;
        float want = j < n ? 2.0f * (float)j : 0.0f;
        if (x[i] != want) { printf("x[%d] = %g, expected %g\n", i, x[i], want); bad = 1; break; }
    }
    if (!bad) printf("PASS\n");
    return bad;
}
"""
