"""Build, run, verify and tabulate the suite: ``python -m rodinia_suite run``."""

from __future__ import annotations

import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import transpiler
from rodinia_suite.benchmarks import COMMON_DIR, SEED, Benchmark

CXXFLAGS = ["-O3", "-fopenmp"]
_TIME_LINE = re.compile(r"^RODINIA_TIME\s+([0-9.eE+-]+)\s*$", re.MULTILINE)


class StepFailed(Exception):
    """A build or run step failed; the message is what the table shows."""


@dataclass
class Timing:
    median: float
    min: float
    max: float
    samples: list[float]


@dataclass
class Result:
    benchmark: str
    threads: int
    barriers: int
    verified: bool = False
    status: str = "ok"
    translated: Timing | None = None
    openmp: Timing | None = None
    #: Ablation: disabled pass -> the translated version's timing without it.
    ablation: dict[str, Timing | str] = field(default_factory=dict)
    #: Ablation: disabled pass -> the whole pipeline's timing taken right before it (side by side:
    #: a baseline timed once, minutes earlier, carries whatever else the machine did then).
    ablation_baseline: dict[str, Timing] = field(default_factory=dict)

    @property
    def speedup(self) -> float | None:
        if not (self.verified and self.translated and self.openmp):
            return None
        return self.openmp.median / self.translated.median


def cuda2cpu_command() -> list[str]:
    """This checkout's cuda2cpu, run by this Python: the suite measures the compiler it was
    imported with, not whichever ``cuda2cpu`` is first on PATH (see :func:`cuda2cpu_env`)."""
    return [sys.executable, "-m", "transpiler.cli"]


def cuda2cpu_env() -> dict[str, str]:
    """The environment for :func:`cuda2cpu_command`: the directory holding this checkout's
    packages first on PYTHONPATH."""
    root = str(Path(transpiler.__file__).resolve().parent.parent)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))


