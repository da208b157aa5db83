"""Parse a ``.cu`` file with libclang in CUDA mode, independent of any installed CUDA toolkit.

The front end passes ``-nocudainc -nocudalib`` so clang never looks for a toolkit, and supplies
instead (1) MocCUDA's headers, whose ``cuda_runtime.h`` declares the CUDA language pieces when
``__CUDA2CPU_PARSE__`` is defined, and (2) a few freestanding headers (``stddef.h``, ...) that the
libclang wheel lacks because it ships no clang resource directory.  The user's ``-I -D -U
-include -std`` come after ours, as nvcc would apply them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

from cuda_front import clang_ext  # noqa: F401  (reads source that is not UTF-8: see clang_ext)
from transpiler.diagnostics import CompileError, Diagnostic, SourceLoc
from transpiler.options import TranslateOptions

FRONT_INCLUDE_DIR = Path(__file__).resolve().parent / "include"
MOCCUDA_INCLUDE_DIR = Path(__file__).resolve().parent.parent / "moccuda" / "include"

#: Largest source file the front end accepts; bigger inputs are refused before parsing.
MAX_SOURCE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class ParsedUnit:
    path: Path
    tu: ci.TranslationUnit
    text: bytes  # the main file's bytes, as libclang's offsets count them


def clang_arguments(options: TranslateOptions) -> list[str]:
    args = [
        "-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70",
        "-Wno-unknown-cuda-version", "-D__CUDA2CPU_PARSE__", "-D__CUDACC__", "-D__NVCC__",
        f"-std={options.std or 'c++17'}",
        "-isystem", str(FRONT_INCLUDE_DIR),
        "-isystem", str(MOCCUDA_INCLUDE_DIR),
    ]
    for d in options.include_dirs:
        args += ["-I", d]
    for d in options.system_include_dirs:
        args += ["-isystem", d]
    for d in options.defines:
        args.append(f"-D{d}")
    for u in options.undefines:
        args.append(f"-U{u}")
    args += ["-include", "cuda_runtime.h"]
    for f in options.pre_includes:
        args += ["-include", f]
    return args


def _loc(location: ci.SourceLocation) -> SourceLoc:
    name = location.file.name if location.file else "<command line>"
    return SourceLoc(name, location.line, location.column)


def check_source_file(path: Path) -> bytes:
    """Read the input, refusing what cannot be CUDA source before libclang sees it."""
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise CompileError([Diagnostic("error", SourceLoc(str(path), 0, 0),
                                           f"{path}: input is {size} bytes; the limit is {MAX_SOURCE_BYTES}")])
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise CompileError([Diagnostic("error", SourceLoc(str(path), 0, 0),
                                       f"cannot read '{path}': {exc.strerror}")]) from None
    if b"\0" in data:
        raise CompileError([Diagnostic("error", SourceLoc(str(path), 0, 0),
                                       f"{path}: input is binary, not CUDA source")])
    return data


def parse_file(path: str | os.PathLike, options: TranslateOptions) -> ParsedUnit:
    """Parse ``path``; raise :class:`CompileError` with clang's messages on any error."""
    path = Path(path)
    text = check_source_file(path)
    index = ci.Index.create()
    flags = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    try:
        tu = index.parse(str(path), args=clang_arguments(options), options=flags)
    except ci.TranslationUnitLoadError as exc:
        raise CompileError([Diagnostic("error", SourceLoc(str(path), 0, 0),
                                       f"libclang could not parse '{path}': {exc}")]) from None
    errors = [
        Diagnostic("error", _loc(d.location), d.spelling)
        for d in tu.diagnostics
        if d.severity >= ci.Diagnostic.Error
    ]
    if errors:
        raise CompileError(errors)
    return ParsedUnit(path, tu, text)
