"""The Rodinia-style suite: each benchmark's translated CUDA agrees with its OpenMP version (on the
small ``test`` size), and the runner's table and JSON.  Timings are never asserted."""

import json

import pytest

from rodinia_suite.__main__ import main
from rodinia_suite.benchmarks import BENCHMARKS, BY_NAME
from rodinia_suite.runner import Benchmark, compare_outputs, run_benchmark, run_suite

#: Benchmarks whose CUDA version cuda2cpu does not build yet, with the first diagnostic.  Strict
#: xfails: when the translator learns the construct, the test fails until the entry is removed.
KNOWN_FAILURES: dict[str, str] = {
}


def _params():
    for b in BENCHMARKS:
        marks = [pytest.mark.xfail(reason=KNOWN_FAILURES[b.name], strict=True)] if b.name in KNOWN_FAILURES else []
        yield pytest.param(b, id=b.name, marks=marks)


@pytest.mark.parametrize("bench", list(_params()))
def test_translated_equals_openmp(bench, tmp_path):
    (result,) = run_benchmark(bench, "test", [2], 1, tmp_path, [])
    assert result.verified, result.status


def test_compare_outputs_integers_exact_floats_within_tolerance(tmp_path):
    bench = Benchmark("x", {}, rtol=1e-3, atol=0.0)
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("1 2.0005\n")
    b.write_text("1 2.0\n")
    assert compare_outputs(bench, a, b) is None
    a.write_text("2 2.0\n")
    assert "value 0" in compare_outputs(bench, a, b)
    a.write_text("1 2.01\n")
    assert "value 1" in compare_outputs(bench, a, b)
    a.write_text("1\n")
    assert "lengths differ" in compare_outputs(bench, a, b)


def test_runner_table_and_json(tmp_path):
    lines = []
    out = tmp_path / "out.json"
    data = run_suite([BY_NAME["nn"], BY_NAME["bfs"]], "test", [1], 1, [], str(out), "test",
                     log=lambda *a, **k: lines.append(" ".join(map(str, a))))
    text = "\n".join(lines)
    assert "| benchmark | threads | verified | barriers |" in text
    assert "| nn | 1 | yes | 0 |" in text and "| bfs | 1 | yes | 0 |" in text
    assert "geomean speedup (translated over OpenMP), 1 thread(s), 2 verified benchmark(s)" in text
    written = json.loads(out.read_text())
    assert written == json.loads(json.dumps(data))
    assert [r["benchmark"] for r in written["results"]] == ["nn", "bfs"]
    assert all(r["verified"] and r["translated"]["median"] > 0 for r in written["results"])
    assert written["geomean"]["1"] > 0


