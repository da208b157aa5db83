"""Translate one ``.cu`` source of a PyTorch extension into C++ that PyTorch's CPU build compiles.

The front end reads PyTorch's headers as system headers (``-isystem``: the translator never looks
inside them), after MocCUDA's ATen/c10 CUDA compat headers, which take the place of PyTorch's own
``ATen/cuda``, ``c10/cuda`` and ``THC`` headers.  Host-side CUDA device checks are rewritten to
accept CPU tensors (``TranslateOptions.torch_host``, reported in ``explain["host_rewrites"]``).

Parsing PyTorch's headers in CUDA mode is most of the time of a translation: about 16 s of CPU
for ``ATen/ATen.h`` and 36 s for ``torch/extension.h`` (benchmarks/torch_parse.py,
docs/PERFORMANCE.md), hence the cache below.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from moccuda import build as moccuda_build
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

#: MocCUDA's ATen/c10/THC CUDA headers for PyTorch extensions (only on torch builds' paths).
COMPAT_INCLUDE_DIR = moccuda_build.INCLUDE_DIR / "torch_compat"
ROOT = Path(__file__).resolve().parent.parent.parent
#: The packages whose files make up the translator (a change to any invalidates translations).
TRANSLATOR_PACKAGES = ("transpiler", "cuda_front", "barrier", "openmp_emit", "moccuda/include", "moccuda/torch")
#: The C++ standard PyTorch 2.13's cpp_extension compiles with.
CXX_STANDARD = "c++20"


class TorchTranslationError(RuntimeError):
    """A ``.cu`` source could not be translated; the message holds cuda2cpu's located diagnostics
    (``file:line:col: error: ...``)."""


@dataclass(frozen=True)
class CudaFlags:
    """What of an extension's nvcc flags (``extra_cuda_cflags``) means something on the CPU."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()


def split_cuda_flags(flags: list[str] | None) -> CudaFlags:
    """``-I``, ``-D``, ``-U`` are kept (joined or separate forms); nvcc's code generation and
    optimization flags (``-O3``, ``--use_fast_math``, ``-gencode``, ``-Xcompiler``...) are ignored,
    as ``cuda2cpu`` ignores them."""
    include_dirs, defines, undefines, ignored = [], [], [], []
    items = list(flags or [])
    i = 0
    while i < len(items):
        flag = items[i]
        for prefix, target in (("-I", include_dirs), ("-D", defines), ("-U", undefines)):
            if flag.startswith(prefix):
                if flag == prefix and i + 1 < len(items):
                    i += 1
                    target.append(items[i])
                else:
                    target.append(flag[len(prefix):])
                break
        else:
            ignored.append(flag)
        i += 1
    return CudaFlags(tuple(include_dirs), tuple(defines), tuple(undefines), tuple(ignored))


def torch_include_dirs() -> list[str]:
    """PyTorch's include directories and Python's (``torch/extension.h`` includes ``Python.h``)."""
    from torch.utils.cpp_extension import include_paths

    return [*include_paths(), sysconfig.get_paths()["include"]]


def translation_options(name: str, include_dirs: list[str], cuda: CudaFlags) -> TranslateOptions:
    """How a ``.cu`` of extension ``name`` is parsed: as PyTorch compiles its sources (C++20, its
    macros), the compat headers and PyTorch's as system headers, the host-check rewrite on."""
    # The macros PyTorch's cpp_extension defines for every source of an extension.
    defines = ("TORCH_API_INCLUDE_EXTENSION_H", f"TORCH_EXTENSION_NAME={name}", *cuda.defines)
    return TranslateOptions(include_dirs=tuple(include_dirs) + cuda.include_dirs, defines=defines,
                            undefines=cuda.undefines, std=CXX_STANDARD,
                            system_include_dirs=(str(COMPAT_INCLUDE_DIR), *torch_include_dirs()), torch_host=True)


def _sha256(path: str | os.PathLike) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@functools.lru_cache(maxsize=1)
def _translator_digest() -> str:
    """A hash of cuda2cpu itself: its Python sources and the headers it parses with."""
    digest = hashlib.sha256()
    for package in TRANSLATOR_PACKAGES:
        for path in sorted(p for p in (ROOT / package).rglob("*") if p.is_file() and p.suffix in (".py", ".h", ".cuh", ".j2")):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _cached(manifest: Path, key: str) -> dict | None:
    """The manifest of an earlier translation with this key whose every input is unchanged."""
    try:
        recorded = json.loads(manifest.read_text())
        if recorded["key"] != key:
            return None
        for path, sha in recorded["inputs"].items():
            if _sha256(path) != sha:
                return None
        return recorded
    except (OSError, ValueError, KeyError):
        return None


