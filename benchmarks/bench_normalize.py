"""Benchmark (not a test): the paper's ``normalize`` (Fig. 1) scales linearly in n after
``parallel-licm`` hoists the O(n) ``sum`` out of the thread loop, and quadratically without it.

    python benchmarks/bench_normalize.py [--sizes 16384,65536,...] [--repeat R] [--threads T]

Translates ``examples/normalize.cu`` twice (default pipeline, and ``--no-parallel-licm``), builds
both with g++ -O2 -fopenmp and MocCUDA, and runs each size R times (best wall time of the whole
program: the launch, the host-side setup and check, all O(n) except the kernel without the
hoist).  The program without the hoist is only run up to ``--max-quadratic`` elements.  Sizes
stop at 2**20: beyond, the example's float sum drifts past its own 1e-4 check.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from moccuda import build  # noqa: E402
from foundation.options import TranslateOptions  # noqa: E402
from transpiler.translate import translate_file  # noqa: E402

SOURCE = ROOT / "examples" / "normalize.cu"


def build_variant(workdir: Path, disabled: tuple[str, ...]) -> tuple[Path, dict]:
    result = translate_file(SOURCE, TranslateOptions(disabled_passes=disabled))
    name = "normalize" + "".join(f"_no_{d}" for d in disabled)
    cpp, exe = workdir / f"{name}.cpp", workdir / name
    cpp.write_text(result.source)
    cmd = [os.environ.get("CXX", "g++"), "-std=c++17", "-O2", "-fopenmp", f"-I{build.include_dir()}",
           str(cpp), "-o", str(exe), *build.link_flags()]
    subprocess.run(cmd, check=True)
    return exe, result.explain


def best_time(exe: Path, n: int, repeat: int, threads: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([str(exe), str(n)], capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - start
        if done.returncode != 0 or done.stdout.strip() != "PASS":
            raise SystemExit(f"{exe.name} {n}: {done.stdout}{done.stderr}")
        best = min(best, elapsed)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16384,65536,262144,1048576")
    parser.add_argument("--max-quadratic", type=int, default=65536)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        hoisted, explain = build_variant(work, ())
        plain, _ = build_variant(work, ("parallel-licm",))
        print(f"hoisted: {explain['kernels'][0]['hoisted']}")
        print(f"{'n':>9} {'licm (s)':>10} {'ns per n':>9} {'no licm (s)':>12}")
        for n in sizes:
            t = best_time(hoisted, n, args.repeat, args.threads)
            slow = f"{'-':>12}"
            if n <= args.max_quadratic:
                slow = f"{best_time(plain, n, args.repeat, args.threads):12.3f}"
            print(f"{n:9d} {t:10.4f} {t / n * 1e9:9.1f} {slow}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
