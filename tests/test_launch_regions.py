"""Pass launch-regions: launches in host loops and runs share one parallel region, correctly."""

from __future__ import annotations

import pytest

from support import PROGRAMS, translate_build_run
from foundation.options import TranslateOptions
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


def test_a_launch_on_a_stream_stays_out_of_regions(tmp_path):
    # Work on a stream has its own order (MocCUDA runs it on the stream's worker): only the two
    # launches without one share a region.
    cu = tmp_path / "stream.cu"
    cu.write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n"
        "int main()\n"
        "{\n"
        "    float *x = 0;\n"
        "    cudaStream_t stream = 0;\n"
        "    k<<<4, 128, 0, stream>>>(x);\n"
        "    k<<<4, 128>>>(x);\n"
        "    k<<<4, 128, 0, 0>>>(x);\n"
        "    return 0;\n"
        "}\n")
    regions = translate_file(cu).explain["regions"]
    assert [(r["kind"], r["line"], r["launches"]) for r in regions] == [("fused", 8, 2)]


def test_template_kernels_share_regions(tmp_path):
    # The work-sharing form of a kernel template is a template too, and a launch with explicit
    # template arguments is renamed before them (axpy__team<float, 2>).  At 3 threads a launch
    # left in its own form inside the region would run the whole grid three times.
    cu = tmp_path / "templates.cu"
    cu.write_text(TEMPLATES)
    result, run, _ = translate_build_run(cu, tmp_path, threads=3)
    assert [(r["kind"], r["launches"]) for r in result.explain["regions"]] == [("hoisted", 2)]
    assert "axpy__team<float, 2>(" in result.source and "halve__team(" in result.source
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_kernels_with_launch_level_code_share_regions(tmp_path):
    # parallel-licm hoists `float s = sum(in, n)` out of normalize's grid loop (memory the
    # kernel never writes); in the work-sharing form every thread of the team computes it for
    # itself before sharing the blocks, so the kernel can still join the time-step loop's region.
    cu = tmp_path / "normalize.cu"
    cu.write_text(LAUNCH_LEVEL)
    result, run, _ = translate_build_run(cu, tmp_path, threads=3)
    assert [h["to"] for k in result.explain["kernels"] for h in k["hoisted"]] == ["grid"]
    assert [(r["kind"], r["launches"]) for r in result.explain["regions"]] == [("hoisted", 2)]
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


LAUNCH_LEVEL = r"""
#include <cstdio>
#include <cuda_runtime.h>

__device__ float sum(const float *v, int n)
{
    float s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    return s;
}

__global__ void normalize(float *__restrict__ out, const float *__restrict__ in, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float s = sum(in, n);
    if (tid < n) out[tid] = in[tid] / s;
}

__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 2 * x[i];
}

int main()
{
    const int n = 2000;
    float *a, *b;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    static float expect[n];
    for (int i = 0; i < n; ++i) a[i] = expect[i] = 1 + i % 5;
    for (int step = 0; step < 4; ++step) {
        normalize<<<(n + 255) / 256, 256>>>(b, a, n);
        twice<<<(n + 255) / 256, 256>>>(b, n);
        float *t = a;
        a = b;
        b = t;
        float s = 0;
        for (int i = 0; i < n; ++i) s += expect[i];
        for (int i = 0; i < n; ++i) expect[i] = 2 * (expect[i] / s);
    }
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (a[i] != expect[i]) { if (!bad) printf("a[%d] = %g, expected %g\n", i, a[i], expect[i]); ++bad; }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
"""


TEMPLATES = r"""
#include <cstdio>
#include <cuda_runtime.h>

template <typename T, int SCALE>
__global__ void axpy(T *y, const T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] * SCALE + y[i];
}

template <typename T>
__global__ void halve(T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] / 2;
}

int main()
{
    const int n = 1000;
    float *x, *y;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    static float expect[n];
    for (int i = 0; i < n; ++i) { x[i] = i % 7; y[i] = expect[i] = 1; }
    for (int step = 0; step < 5; ++step) {
        axpy<float, 2><<<(n + 127) / 128, 128>>>(y, x, 0.25f, n);
        halve<<<(n + 127) / 128, 128>>>(y, n);
        for (int i = 0; i < n; ++i) expect[i] = (0.25f * x[i] * 2 + expect[i]) / 2;
    }
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (y[i] != expect[i]) { if (!bad) printf("y[%d] = %g, expected %g\n", i, y[i], expect[i]); ++bad; }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
"""


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
