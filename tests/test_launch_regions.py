"""Pass launch-regions: launches in host loops and runs share one parallel region, correctly."""

from __future__ import annotations

import pytest

from support import PROGRAMS, translate_build_run
from transpiler.options import TranslateOptions
from transpiler.translate import translate_file

REGIONS = PROGRAMS / "openmp" / "regions.cu"


def test_regions_formed_where_safe_and_only_there():
    regions = translate_file(REGIONS).explain["regions"]
    # The time-step loop, the three consecutive launches, the flag loop; not the loop with a
    # break nor the one whose launch argument has a side effect (++k).
    assert [(r["kind"], r["line"], r["launches"]) for r in regions] == [
        ("hoisted", 54, 1), ("fused", 67, 3), ("hoisted", 83, 1)]


@pytest.mark.parametrize("threads", [1, 3])
def test_region_program_gives_the_host_results(threads, tmp_path):
    _, run, _ = translate_build_run(REGIONS, tmp_path, threads=threads)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_without_the_pass_no_region_and_same_results(tmp_path):
    options = TranslateOptions(disabled_passes=("launch-regions",))
    result, run, _ = translate_build_run(REGIONS, tmp_path, options)
    assert result.explain["regions"] == [] and "__team" not in result.source
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_a_bad_launch_inside_a_region_is_reported_not_hung(tmp_path):
    cu = tmp_path / "bad.cu"
    cu.write_text(BAD_LAUNCH)
    result, run, _ = translate_build_run(cu, tmp_path, threads=2, timeout=30)
    assert [r["kind"] for r in result.explain["regions"]] == ["hoisted"]
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


BAD_LAUNCH = r"""
#include <cstdio>
#include <cuda_runtime.h>

__global__ void touch(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main()
{
    int *x;
    cudaMallocManaged(&x, 64 * sizeof(int));
    for (int i = 0; i < 64; ++i) x[i] = 0;
    int block = 2048;  // over CUDA's 1024 threads per block: every launch fails
    for (int t = 0; t < 4; ++t) {
        touch<<<1, block>>>(x, 64);
        block -= 0;
    }
    cudaError_t err = cudaGetLastError();
    int untouched = 1;
    for (int i = 0; i < 64; ++i) untouched &= x[i] == 0;
    if (err == cudaErrorInvalidConfiguration && untouched) printf("PASS\n");
    else printf("FAIL: %s, untouched %d\n", cudaGetErrorString(err), untouched);
    return 0;
}
"""
