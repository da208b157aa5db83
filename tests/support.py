"""Helpers shared by the tests: translate a .cu file, build it with g++ and MocCUDA, run it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from transpiler.options import TranslateOptions
from transpiler.translate import translate_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PROGRAMS = ROOT / "tests" / "programs"
CXX = os.environ.get("CXX", "g++")


def moccuda_compile_flags() -> list[str]:
    from moccuda import build

    return [f"-I{build.include_dir()}"]


def moccuda_link_flags() -> list[str]:
    from moccuda import build

    return build.link_flags()


def compile_cpp(cpp: Path, exe: Path, extra: list[str] | None = None, opt: str = "-O1") -> subprocess.CompletedProcess:
    cmd = [CXX, "-std=c++17", "-fopenmp", opt, "-Wall", *moccuda_compile_flags(), *(extra or []),
           str(cpp), "-o", str(exe), *moccuda_link_flags()]
    return subprocess.run(cmd, capture_output=True, text=True)


def translate_build_run(cu: Path, workdir: Path, options: TranslateOptions | None = None,
                        args: tuple[str, ...] = (), threads: int = 2, timeout: float = 60):
    """Translate ``cu``, compile with -Wall, run; return (translation result, completed run).

    Fails the calling test with the compiler's message when the translated code does not build.
    """
    result = translate_file(cu, options or TranslateOptions())
    cpp = workdir / (cu.stem + ".cpp")
    cpp.write_text(result.source)
    exe = workdir / cu.stem
    extra = [f"-I{d}" for d in result.include_dirs]
    built = compile_cpp(cpp, exe, extra)
    assert built.returncode == 0, f"g++ failed on the translation of {cu}:\n{built.stderr[-4000:]}"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout, env=env)
    return result, run, built


def run_cli(*args, cwd=None, env=None) -> subprocess.CompletedProcess:
    """Run ``cuda2cpu`` (from this checkout) with ``args``; ``env`` adds to the environment."""
    import sys

    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "transpiler.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=full_env)


def have(tool: str) -> bool:
    return shutil.which(tool) is not None