def translate_source(source: str | os.PathLike, out_dir: Path, options: TranslateOptions, verbose: bool = False) -> Path:
    """Translate ``source`` into ``out_dir/<name>.cpp`` and return its path.

    A translation is reused while cuda2cpu, the options and every file the front end read (the
    source and all it includes, PyTorch's headers too, by content) are unchanged: parsing PyTorch's
    headers is the slow part.  The text is written only when it changed, so PyTorch's build does
    not recompile an unchanged translation."""
    source = Path(source).resolve()
    target = out_dir / (source.name + ".cpp")
    manifest = out_dir / (source.name + ".manifest.json")
    key = hashlib.sha256(f"{_translator_digest()}\n{options!r}\n{source}".encode()).hexdigest()
    recorded = _cached(manifest, key) if target.exists() else None
    if recorded is not None:
        if verbose:
            _report(recorded["host_rewrites"], [])
            print(f"cuda2cpu: {target} is up to date")
        return target
    try:
        result = translate_file(source, options)
    except CompileError as exc:
        raise TorchTranslationError(f"cuda2cpu could not translate {source}:\n{exc}") from None
    # The -D of extra_cuda_cflags apply to the .cu only, as nvcc would apply them.
    cuda_defines = [d for d in options.defines if not d.startswith(("TORCH_API_INCLUDE_EXTENSION_H", "TORCH_EXTENSION_NAME="))]
    prologue = "".join(f"#define {d.replace('=', ' ', 1)}\n" if "=" in d else f"#define {d} 1\n" for d in cuda_defines)
    prologue += "".join(f"#undef {u}\n" for u in options.undefines)
    # The source's own directory and those of inlined user headers, for their quoted includes.
    includes = list(dict.fromkeys([str(source.resolve().parent), *result.include_dirs]))
    text = prologue + result.source
    out_dir.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_text(errors="surrogateescape") != text:
        target.write_text(text, errors="surrogateescape")  # bytes of the .cu that are not UTF-8, as they were
    (out_dir / (source.name + ".includes")).write_text("\n".join(includes) + "\n")
    host_rewrites = result.explain.get("host_rewrites", [])
    inputs = {str(source): _sha256(source)}
    inputs.update((path, _sha256(path)) for path in result.included_files if os.path.isfile(path))
    manifest.write_text(json.dumps({"key": key, "inputs": inputs, "host_rewrites": host_rewrites}))
    if verbose:
        _report(host_rewrites, result.warnings)
        print(f"cuda2cpu: translated {source} -> {target}")
    return target


def _report(host_rewrites: list[dict], warnings: list) -> None:
    for w in warnings:
        print(f"cuda2cpu: {w}")
    for r in host_rewrites:
        print(f"cuda2cpu: {r['file']}:{r['line']}:{r['column']}: host check rewritten for CPU tensors: "
              f"{r['from']} -> {r['to']}")


def translated_include_dirs(target: Path) -> list[str]:
    """The include directories the translation of ``target`` needs (written beside it)."""
    listing = target.with_suffix(".includes")
    return [line for line in listing.read_text().splitlines() if line] if listing.exists() else []


def include_dirs(extra: list[str]) -> list[str]:
    """The include directories of every C++ source of a translated extension, to be searched
    before PyTorch's: the compat headers, MocCUDA's headers, then ``extra``."""
    return [str(COMPAT_INCLUDE_DIR), str(moccuda_build.include_dir()), *extra]


def compile_flags(extra: list[str]) -> list[str]:
    """OpenMP, what a translation needs (``moccuda.build.TRANSLATION_COMPILE_FLAGS``) and
    :func:`include_dirs` as flags (``load`` passes PyTorch's directories after them, as ``-isystem``)."""
    return ["-fopenmp", *moccuda_build.TRANSLATION_COMPILE_FLAGS, *[f"-I{d}" for d in include_dirs(extra)]]


def link_flags() -> list[str]:
    """MocCUDA's static library (position-independent) and OpenMP."""
    return [str(moccuda_build.build("static")), "-fopenmp", "-pthread"]
