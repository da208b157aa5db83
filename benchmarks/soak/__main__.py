"""``python -m benchmarks.soak``: the differential soak (see benchmarks/soak/differential.py and
benchmarks/soak/mutants.py).

    python -m benchmarks.soak --kernels 10000 [--per-unit 100] [--seed 1] [--jobs 2] [-O1]
    python -m benchmarks.soak --mutants 300 [--seed 1]
    python -m benchmarks.soak --recheck [--failures DIR]   (saved kernels that still disagree)

Prints a line per unit and a summary: kernels, kernels per second, mismatches and the other
failures, each saved under --failures (default /tmp/soak-failures) with the commands that show it.
A benchmark, not a test: it exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.soak import differential

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, default=0, help="random kernels to check")
    ap.add_argument("--per-unit", type=int, default=100, help="kernels per translation unit")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("-O", dest="opt", default="1", help="g++ optimization level of the builds (default 1)")
    ap.add_argument("--threads", default=",".join(map(str, differential.THREADS)))
    ap.add_argument("--configs", default=",".join(differential.CONFIGS))
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                                                    "cuda2cpu-soak"), help="result cache ('' for none)")
    ap.add_argument("--failures", default="/tmp/soak-failures")
    ap.add_argument("--mutants", type=int, default=0, help="corpus mutants (a barrier inserted) to check")
    ap.add_argument("--recheck", action="store_true", help="run every kernel saved under --failures again")
    args = ap.parse_args(argv)
    failed = 0
    if args.recheck:
        failed += recheck(args)
    if args.kernels:
        failed += run_kernels(args)
    if args.mutants:
        from benchmarks.soak import mutants
        failed += mutants.run(args.mutants, args.seed, args.jobs, f"-O{args.opt}", Path(args.failures))
    return 1 if failed else 0


def run_kernels(args) -> int:
    threads = tuple(int(t) for t in args.threads.split(","))
    configs = tuple(args.configs.split(","))
    cache = Path(args.cache) if args.cache else None
    failures = Path(args.failures)
    jobs = [(args.seed, u, min(args.per_unit, args.kernels - u * args.per_unit))
            for u in range((args.kernels + args.per_unit - 1) // args.per_unit)]
    start, cpu0 = time.monotonic(), _cpu()
    totals, kinds = Counter(), Counter()
    mismatched: set[str] = set()
    print(f"soak: {args.kernels} kernels in {len(jobs)} units, configurations {','.join(configs)}, "
          f"threads {args.threads}, -O{args.opt}, {args.jobs} jobs, seed {args.seed}", flush=True)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.jobs, differential.init_worker, (f"-O{args.opt}", threads, configs, cache, failures)) as pool:
        for index, res in pool.imap_unordered(differential.unit_job, jobs):
            totals["kernels"] += res.kernels
            totals["split"] += res.split
            for f in res.failures:
                kinds[f.kind] += 1
                if f.kind == "mismatch":
                    mismatched.add(f.kernel)
                print(f"  {f.kind}: {f.kernel or 'unit'} [{f.config}, {f.threads} threads]: "
                      f"{f.detail.splitlines()[0] if f.detail else ''} -> {f.saved}", flush=True)
            elapsed = time.monotonic() - start
            print(f"unit {index}: {res.kernels} kernels, {len(res.failures)} failures, {res.seconds:.0f} s; "
                  f"total {totals['kernels']} kernels, {totals['kernels'] / elapsed:.2f} kernels/s", flush=True)
    elapsed = time.monotonic() - start
    print(f"soak: {totals['kernels']} kernels checked in {elapsed:.0f} s ({totals['kernels'] / elapsed:.2f} kernels/s, "
          f"{_cpu() - cpu0:.0f} s CPU); the default pipeline split {totals['split']} of them; "
          f"mismatched kernels {len(mismatched)} ({kinds['mismatch']} configurations), rejected {kinds['rejected']}, build failures {kinds['build']}, "
          f"crashes {kinds['crash']}", flush=True)
    return sum(kinds.values())


def recheck(args) -> int:
    runner = differential.Runner(f"-O{args.opt}", tuple(int(t) for t in args.threads.split(",")),
                                 tuple(args.configs.split(",")), None, Path(args.failures))
    saved = sorted(Path(args.failures).glob("*/kernel.cu"))
    still = 0
    for cu in saved:
        problems = runner.recheck(cu.read_text(), cu.parent.name)
        still += bool(problems)
        print(f"{cu.parent}: {'; '.join(problems) if problems else 'agrees now'}", flush=True)
    print(f"recheck: {still} of {len(saved)} saved kernels still disagree", flush=True)
    return still


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


if __name__ == "__main__":
    sys.exit(main())
