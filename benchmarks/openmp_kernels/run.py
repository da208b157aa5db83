"""Benchmark (not a test) for issue 5: translated kernels against hand-written CPU code.

    python benchmarks/openmp_kernels/run.py [--threads 1,2] [--repeat 7] [--rounds 3] [--matrix 512] [--vector 16777216]

Builds ``kernels.cu`` (tiled shared-memory matrix multiply, 256-thread tree reduction, the CUDA
SDK's tree reduction over integers, vector add, an empty kernel) with cuda2cpu once per ``--schedule`` (and once more with ``--reassociate-reductions``) and links the hand-written baselines of
``baselines.cpp`` into the same program: two MCUDA-style translations of the matrix multiply
(one expanding every live value, one written independently as the MCUDA paper describes), a
blocked OpenMP matrix multiply, OpenMP reductions (float and int), the kernel's block tree written by hand, a STREAM-style triad and an empty
``omp parallel for``.  Each program times its translated kernels and (for the default schedule)
the baselines side by side, median of ``--repeat`` runs; the table gives the ratios.  The
programs run ``--rounds`` times in turns (every schedule once per round), and each figure is the
median over the rounds: on a small shared machine one process can run 30% slower than the next,
so a single run per schedule compares noise as often as schedules.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEDULES = ("auto", "blocks", "flat", "nested")
RATIOS = (  # (bench, translated, baseline, how to read the ratio, target)
    ("matmul", "mcuda_style", "speedup over the MCUDA-style translation", ">= 1.15"),
    ("matmul", "mcuda_independent", "speedup over an MCUDA-style translation written independently", ""),
    ("matmul", "openmp", "speedup over hand-written blocked OpenMP", ""),
    ("reduction", "openmp", "speedup over an OpenMP reduction", ">= 0.8 (within 1.25x)"),
    ("reduction", "tree_by_hand", "speedup over the same block tree written by hand in OpenMP", ""),
    ("reduction_sdk", "openmp", "SDK tree reduction (int) vs an OpenMP reduction", ">= 0.67 (within 1.5x)"),
    ("vecadd", "triad", "bandwidth relative to a STREAM triad", ">= 0.85"),
    ("launch", "omp_parallel_for", "empty launch vs empty omp parallel for", ""),
)


#: Programs built besides one per schedule: name -> cuda2cpu flags (the auto schedule).
OPT_IN = {"reassociated": ("--reassociate-reductions",)}
#: The ratios reported for each opt-in program, against the baselines of its own process.
OPT_IN_RATIOS = (
    ("reduction_sdk", "openmp", "SDK tree reduction (int) vs an OpenMP reduction, --reassociate-reductions", ">= 0.91 (within 1.1x)"),
    ("reduction", "openmp", "reduction (float, 512-element blocks) vs an OpenMP reduction, --reassociate-reductions", ""),
)


def build(variant: str, workdir: Path) -> Path:
    exe = workdir / f"kernels_{variant}"
    flags = [f"--schedule={variant}"] if variant in SCHEDULES else list(OPT_IN[variant])
    cmd = ["cuda2cpu", "-O3", *flags, str(HERE / "kernels.cu"), str(HERE / "baselines.cpp"),
           "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"build failed ({' '.join(cmd)}):\n{done.stderr}")
    return exe


def run(exe: Path, threads: int, args: argparse.Namespace, baselines: bool) -> dict[tuple[str, str], float]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="true")
    cmd = [str(exe), str(args.matrix), str(args.vector), str(args.repeat), "all" if baselines else "translated"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    times = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        times[(row["bench"], row["variant"])] = row["seconds"]
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each program, in turns")
    parser.add_argument("--matrix", type=int, default=512, help="matrix size (a multiple of 16)")
    parser.add_argument("--vector", type=int, default=1 << 24, help="vector length")
    args = parser.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"matrix {args.matrix}, vector {args.vector}, median of {args.repeat} in each of {args.rounds} rounds\n")
    with tempfile.TemporaryDirectory() as tmp:
        exes = {s: build(s, Path(tmp)) for s in (*SCHEDULES, *OPT_IN)}
        for n in threads:
            rounds = []
            for _ in range(args.rounds):
                # Every program runs the baselines too: a kernel timed after different work (the
                # launch benchmark after the triad or not) is not timed under the same conditions.
                rounds.append({s: run(exes[s], n, args, baselines=True) for s in exes})
            base = {key: statistics.median(r["auto"][key] for r in rounds) for key in rounds[0]["auto"]}
            # Ratios against the baselines: per round (same process), then the median.
            ratio_of = {(bench, baseline): statistics.median(r["auto"][(bench, baseline)] / r["auto"][(bench, "translated")]
                                                            for r in rounds)
                        for bench, baseline, _, _ in RATIOS}
            others = {s: {key: statistics.median(r[s][key] for r in rounds) for key in rounds[0][s]}
                      for s in SCHEDULES[1:]}
            print(f"## OMP_NUM_THREADS={n}\n")
            print("| benchmark | ratio | value | target |")
            print("|---|---|---|---|")
            for bench, baseline, meaning, target in RATIOS:
                ratio = ratio_of[(bench, baseline)]
                print(f"| {bench} | {meaning} | {ratio:.2f}x | {target} |")
            for variant in OPT_IN:
                for bench, baseline, meaning, target in OPT_IN_RATIOS:
                    ratio = statistics.median(r[variant][(bench, baseline)] / r[variant][(bench, "translated")]
                                              for r in rounds)
                    print(f"| {bench} | {meaning} | {ratio:.2f}x | {target} |")
            print("\n| benchmark | auto (s) | " + " | ".join(f"{s} (s)" for s in SCHEDULES[1:]) + " | auto vs best |")
            print("|---|---|" + "---|" * len(SCHEDULES[1:]) + "---|")
            for bench in ("matmul", "reduction", "reduction_sdk", "vecadd", "launch"):
                auto = base[(bench, "translated")]
                rest = [others[s][(bench, "translated")] for s in SCHEDULES[1:]]
                print(f"| {bench} | {auto:.4g} | " + " | ".join(f"{t:.4g}" for t in rest)
                      + f" | {min(rest) / auto:.2f}x |")
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
