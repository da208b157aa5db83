"""The project's benchmark program (benchmarks/openmp_kernels): built as ``run.py`` builds it, in a
padded code layout, it runs every variant in turns and its own checks pass.

Not a benchmark: tiny sizes, one repetition, no time compared.  What it guards is that the
program the performance figures come from computes what it claims (the translated SDK reduction's
sum equals the serial sum and the OpenMP reduction's, bit for bit, or the program fails) and that
the layout padding links."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess

from support import ROOT

BENCHMARK = ROOT / "benchmarks" / "openmp_kernels"


def _runner():
    spec = importlib.util.spec_from_file_location("openmp_kernels_run", BENCHMARK / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_program_checks_its_results_in_a_padded_layout(tmp_path):
    runner = _runner()
    padded = runner.LAYOUTS[-1]
    assert padded != (0, 0)
    exe = runner.build("auto", padded, tmp_path)
    env = dict(os.environ, OMP_NUM_THREADS="2")
    done = subprocess.run([str(exe), "32", "5000", "3", "all"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    variants = {(r["bench"], r["variant"]) for r in rows}
    for bench, baseline, _, _ in runner.RATIOS:
        assert {(bench, "translated"), (bench, baseline)} <= variants
    sdk = {r["variant"]: r["check"] for r in rows if r["bench"] == "reduction_sdk"}
    expected = sum((i * 7) % 19 - 5 for i in range(5000))
    assert sdk == {"translated": expected, "openmp": expected}
    # The layouts move the code: a baseline's loop starts elsewhere in its 64-byte line.
    unpadded = runner.build("auto", runner.LAYOUTS[0], tmp_path)
    assert runner.LAYOUTS[0] == (0, 0)
    starts = [_address(e, "reduce_openmp_int") for e in (unpadded, exe)]
    assert (starts[1] - starts[0]) % 16 == 0 and (starts[1] - starts[0]) % 64 != 0


def _address(exe, function: str) -> int:
    symbols = subprocess.run(["nm", "-C", str(exe)], capture_output=True, text=True, check=True).stdout
    found = [line.split()[0] for line in symbols.splitlines() if line.endswith(f" {function}(int const*, int)")]
    assert len(found) == 1, found
    return int(found[0], 16)
