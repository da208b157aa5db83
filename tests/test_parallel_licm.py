"""Pass parallel-licm: uniform computations over read-only memory leave the thread loop (paper
Sec. IV-C), to the grid level when block-invariant; never when the memory is written in the
kernel, the value depends on the thread, or not every thread would compute it.  Programs are run
and checked, with the same output under ``--no-parallel-licm``."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import time

import pytest

from support import EXAMPLES, translate_build_run
from foundation.options import TranslateOptions

CASES = r"""
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>
#define B 64

__device__ float row_sum(const float *p, int n)
{
    float s = 0;
    for (int i = 0; i < n; ++i)
        s += p[i];
    return s;
}

__device__ float read_and_mark(float *p)
{
    float v = p[0];
    p[1] = v;
    return v;
}

// block-invariant: each block's row sum, computed once per block
__global__ void scale_rows(const float *in, float *out, int n)
{
    int base = blockIdx.x * n;
    float total = row_sum(in + base, n);
    int i = base + threadIdx.x;
    out[i] = in[i] / total;
}

// grid-invariant, through a uniform local
__global__ void scale_all(const float *in, float *out, int n)
{
    int count = n * 2;
    float total = row_sum(in, count);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] / total;
}

// not hoisted: depends on the thread
__global__ void prefix(const float *in, float *out)
{
    float s = row_sum(in, threadIdx.x + 1);
    out[threadIdx.x] = s;
}

// not hoisted: reads shared memory the kernel writes
__global__ void staged(const float *in, float *out)
{
    __shared__ float tile[B];
    tile[threadIdx.x] = in[threadIdx.x] * 2;
    __syncthreads();
    float total = row_sum(tile, B);
    out[threadIdx.x] = tile[threadIdx.x] / total;
}

// not hoisted before the thread loop: comes after a return (computed on first use instead)
__global__ void guarded(const float *in, float *out, int n)
{
    if ((int)threadIdx.x >= n) return;
    float total = row_sum(in, n);
    out[threadIdx.x] = in[threadIdx.x] / total;
}

// not hoisted: out may alias in (nothing proves otherwise at the launch)
__global__ void unproven(const float *in, float *out, int n)
{
    float total = row_sum(in, n);
    out[threadIdx.x] = in[threadIdx.x] / total;
}

// not hoisted: the called function writes memory
__global__ void marks(float *scratch, float *out)
{
    float v = read_and_mark(scratch);
    out[threadIdx.x] = v + threadIdx.x;
}

static void launch_unproven(const float *in, float *out, int n) { unproven<<<1, B>>>(in, out, n); }

static int check(const char *name, const float *got, const float *want, int n)
{
    for (int i = 0; i < n; ++i)
        if (std::fabs(got[i] - want[i]) > 1e-5f * (1 + std::fabs(want[i]))) {
            printf("FAIL: %s[%d] = %g, expected %g\n", name, i, got[i], want[i]);
            return 1;
        }
    printf("%s ok\n", name);
    return 0;
}

int main()
{
    const int blocks = 4, n = blocks * B;
    float in[n], got[n], want[n];
    for (int i = 0; i < n; ++i) in[i] = 1.0f + (i % 13) * 0.25f;
    float *din, *dout, *dscratch;
    cudaMalloc(&din, sizeof(in));
    cudaMalloc(&dout, sizeof(got));
    cudaMalloc(&dscratch, 2 * sizeof(float));
    cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice);
    int bad = 0;

    scale_rows<<<blocks, B>>>(din, dout, B);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
        float s = 0;
        for (int k = 0; k < B; ++k) s += in[b * B + k];
        for (int k = 0; k < B; ++k) want[b * B + k] = in[b * B + k] / s;
    }
    bad |= check("scale_rows", got, want, n);

    scale_all<<<blocks, B>>>(din, dout, n / 2);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    float all = 0;
    for (int k = 0; k < n; ++k) all += in[k];
    for (int k = 0; k < n; ++k) want[k] = in[k] / all;
    bad |= check("scale_all", got, want, n);

    prefix<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, B * sizeof(float), cudaMemcpyDeviceToHost);
    for (int t = 0, s = 0; t < B; ++t) { float p = 0; for (int k = 0; k <= t; ++k) p += in[k]; want[t] = p; (void)s; }
    bad |= check("prefix", got, want, B);

    float tile_sum = 0;
    for (int k = 0; k < B; ++k) tile_sum += 2 * in[k];
    for (int k = 0; k < B; ++k) want[k] = 2 * in[k] / tile_sum;
    staged<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, B * sizeof(float), cudaMemcpyDeviceToHost);
    bad |= check("staged", got, want, B);

    float head = 0;
    for (int k = 0; k < B / 2; ++k) head += in[k];
    for (int k = 0; k < B / 2; ++k) want[k] = in[k] / head;
    guarded<<<1, B>>>(din, dout, B / 2);
    cudaMemcpy(got, dout, B / 2 * sizeof(float), cudaMemcpyDeviceToHost);
    bad |= check("guarded", got, want, B / 2);

    float first = 0;
    for (int k = 0; k < B; ++k) first += in[k];
    for (int k = 0; k < B; ++k) want[k] = in[k] / first;
    launch_unproven(din, dout, B);
    cudaMemcpy(got, dout, B * sizeof(float), cudaMemcpyDeviceToHost);
    bad |= check("unproven", got, want, B);

    float seed[2] = {2.5f, 0};
    cudaMemcpy(dscratch, seed, sizeof(seed), cudaMemcpyHostToDevice);
    marks<<<1, B>>>(dscratch, dout);
    cudaMemcpy(got, dout, B * sizeof(float), cudaMemcpyDeviceToHost);
    for (int k = 0; k < B; ++k) want[k] = 2.5f + k;
    bad |= check("marks", got, want, B);

    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
