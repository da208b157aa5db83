"""Build and find the MocCUDA library.

The library is compiled on first use (with ``$CXX``, else ``g++``) into a cache directory:
``$MOCCUDA_CACHE_DIR``, else ``$XDG_CACHE_HOME/cuda2cpu``, else ``~/.cache/cuda2cpu``, in a
subdirectory named by a hash of the sources and the compiler, so an edit or another compiler
gives a fresh build.  Builds happen in a temporary directory renamed into place, so concurrent
builds (parallel test workers, parallel make) never see a half-written library.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_DIR = PACKAGE_DIR / "src"


def include_dir() -> Path:
    return PACKAGE_DIR / "include"


def _compiler() -> str:
    return os.environ.get("CXX") or "g++"


def _cache_root() -> Path:
    if os.environ.get("MOCCUDA_CACHE_DIR"):
        return Path(os.environ["MOCCUDA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cuda2cpu"


def _sources() -> list[Path]:
    return sorted(SOURCE_DIR.glob("*.cpp"))


def library_dir() -> Path:
    digest = hashlib.sha256()
    digest.update(_compiler().encode())
    for path in _sources() + sorted(include_dir().glob("*.h")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return _cache_root() / f"moccuda-{digest.hexdigest()[:16]}"


def build(kind: str = "static") -> Path:
    """Return the path of ``libmoccuda.a`` (or ``.so`` for kind="shared"), building if needed."""
    target_dir = library_dir()
    name = "libmoccuda.a" if kind == "static" else "libmoccuda.so"
    target = target_dir / name
    if target.exists():
        return target
    target_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target_dir.parent) as tmp:
        tmp_path = Path(tmp)
        objects = []
        for src in _sources():
            obj = tmp_path / (src.stem + ".o")
            _run([_compiler(), "-std=c++17", "-O2", "-fPIC", "-pthread", f"-I{include_dir()}", "-c", str(src), "-o", str(obj)])
            objects.append(str(obj))
        if kind == "static":
            _run(["ar", "rcs", str(tmp_path / name), *objects])
        else:
            _run([_compiler(), "-shared", "-pthread", "-o", str(tmp_path / name), *objects])
        target_dir.mkdir(exist_ok=True)
        os.replace(tmp_path / name, target)  # atomic: readers see all or nothing
    return target


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building MocCUDA failed: {' '.join(cmd)}\n{done.stderr}")


def link_flags() -> list[str]:
    """What a program linking MocCUDA needs after its own objects."""
    return [str(build("static")), "-fopenmp", "-lm", "-pthread"]


__all__ = ["include_dir", "library_dir", "build", "link_flags"]
