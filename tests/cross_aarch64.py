"""Build the examples and the barrier and warp programs for aarch64 and run them under qemu-user.

``python -m tests.cross_aarch64 [--jobs N] [--list] [NAME ...]`` cross-compiles, through the
cuda2cpu CLI of this checkout with ``CXX=aarch64-linux-gnu-g++`` (Debian's ``g++-aarch64-linux-gnu``,
whose ``libgomp1-arm64-cross`` supplies OpenMP), every program in :func:`cases`: the examples
(``examples/*.cu``), the barrier and warp programs (``tests/programs/barriers``,
``tests/programs/warp``) with the default lowering, and the same barrier and warp programs with
``--lowering=fallback`` (MocCUDA's fibers, whose context switch on aarch64 is moccuda/fibers.h's
assembly).  MocCUDA's runtime library is cross-built too: ``moccuda/build.py`` compiles it with
``$CXX`` (and the archiver beside it, ``aarch64-linux-gnu-ar``) into a cache directory of its own.
Each program runs under ``qemu-aarch64`` with the cross sysroot (``-L /usr/aarch64-linux-gnu``),
``OMP_NUM_THREADS=2``.  One line per program: ``PASS name`` or ``FAIL name: why``; exit status 1
if any failed, 2 if the tools are missing.  NAME selects programs (``vecadd``,
``barriers/tree_reduction``, ``fallback:warp/shuffle``).

Debian packages: ``apt-get install g++-aarch64-linux-gnu qemu-user`` (libgomp1-arm64-cross comes
with the compiler).  tests/test_cross_aarch64.py runs a few of these programs when they are installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "programs"
CROSS_CXX = "aarch64-linux-gnu-g++"
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
SYSROOT = Path("/usr/aarch64-linux-gnu")


@dataclass(frozen=True)
class Case:
    """One program to cross-build and run: its name (as printed and selected), source and lowering."""
    name: str
    source: Path
    lowering: str | None = None


def cases() -> list[Case]:
    """Every program the script runs, examples first."""
    found = [Case(cu.stem, cu) for cu in sorted((ROOT / "examples").glob("*.cu"))]
    corpus = [cu for d in ("barriers", "warp") for cu in sorted((PROGRAMS / d).glob("*.cu"))]
    found += [Case(f"{cu.parent.name}/{cu.stem}", cu) for cu in corpus]
    found += [Case(f"fallback:{cu.parent.name}/{cu.stem}", cu, "fallback") for cu in corpus]
    return found


def missing_tools() -> list[str]:
    """What is not installed among the cross compilers, qemu-user and the aarch64 libgomp (empty: all are)."""
    missing = [tool for tool in (CROSS_CXX, CROSS_CC, QEMU) if shutil.which(tool) is None]
    if not (SYSROOT / "lib" / "libgomp.so.1").exists():
        missing.append(f"{SYSROOT}/lib/libgomp.so.1 (libgomp1-arm64-cross)")
    return missing


def cross_env() -> dict[str, str]:
    """The environment cuda2cpu builds for aarch64 in (its compilers and this checkout's modules)."""
    return dict(os.environ, CXX=CROSS_CXX, CC=CROSS_CC, PYTHONPATH=str(ROOT))


def build(case: Case, workdir: Path) -> tuple[Path | None, str]:
    """Cross-build ``case`` into ``workdir``: (the executable, "") or (None, why not)."""
    exe = workdir / case.name.replace("/", "_").replace(":", "_")
    cmd = [sys.executable, "-m", "transpiler.cli", str(case.source), "-o", str(exe), "-O2"]
    if case.lowering:
        cmd.append(f"--lowering={case.lowering}")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=cross_env(), timeout=600)
    except subprocess.TimeoutExpired:
        return None, "cuda2cpu took more than 600 s"
    if done.returncode != 0:
        return None, f"cuda2cpu exited {done.returncode}: {done.stderr.strip()[-2000:]}"
    return exe, ""


def run(exe: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run an aarch64 executable under qemu-user with the cross sysroot and two OpenMP threads."""
    env = dict(os.environ, OMP_NUM_THREADS="2")
    return subprocess.run([QEMU, "-L", str(SYSROOT), str(exe)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def check(case: Case, workdir: Path) -> str:
    """Build and run ``case``: "" if it printed PASS and exited 0, else why not."""
    exe, why = build(case, workdir)
    if exe is None:
        return why
    try:
        done = run(exe)
    except subprocess.TimeoutExpired:
        return "ran more than 300 s under qemu"
    if done.returncode != 0 or done.stdout.strip() != "PASS":
        return f"exit {done.returncode}: {(done.stdout + done.stderr).strip()[-2000:]}"
    return ""


def selected_cases(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[Case] | None:
    """The programs ``args.names`` asks for (all by default); None after printing them for --list."""
    selected = cases()
    if args.list:
        print("\n".join(c.name for c in selected))
        return None
    if args.names:
        unknown = set(args.names) - {c.name for c in selected}
        if unknown:
            parser.error(f"no such program: {', '.join(sorted(unknown))} (see --list)")
        selected = [c for c in selected if c.name in args.names]
    return selected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.cross_aarch64", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="programs to run (default: all; see --list)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="programs built and run at once (default 2)")
    parser.add_argument("--list", action="store_true", help="print the programs' names and exit")
    args = parser.parse_args(argv)
    selected = selected_cases(parser, args)
    if selected is None:
        return 0
    missing = missing_tools()
    if missing:
        print(f"cannot cross-build for aarch64: missing {', '.join(missing)} "
              "(apt-get install g++-aarch64-linux-gnu qemu-user)", file=sys.stderr)
        return 2
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cross_aarch64-") as tmp:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for case, why in zip(selected, pool.map(lambda c: check(c, Path(tmp)), selected)):
                print(f"PASS {case.name}" if not why else f"FAIL {case.name}: {why}", flush=True)
                failed += bool(why)
    print(f"{len(selected) - failed} passed, {failed} failed (aarch64 under {QEMU})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
