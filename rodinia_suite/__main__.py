"""``python -m rodinia_suite run|plot``: see ``--help``."""

from __future__ import annotations

import argparse
import os
import sys

from rodinia_suite.benchmarks import BENCHMARKS, BY_NAME, SIZES


def _threads(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.split(",") if t]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of thread counts: {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"not a list of thread counts: {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rodinia_suite",
                                     description="Translated CUDA (cuda2cpu) against hand-written OpenMP.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="build, run, verify and tabulate the benchmarks")
    run.add_argument("--size", choices=SIZES, default="quick")
    run.add_argument("--threads", type=_threads, default=[os.cpu_count() or 1],
                     help="comma-separated thread counts (default: all cores)")
    run.add_argument("--only", help="comma-separated benchmark names")
    run.add_argument("--repeats", type=int, default=5, help="runs per program (default 5)")
    run.add_argument("--json", help="write the results to this JSON file")
    run.add_argument("--ablation", nargs="?", const="all", metavar="PASSES",
                     help="also rerun the translated version with each optional pass disabled "
                          "(--ablation=P1,P2: only those passes)")
    plot = sub.add_parser("plot", help="draw PNG charts from a JSON file written by run")
    plot.add_argument("json_file")
    plot.add_argument("--out-dir", default=".", help="where to write the PNG files (default: .)")
    args = parser.parse_args(argv)

    if args.command == "plot":
        from rodinia_suite.plot import PlotError, plot

        try:
            for path in plot(args.json_file, args.out_dir):
                print(path)
        except PlotError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0

    from rodinia_suite.runner import run_suite

    benchmarks = list(BENCHMARKS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in BY_NAME]
        if unknown:
            print(f"error: unknown benchmark '{unknown[0]}' (known: {', '.join(BY_NAME)})", file=sys.stderr)
            return 2
        benchmarks = [BY_NAME[n] for n in names]
    ablation: list[str] = []
    if args.ablation:
        from rodinia_suite.runner import optional_passes

        known = optional_passes()
        ablation = known if args.ablation == "all" else [p.strip() for p in args.ablation.split(",") if p.strip()]
        unknown = [p for p in ablation if p not in known]
        if unknown:
            print(f"error: '{unknown[0]}' is not an optional pass (optional: {', '.join(known)})", file=sys.stderr)
            return 2
    command = "python -m rodinia_suite " + " ".join(argv if argv is not None else sys.argv[1:])
    run_suite(benchmarks, args.size, args.threads, args.repeats, ablation, args.json, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