"""


def _hoisted(explain: dict) -> dict[str, list[tuple[str, str]]]:
    return {k["name"]: [(h["text"], h["to"]) for h in k["hoisted"]] for k in explain["kernels"]}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    work = tmp_path_factory.mktemp("licm")
    cu = work / "licm_cases.cu"
    cu.write_text(CASES)
    result, run, _ = translate_build_run(cu, work)
    return cu, result, run


def test_hoisted_where_allowed_and_only_there(cases):
    _, result, run = cases
    assert _hoisted(result.explain) == {
        "scale_rows": [("int base = blockIdx.x * n", "block"), ("float total = row_sum(in + base, n)", "block")],
        "scale_all": [("int count = n * 2", "grid"), ("float total = row_sum(in, count)", "grid")],
        # after a return: not before the thread loop, but once per block, by its first thread
        "guarded": [("row_sum(in, n)", "block")],
        "prefix": [], "staged": [], "unproven": [], "marks": [],
    }
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_block_level_code_sits_between_the_block_and_thread_loops(cases):
    _, result, _ = cases
    text = result.source[result.source.index("void scale_rows("):]
    block = text.index("const uint3 blockIdx")
    hoisted = text.index("float total = row_sum(in + base, n);")
    threads = text.index("for (unsigned tz")
    assert block < hoisted < threads
    text = result.source[result.source.index("void scale_all("):]
    assert text.index("float total = row_sum(in, count);") < text.index("#pragma omp parallel for")


def test_same_output_without_parallel_licm(cases, tmp_path):
    cu, _, run = cases
    result, plain, _ = translate_build_run(cu, tmp_path, TranslateOptions(disabled_passes=("parallel-licm",)))
    assert all(not h for h in _hoisted(result.explain).values())
    assert plain.returncode == 0 and plain.stdout == run.stdout


NORMALIZE = EXAMPLES / "normalize.cu"


def _sum_line() -> int:
    lines = NORMALIZE.read_text().splitlines()
    return next(i for i, line in enumerate(lines, start=1) if "float s = sum(in, n);" in line)


def test_normalize_sum_is_hoisted_to_the_grid_and_runs_in_milliseconds(tmp_path):
    """Paper Fig. 1: every thread calls an O(n) sum; hoisted, n = 65536 takes milliseconds."""
    result, run, _ = translate_build_run(NORMALIZE, tmp_path, args=("16",))
    (kernel,) = result.explain["kernels"]
    assert kernel["hoisted"] == [{"line": _sum_line(), "text": "float s = sum(in, n)", "to": "grid"}]
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    exe = tmp_path / NORMALIZE.stem
    env = dict(os.environ, OMP_NUM_THREADS="2")
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        big = subprocess.run([str(exe), "65536"], capture_output=True, text=True, timeout=60, env=env)
        best = min(best, time.perf_counter() - start)
        assert big.returncode == 0 and big.stdout.strip() == "PASS", big.stdout + big.stderr
    assert best < 0.5, f"normalize(65536) took {best:.3f} s"


def test_normalize_same_output_without_parallel_licm(tmp_path):
    result, run, _ = translate_build_run(NORMALIZE, tmp_path, TranslateOptions(disabled_passes=("parallel-licm",)),
                                         args=("2048",))
    assert result.explain["kernels"][0]["hoisted"] == []
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


GUARDED = Path(__file__).resolve().parent / "programs" / "openmp" / "licm_guarded.cu"


def test_calls_under_a_guard_are_computed_once_per_block_on_first_use(tmp_path):
    """``if (i < n) out[i] = in[i] / total(in, n);``: the sum runs once per block, by the first
    thread that needs it, and never in a launch where no thread passes the guard."""
    result, run, _ = translate_build_run(GUARDED, tmp_path, threads=3)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    hoisted = {k["name"]: [(h["text"], h["to"], h.get("on_first_use")) for h in k["hoisted"]]
               for k in result.explain["kernels"]}
    assert hoisted == {"normalize": [("total(in, n)", "block", True)],
                       "never_needed": [("total_inclusive(gone, n)", "block", True)],
                       "accumulate": [("total(in, n)", "block", True)]}
    assert "total_once.ready() ? total_once.get() : total_once.set(total(in, n))" in result.source


@pytest.mark.parametrize("schedule", ["blocks", "flat", "nested"])
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_calls_under_a_guard_under_every_schedule_and_lowering(tmp_path, schedule, lowering):
    _, run, _ = translate_build_run(GUARDED, tmp_path, TranslateOptions(schedule=schedule, lowering=lowering),
                                    threads=3)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
