"""Build and run the examples and the barrier and warp programs with another Debian's toolchain,
in a chroot: Debian 13 (trixie: g++ 14, glibc 2.41) by default.

``python -m tests.debian_chroot ROOT [--create] [--suite trixie] [--jobs N] [NAME ...]`` (as root).
``--create`` first makes ROOT with ``debootstrap --variant=minbase --include=g++,libgomp1 SUITE
ROOT http://deb.debian.org/debian``.  cuda2cpu itself (Python and libclang) runs on this machine;
the host compiler it calls is the chroot's: ``CXX``, ``CC`` and ``AR`` are wrappers that run
``chroot ROOT g++ ...``, with this checkout, the MocCUDA cache (a directory of its own: the
library is keyed on the compiler's version) and the build directory bind-mounted into ROOT at
the same paths, so MocCUDA's runtime library and every program are compiled and linked by the
chroot's g++ against its glibc and libstdc++, and run there (``chroot ROOT ./program``,
``OMP_NUM_THREADS=2``).  One line per program: ``PASS name`` or ``FAIL name: why``; exit status 1
if any failed, 2 if the chroot cannot be used.  The programs are those of tests/cross_aarch64.py
(``--list`` names them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.cross_aarch64 import ROOT, Case, cases, selected_cases

DEBIAN_MIRROR = "http://deb.debian.org/debian"


def create(root: Path, suite: str) -> None:
    """debootstrap a minimal ``suite`` with g++ and libgomp into ``root``."""
    subprocess.run(["debootstrap", "--variant=minbase", "--include=g++,libgomp1", suite, str(root), DEBIAN_MIRROR],
                   check=True)


def _wrappers(root: Path, bindir: Path) -> dict[str, str]:
    """g++, gcc and ar scripts in ``bindir`` that run the chroot's, in the current directory."""
    env = {}
    for variable, tool in (("CXX", "g++"), ("CC", "gcc"), ("AR", "ar")):
        script = bindir / tool
        script.write_text(f'#!/bin/sh\nexec chroot {root} /bin/sh -c \'cd "$0" && exec {tool} "$@"\' "$PWD" "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        env[variable] = str(script)
    return env


def _bind(root: Path, path: Path, mounted: list[Path]) -> None:
    inside = root / str(path).lstrip("/")
    inside.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "--bind", str(path), str(inside)], check=True)
    mounted.append(inside)


def check(case: Case, root: Path, workdir: Path, env: dict[str, str]) -> str:
    """Build ``case`` with the chroot's compiler and run it there: "" if it printed PASS, else why not."""
    exe = workdir / case.name.replace("/", "_").replace(":", "_")
    cmd = [sys.executable, "-m", "transpiler.cli", str(case.source), "-o", str(exe), "-O2"]
    if case.lowering:
        cmd.append(f"--lowering={case.lowering}")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, cwd=workdir)
        if done.returncode != 0:
            return f"cuda2cpu exited {done.returncode}: {done.stderr.strip()[-2000:]}"
        ran = subprocess.run(["chroot", str(root), str(exe)], capture_output=True, text=True, timeout=300,
                             env=dict(env, OMP_NUM_THREADS="2"))
    except subprocess.TimeoutExpired as exc:
        return f"took more than {exc.timeout} s"
    if ran.returncode != 0 or ran.stdout.strip() != "PASS":
        return f"exit {ran.returncode}: {(ran.stdout + ran.stderr).strip()[-2000:]}"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.debian_chroot", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the chroot (made by --create)")
    parser.add_argument("names", nargs="*", help="programs to run (default: all; see --list)")
    parser.add_argument("--create", action="store_true", help="debootstrap ROOT first")
    parser.add_argument("--suite", default="trixie", help="the Debian release --create installs (default trixie)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="programs built and run at once (default 2)")
    parser.add_argument("--list", action="store_true", help="print the programs' names and exit")
    args = parser.parse_args(argv)
    selected = selected_cases(parser, args)
    if selected is None:
        return 0
    root = args.root.resolve()
    if os.geteuid() != 0 or shutil.which("chroot") is None:
        print("the chroot needs root (chroot, mount --bind)", file=sys.stderr)
        return 2
    if args.create:
        create(root, args.suite)
    if not (root / "usr" / "bin" / "g++").exists():
        print(f"{root} has no g++: make it with --create", file=sys.stderr)
        return 2
    version = subprocess.run(["chroot", str(root), "g++", "--version"], capture_output=True, text=True).stdout
    libc = subprocess.run(["chroot", str(root), "ldd", "--version"], capture_output=True, text=True).stdout
    print(f"# {version.splitlines()[0] if version else '?'}; {libc.splitlines()[0] if libc else '?'}")
    failed = 0
    mounted: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="debian_chroot-") as tmp:
        tmp_path = Path(tmp)
        work, cache, bindir = tmp_path / "work", tmp_path / "cache", tmp_path / "bin"
        for d in (work, cache, bindir):
            d.mkdir()
        try:
            for path in (Path("/proc"), Path("/dev"), ROOT, tmp_path):
                _bind(root, path, mounted)
            env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(work), MOCCUDA_CACHE_DIR=str(cache),
                       **_wrappers(root, bindir))
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                results = pool.map(lambda c: check(c, root, work, env), selected)
                for case, why in zip(selected, results):
                    print(f"PASS {case.name}" if not why else f"FAIL {case.name}: {why}", flush=True)
                    failed += bool(why)
        finally:
            for inside in reversed(mounted):
                subprocess.run(["umount", str(inside)])
    print(f"{len(selected) - failed} passed, {failed} failed (chroot {root})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