def test_translation_failure_is_reported_not_raised(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bad.cu").write_text("__global__ void k() { undeclared_thing(); }\nint main() { return 0; }\n")
    (bad / "bad_omp.cpp").write_text("int main() { return 0; }\n")

    class Bad(Benchmark):
        @property
        def directory(self):
            return bad

    (result,) = run_benchmark(Bad("bad", {"test": ()}), "test", [1], 1, tmp_path, [])
    assert not result.verified
    assert result.status.startswith("translate failed: ") and "error" in result.status


def test_unknown_benchmark_is_an_error(capsys):
    assert main(["run", "--only", "nosuch"]) == 2
    assert "unknown benchmark 'nosuch'" in capsys.readouterr().err


def _png_size(path):
    """(width, height) from a PNG file's header; fails unless the file is a PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG file"
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _results_json(tmp_path, threads, ablation):
    """A results file as ``run --json`` writes it, for two benchmarks, without running them."""
    from rodinia_suite.runner import Result, Timing, to_json

    results = []
    for name, base in (("nn", 0.004), ("bfs", 0.010)):
        for t in threads:
            r = Result(name, t, barriers=0, verified=True)
            r.translated = Timing(base / t, base / t, 1.1 * base / t, [base / t])
            r.openmp = Timing(0.8 * base / t, 0.8 * base / t, 0.9 * base / t, [0.8 * base / t])
            if ablation and t == threads[-1]:
                r.ablation = {p: Timing(1.2 * base / t, 1.2 * base / t, 1.2 * base / t, [1.2 * base / t])
                              for p in ablation}
            results.append(r)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(to_json(results, "test", threads, ablation, "test")))
    return path


def test_plot_draws_speedup_scaling_and_ablation_pngs(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="plot needs matplotlib (pip install '.[bench]')")
    path = _results_json(tmp_path, [1, 2], ["barrier-elim", "parallel-licm"])
    out = tmp_path / "charts"
    assert main(["plot", str(path), "--out-dir", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["rodinia_ablation.png", "rodinia_scaling.png", "rodinia_speedup.png"]
    assert all(w > 100 and h > 100 for w, h in map(_png_size, out.iterdir()))
    assert sorted(capsys.readouterr().out.split()) == sorted(str(out / n) for n in names)


def test_plot_of_one_thread_count_without_ablation_draws_speedup_only(tmp_path):
    pytest.importorskip("matplotlib", reason="plot needs matplotlib (pip install '.[bench]')")
    path = _results_json(tmp_path, [2], [])
    assert main(["plot", str(path), "--out-dir", str(tmp_path / "charts")]) == 0
    assert [p.name for p in (tmp_path / "charts").iterdir()] == ["rodinia_speedup.png"]


# A benchmark small enough to translate once per optional pass: a block sum with a tree of
# barriers, its OpenMP counterpart a plain loop.
_ABLATION_CU = r"""
#include <vector>
#include <cuda_runtime.h>
#include "suite.h"
__global__ void block_sums(const float *x, float *sums)
{
    __shared__ float part[64];
    int t = threadIdx.x;
    float v = x[blockIdx.x * 64 + t];
    part[t] = v * v;
    __syncthreads();
    for (int half = 32; half > 0; half /= 2) {
        if (t < half)
            part[t] += part[t + half];
        __syncthreads();
    }
    if (t == 0)
        sums[blockIdx.x] = part[0];
}
int main(int argc, char **argv)
{
    int blocks = atoi(argv[1]);
    std::vector<float> x(blocks * 64), sums(blocks);
    for (int i = 0; i < blocks * 64; ++i)
        x[i] = (float)(i % 7);
    float *d_x, *d_sums;
    cudaMalloc(&d_x, x.size() * sizeof(float));
    cudaMalloc(&d_sums, blocks * sizeof(float));
    cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
    double t0 = suite_now();
    block_sums<<<blocks, 64>>>(d_x, d_sums);
    cudaDeviceSynchronize();
    suite_report_time(suite_now() - t0);
    cudaMemcpy(sums.data(), d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    FILE *out = suite_open_output(argv[3]);
    for (float s : sums)
        fprintf(out, "%d\n", (int)s);
    fclose(out);
    return 0;
}
"""

_ABLATION_OMP = r"""
#include <vector>
#include "suite.h"
int main(int argc, char **argv)
{
    int blocks = atoi(argv[1]);
    std::vector<int> sums(blocks, 0);
    double t0 = suite_now();
#pragma omp parallel for
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < 64; ++t)
            sums[b] += ((b * 64 + t) % 7) * ((b * 64 + t) % 7);
    suite_report_time(suite_now() - t0);
    FILE *out = suite_open_output(argv[3]);
    for (int s : sums)
        fprintf(out, "%d\n", s);
    fclose(out);
    return 0;
}
"""


def test_ablation_turns_off_each_optional_pass_and_reports_its_geomean(tmp_path):
    from rodinia_suite.runner import Timing, format_ablation, optional_passes
    from foundation.passes import PASS_REGISTRY
    from transpiler.pipeline import build_pipeline, default_pipeline

    passes = optional_passes()
    # Read from the pass registry: every optional pass of the default pipeline, none required.
    assert {"barrier-elim", "parallel-licm"} <= set(passes)
    assert passes == [n for n in default_pipeline().split(",") if not PASS_REGISTRY[n]().required]
    assert len(build_pipeline(None, tuple(passes))) == len(default_pipeline().split(",")) - len(passes)

    src = tmp_path / "src" / "blocksum"
    src.mkdir(parents=True)
    (src / "blocksum.cu").write_text(_ABLATION_CU)
    (src / "blocksum_omp.cpp").write_text(_ABLATION_OMP)

    class Local(Benchmark):
        @property
        def directory(self):
            return src

    work = tmp_path / "work"
    work.mkdir()
    (result,) = run_benchmark(Local("blocksum", {"test": ("40",)}), "test", [1], 1, work, passes)
    assert result.verified, result.status
    # Each pass off: built, run and verified against the OpenMP output (a mismatch is a string).
    assert {p: type(v) for p, v in result.ablation.items()} == {p: Timing for p in passes}
    # Each is compared with the whole pipeline timed right before it, not minutes earlier.
    assert {p: type(v) for p, v in result.ablation_baseline.items()} == {p: Timing for p in passes}
    table = format_ablation([result], passes)
    for p in passes:
        assert f"| {p} | " in table and f"| {p} | - |" not in table