def _first_diagnostic(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln:
            return ln
    return lines[0] if lines else "no diagnostic"


def build_translated(bench: Benchmark, out_dir: Path, disabled: tuple[str, ...] = ()) -> Path:
    suffix = "".join(f"_no-{p}" for p in disabled)
    exe = out_dir / f"{bench.name}_cuda{suffix}"
    cmd = cuda2cpu_command() + ["-O3", f"-I{COMMON_DIR}", *(f"--no-{p}" for p in disabled),
                                str(bench.cuda_source), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=cuda2cpu_env())
    if proc.returncode != 0:
        raise StepFailed(f"translate failed: {_first_diagnostic(proc.stderr + proc.stdout)}")
    return exe


def build_openmp(bench: Benchmark, out_dir: Path) -> Path:
    exe = out_dir / f"{bench.name}_omp"
    cxx = os.environ.get("CXX", "g++")
    cmd = [cxx, *CXXFLAGS, f"-I{COMMON_DIR}", str(bench.omp_source), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise StepFailed(f"openmp build failed: {_first_diagnostic(proc.stderr)}")
    return exe


def run_program(exe: Path, args: tuple[str, ...], output: Path, threads: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run([str(exe), *args, str(SEED), str(output)], capture_output=True, text=True,
                          env=env)
    if proc.returncode != 0:
        raise StepFailed(f"{exe.name} exited with {proc.returncode}: {_first_diagnostic(proc.stderr)}")
    match = _TIME_LINE.search(proc.stdout)
    if not match:
        raise StepFailed(f"{exe.name} printed no RODINIA_TIME line")
    return float(match.group(1))


def time_program(exe: Path, args: tuple[str, ...], output: Path, threads: int, repeats: int) -> Timing:
    samples = [run_program(exe, args, output, threads) for _ in range(repeats)]
    return Timing(statistics.median(samples), min(samples), max(samples), samples)


def _number(token: str) -> int | float:
    try:
        return int(token)
    except ValueError:
        return float(token)


def compare_outputs(bench: Benchmark, got: Path, expected: Path) -> str | None:
    """None when the outputs agree, else where they first differ."""
    a, b = got.read_text().split(), expected.read_text().split()
    if len(a) != len(b):
        return f"output lengths differ: {len(a)} vs {len(b)} values"
    for i, (x, y) in enumerate(zip(a, b)):
        vx, vy = _number(x), _number(y)
        if isinstance(vx, int) and isinstance(vy, int):
            if vx != vy:
                return f"value {i}: {vx} != {vy}"
        elif not abs(vx - vy) <= bench.atol + bench.rtol * abs(vy):
            return f"value {i}: {x} vs {y} (rtol {bench.rtol:g}, atol {bench.atol:g})"
    return None


def run_benchmark(bench: Benchmark, size: str, threads_list: list[int], repeats: int, work: Path,
                  ablation_passes: list[str]) -> list[Result]:
    results = [Result(bench.name, t, bench.barriers_in_source()) for t in threads_list]
    args = bench.sizes[size]
    try:
        omp_exe = build_openmp(bench, work)
        cuda_exe = build_translated(bench, work)
    except StepFailed as exc:
        for r in results:
            r.status = str(exc)
        return results
    for r in results:
        try:
            out_omp, out_cuda = work / f"{bench.name}_omp.out", work / f"{bench.name}_cuda.out"
            r.openmp = time_program(omp_exe, args, out_omp, r.threads, repeats)
            r.translated = time_program(cuda_exe, args, out_cuda, r.threads, repeats)
            mismatch = compare_outputs(bench, out_cuda, out_omp)
            r.verified = mismatch is None
            r.status = "ok" if mismatch is None else f"mismatch: {mismatch}"
        except StepFailed as exc:
            r.status = str(exc)
    last = results[-1]
    if not last.verified:
        return results
    for p in ablation_passes:
        try:
            exe = build_translated(bench, work, (p,))
            out = work / f"{bench.name}_no-{p}.out"
            last.ablation_baseline[p] = time_program(cuda_exe, args, work / f"{bench.name}_cuda.out",
                                                     last.threads, repeats)
            last.ablation[p] = time_program(exe, args, out, last.threads, repeats)
            mismatch = compare_outputs(bench, out, work / f"{bench.name}_omp.out")
            if mismatch:
                last.ablation[p] = f"mismatch without {p}: {mismatch}"
        except StepFailed as exc:
            last.ablation[p] = str(exc)
    return results


def optional_passes() -> list[str]:
    from foundation.passes import PASS_REGISTRY
    from transpiler.pipeline import default_pipeline

    names = default_pipeline().split(",")
    return [n for n in names if not PASS_REGISTRY[n]().required]


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _ms(t: Timing | None) -> str:
    return "-" if t is None else f"{t.median * 1e3:.2f} ({t.min * 1e3:.2f}-{t.max * 1e3:.2f})"


def format_table(results: list[Result]) -> str:
    """A Markdown table, one row per benchmark and thread count, then the geomean per thread count."""
    lines = ["| benchmark | threads | verified | barriers | translated ms (min-max) | "
             "OpenMP ms (min-max) | speedup |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        verified = "yes" if r.verified else f"no: {r.status}"
        speedup = "-" if r.speedup is None else f"{r.speedup:.2f}x"
        lines.append(f"| {r.benchmark} | {r.threads} | {verified} | {r.barriers} | {_ms(r.translated)} | "
                     f"{_ms(r.openmp)} | {speedup} |")
    for t in sorted({r.threads for r in results}):
        verified = [r.speedup for r in results if r.threads == t and r.speedup]
        g = geomean(verified)
        text = "-" if g is None else f"{g:.2f}x"
        lines.append(f"\ngeomean speedup (translated over OpenMP), {t} thread(s), "
                     f"{len(verified)} verified benchmark(s): {text}")
    return "\n".join(lines)


def ablation_summary(results: list[Result], passes: list[str]) -> dict[str, float | None]:
    """Per pass: geomean of (time without the pass / time with it, timed just before); above 1
    means the pass helps."""
    summary = {}
    for p in passes:
        ratios = []
        for r in results:
            t, base = r.ablation.get(p), r.ablation_baseline.get(p) or r.translated
            if isinstance(t, Timing) and base:
                ratios.append(t.median / base.median)
        summary[p] = geomean(ratios)
    return summary


def format_ablation(results: list[Result], passes: list[str]) -> str:
    lines = ["| pass disabled | geomean slowdown without it | benchmarks |", "| --- | --- | --- |"]
    for p, g in ablation_summary(results, passes).items():
        n = sum(1 for r in results if isinstance(r.ablation.get(p), Timing))
        lines.append(f"| {p} | {'-' if g is None else f'{g:.3f}x'} | {n} |")
    failures = [f"{r.benchmark} without {p}: {v}" for r in results for p, v in r.ablation.items()
                if isinstance(v, str)]
    return "\n".join(lines + [f"\n{f}" for f in failures])


def to_json(results: list[Result], size: str, threads: list[int], passes: list[str], command: str) -> dict:
    return {
        "command": command,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "compiler": subprocess.run([os.environ.get("CXX", "g++"), "--version"], capture_output=True,
                                               text=True).stdout.splitlines()[0]},
        "size": size,
        "threads": threads,
        "results": [dict(asdict(r), speedup=r.speedup) for r in results],
        "geomean": {str(t): geomean([r.speedup for r in results if r.threads == t and r.speedup])
                    for t in threads},
        "ablation": ablation_summary(results, passes) if passes else {},
    }


def run_suite(benchmarks: list[Benchmark], size: str, threads: list[int], repeats: int, ablation: list[str],
              json_path: str | None, command: str, log=print) -> dict:
    """``ablation``: the optional passes to rerun each benchmark without (none: no ablation)."""
    passes = list(ablation)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="rodinia_") as tmp:
        for bench in benchmarks:
            started = time.monotonic()
            rs = run_benchmark(bench, size, threads, repeats, Path(tmp), passes)
            results.extend(rs)
            log(f"{bench.name}: {rs[-1].status} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    log(format_table(results))
    if passes:
        log("\nAblation (translated version, " f"{threads[-1]} thread(s)):\n")
        log(format_ablation(results, passes))
    data = to_json(results, size, threads, passes, command)
    if json_path:
        Path(json_path).write_text(json.dumps(data, indent=2) + "\n")
    return data
