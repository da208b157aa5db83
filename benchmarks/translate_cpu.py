"""Benchmark (not a test): CPU time of translating each given ``.cu`` file as a user runs it.

    python benchmarks/translate_cpu.py [--repeat R] [--tree DIR] FILE.cu...

Runs ``python -m transpiler.cli --emit=openmp -o /dev/null -I DIR(FILE) FILE`` (translation only,
no C++ compile) R times per file from the checkout ``--tree`` (default: this one) and reports
the least user+sys CPU time of the process and its children, and the median over the files.
CPU time, not wall time: on a loaded machine a process waits for a core, and waiting is not its
cost.  Python's bytecode is cached (under a directory of its own in /tmp) as an installed
package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path


def translation_cpu_seconds(tree: Path, source: Path) -> float:
    """user+sys seconds of one ``cuda2cpu --emit=openmp`` of ``source`` with the checkout ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree),
               PYTHONPYCACHEPREFIX="/tmp/cuda2cpu-bench-pyc" + str(tree).replace("/", "_"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-m", "transpiler.cli", "--emit=openmp", "-o", os.devnull,
               "-I", str(source.parent), str(source)]
    pid = os.fork()
    if pid == 0:  # the child: only its own CPU time (and its children's, g++ -print-file-name) counts
        try:
            os.chdir(tree)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            os.execve(sys.executable, command, env)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{source}: the translation failed (run the command above to see why)")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    tree = args.tree.resolve()
    translation_cpu_seconds(tree, args.files[0].resolve())  # fills the bytecode cache
    best = []
    for source in args.files:
        source = source.resolve()
        seconds = min(translation_cpu_seconds(tree, source) for _ in range(args.repeat))
        best.append(seconds)
        lines = source.read_bytes().count(b"\n")
        print(f"{source}\t{lines} lines\t{seconds:.2f} s", flush=True)
    print(f"median\t\t{statistics.median(best):.2f} s")


if __name__ == "__main__":
    main()
