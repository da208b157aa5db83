"""Helpers shared by the tests: translate a .cu file, build it with g++ and MocCUDA, run it."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from foundation.options import TranslateOptions
from transpiler.translate import translate_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PROGRAMS = ROOT / "tests" / "programs"
CXX = os.environ.get("CXX", "g++")


def moccuda_compile_flags() -> list[str]:
    from moccuda import build

    return [*build.TRANSLATION_COMPILE_FLAGS, f"-I{build.include_dir()}"]


def moccuda_link_flags() -> list[str]:
    from moccuda import build

    return build.link_flags()


#: The first lines of every translation (openmp_emit's translation_unit.cpp.j2), after its comments:
#: what the precompiled header below stands for.
TRANSLATION_START = re.compile(r"(?://[^\n]*\n)*#ifndef __CUDACC__\n#define __CUDACC__ 1(?:  //[^\n]*)?\n#endif\n"
                               r"#include <cuda_runtime\.h>\n")
PRELUDE = "#ifndef __CUDACC__\n#define __CUDACC__ 1\n#endif\n#include <cuda_runtime.h>\n"
#: Compiler flags (besides the fixed ones) under which a precompiled prelude can be used: other
#: flags (dumps, -fopt-info, ...) compile as they are.
_PCH_FLAG = re.compile(r"-I\S+|-Werror|-std=c\+\+\d+|-O[0-3s]")
_pch_dir: Path | None = None
_pch_uses: dict[tuple[str, ...], int] = {}
_pch_built: dict[tuple[str, ...], Path | None] = {}


def _precompiled_prelude(flags: tuple[str, ...]) -> Path | None:
    """A prelude header whose GCC precompiled header was built with exactly ``flags``, or None.

    MocCUDA's headers are most of what g++ reads for a small translated program; building the
    tests' programs through one precompiled header per set of flags (per worker process, from the
    second compile with those flags on) saves about 0.4 s of CPU a compile.  g++ checks that a
    .gch fits the compile and else reads the header itself, and a prelude whose build printed
    anything (a warning under these flags) is not used: the test compiles then show it."""
    global _pch_dir
    _pch_uses[flags] = _pch_uses.get(flags, 0) + 1
    if flags in _pch_built or _pch_uses[flags] < 2:
        return _pch_built.get(flags)
    if _pch_dir is None:
        _pch_dir = Path(tempfile.mkdtemp(prefix="cuda2cpu-tests-pch-"))
        atexit.register(shutil.rmtree, _pch_dir, True)
    header = _pch_dir / f"prelude{len(_pch_built)}.h"
    header.write_text(PRELUDE)
    built = subprocess.run([CXX, *flags, "-x", "c++-header", str(header), "-o", f"{header}.gch"], capture_output=True,
                           text=True)
    _pch_built[flags] = header if built.returncode == 0 and not (built.stdout + built.stderr).strip() else None
    return _pch_built[flags]


def compile_cpp(cpp: Path, exe: Path, extra: list[str] | None = None, opt: str = "-O1") -> subprocess.CompletedProcess:
    flags = ["-std=c++17", "-fopenmp", opt, "-Wall", *moccuda_compile_flags(), *(extra or [])]
    # A translation starts with the prelude (whose own #include is then a no-op: include guard).
    if all(_PCH_FLAG.fullmatch(f) for f in [opt, *(extra or [])]) and TRANSLATION_START.match(Path(cpp).read_text(errors="surrogateescape")):
        prelude = _precompiled_prelude(tuple(flags))
        if prelude is not None:
            flags += ["-include", str(prelude)]
    cmd = [CXX, *flags, str(cpp), "-o", str(exe), *moccuda_link_flags()]
    return subprocess.run(cmd, capture_output=True, text=True)


def translate_build_run(cu: Path, workdir: Path, options: TranslateOptions | None = None,
                        args: tuple[str, ...] = (), threads: int = 2, timeout: float = 60):
    """Translate ``cu``, compile with -Wall, run; return (translation result, completed run).

    Fails the calling test with the compiler's message when the translated code does not build.
    """
    return build_run(translate_file(cu, options or TranslateOptions()), cu, workdir, args, threads, timeout)


def build_run(result, cu: Path, workdir: Path, args: tuple[str, ...] = (), threads: int = 2, timeout: float = 60):
    """:func:`translate_build_run` for a translation ``result`` of ``cu`` already made."""
    cpp = workdir / (cu.stem + ".cpp")
    cpp.write_bytes(result.source_bytes())
    exe = workdir / cu.stem
    extra = [f"-I{d}" for d in result.include_dirs]
    built = compile_cpp(cpp, exe, extra)
    assert built.returncode == 0, f"g++ failed on the translation of {cu}:\n{built.stderr[-4000:]}"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout, env=env)
    return result, run, built


def assert_passes_per_schedule(cu: Path, workdir: Path, schedules: tuple[str, ...], threads: tuple[int, ...] = (1, 3)):
    """Translate ``cu`` under each of ``schedules``, build it at -O3 with -Werror, and check that
    it prints PASS with each of ``threads`` OpenMP threads; the translations, by schedule."""
    results = {}
    for schedule in schedules:
        result = results[schedule] = translate_file(cu, TranslateOptions(schedule=schedule))
        cpp = workdir / f"{cu.stem}_{schedule}.cpp"
        cpp.write_text(result.source)
        exe = workdir / f"{cu.stem}_{schedule}"
        built = compile_cpp(cpp, exe, ["-Werror"], opt="-O3")
        assert built.returncode == 0, built.stderr[-3000:]
        for count in threads:
            run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                                 env=dict(os.environ, OMP_NUM_THREADS=str(count)))
            assert run.returncode == 0 and run.stdout.strip() == "PASS", (schedule, count, run.stdout + run.stderr)
    return results


#: The thread count of the corpus's second run: more OpenMP threads than the 2 cores of CI (and
#: than most blocks' warps), so blocks run truly concurrently and interleave at every barrier.
MANY_THREADS = 16


def run_built(cu: Path, workdir: Path, threads: int, args: tuple[str, ...] = (), timeout: float = 120):
    """Run once more, with ``threads`` OpenMP threads, the program :func:`build_run` built from ``cu``."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    return subprocess.run([str(workdir / cu.stem), *args], capture_output=True, text=True, timeout=timeout, env=env)


def run_cli(*args, cwd=None, env=None) -> subprocess.CompletedProcess:
    """Run ``cuda2cpu`` (from this checkout) with ``args``; ``env`` adds to the environment."""
    import sys

    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "transpiler.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=full_env)


def without_line_markers(source: str) -> str:
    """A translation without its #line directives, for tests that read the compiler's reports
    (-fopt-info, dumps) by the translated file's own line numbers."""
    return re.sub(r"^#line \d+ .*\n", "", source, flags=re.M)


def have(tool: str) -> bool:
    return shutil.which(tool) is not None
