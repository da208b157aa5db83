"""Parse a ``.cu`` file with libclang in CUDA mode, independent of any installed CUDA toolkit.

The front end passes ``-nocudainc -nocudalib`` so clang never looks for a toolkit, and supplies
instead (1) MocCUDA's headers, whose ``cuda_runtime.h`` declares the CUDA language pieces when
``__CUDA2CPU_PARSE__`` is defined, and (2) a few freestanding headers (``stddef.h``, ...) that the
libclang wheel lacks because it ships no clang resource directory.  The user's ``-I -D -U
-include -std`` come after ours, as nvcc would apply them.

Before parsing, :mod:`cuda_front.nesting` refuses source nested deeper than clang's parse can
take.  libclang is told (``LIBCLANG_NOTHREADS``) to parse on the calling thread rather than on a
helper thread of its own with an 8 MiB stack, so that the parse runs on the deep stack
``transpiler.deep_stack`` gives the translation.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

from cuda_front import clang_ext  # noqa: F401  (reads source that is not UTF-8, makes cursor visits safe: see clang_ext)
from cuda_front import device_arch_view, nesting
from cuda_front import template_keyword
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc
from foundation.options import TranslateOptions
from moccuda import build as moccuda_build

FRONT_INCLUDE_DIR = Path(__file__).resolve().parent / "include"
MOCCUDA_INCLUDE_DIR = Path(__file__).resolve().parent.parent / "moccuda" / "include"

#: The ``_OPENMP`` g++ defines for ``-fopenmp`` (OpenMP 4.5), which the parse defines when the
#: user's host flags ask for OpenMP (``TranslateOptions.host_openmp``).
HOST_OPENMP_VERSION = 201511

#: Largest source file the front end accepts; bigger inputs are refused before parsing.
MAX_SOURCE_BYTES = 8 * 1024 * 1024

os.environ["LIBCLANG_NOTHREADS"] = "1"  # read by libclang at each parse


@dataclass(frozen=True)
class TopLevelDecl:
    """A child of the translation unit's cursor, with where it is written."""
    cursor: ci.Cursor
    file: str | None  # None for what clang declares itself (no file)
    system: bool  # in a system header


@dataclass(frozen=True)
class ParsedUnit:
    path: Path
    tu: ci.TranslationUnit
    text: bytes  # the main file's bytes, as libclang's offsets count them
    #: Headers the parse read with changes (``template`` keywords inserted): their bytes, as
    #: libclang's offsets count them; the translation must carry these texts, not the files'.
    changed_headers: dict[str, bytes] = field(default_factory=dict)

    def source(self, name: str) -> bytes:
        """The bytes of a file of the unit as the parse read them."""
        if name == str(self.path):
            return self.text
        return self.changed_headers.get(name) or Path(name).read_bytes()

    @functools.cached_property
    def top_level(self) -> tuple[TopLevelDecl, ...]:
        """Every top-level declaration of the unit, located once.  The standard headers put
        thousands here (12,000 for ``<cstdio>``, ``<vector>`` and MocCUDA's header), and asking
        libclang for each one's file took about 0.1 s a time; the scans of the user's code share
        this list instead."""
        lib = ci.conf.lib
        names: dict[int, str] = {}  # file handle -> name: a few dozen files for all the declarations
        file = ci.c_object_p()
        decls = []
        for cursor in self.tu.cursor.get_children():
            location = lib.clang_getCursorLocation(cursor)
            lib.clang_getInstantiationLocation(location, ctypes.byref(file), None, None, None)
            if not file:
                decls.append(TopLevelDecl(cursor, None, False))
                continue
            handle = ctypes.cast(file, ctypes.c_void_p).value
            name = names.get(handle)
            if name is None:
                name = names[handle] = ci.File(file).name
            decls.append(TopLevelDecl(cursor, name, bool(lib.clang_Location_isInSystemHeader(location))))
        return tuple(decls)

    def user_top_level(self) -> list[ci.Cursor]:
        """The top-level declarations written in the user's files (not in system headers)."""
        return [d.cursor for d in self.top_level if d.file is not None and not d.system]


def clang_arguments(options: TranslateOptions) -> list[str]:
    args = [
        "-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70",
        "-Wno-unknown-cuda-version",
        # `"x = "FMT"\n"`: a string literal directly followed by a macro name, which C++11 lexes as
        # a user-defined literal.  nvcc's host compilers (g++: -Wliteral-suffix) take the name as
        # the macro, and so does clang with this error made a warning.
        "-Wno-reserved-user-defined-literal",
        # `const const T`, `extern extern int g;`: clang only warns, g++ rejects the host code
        # kept as written.
        "-Werror=duplicate-decl-specifier",
        "-D__CUDA2CPU_PARSE__", "-D__CUDACC__", "-D__NVCC__",
        # clang's CUDA host pass also defines the device target's macros, which nvcc defines in
        # neither pass: code under `#if defined(__PTX__)` (HeCBench's FlashInfer math.cuh) is
        # not what nvcc compiles, nor what g++ sees of the code kept as written.
        "-U__PTX__", "-U__NVPTX__",
        f"-std={options.std or 'c++17'}",
        "-isystem", str(FRONT_INCLUDE_DIR),
        "-isystem", str(MOCCUDA_INCLUDE_DIR),
        # Thrust, CUB, libcu++ and NVTX, searched last, and Thrust's device system: before the user's
        # -D, so that a THRUST_DEVICE_SYSTEM of theirs wins.
        *moccuda_build.header_library_flags(),
    ]
    for d in options.include_dirs:
        args += ["-I", d]
    for d in options.system_include_dirs:
        args += ["-isystem", d]
    for d in options.defines:
        args.append(f"-D{d}")
    if options.host_openmp:
        args.append(f"-D_OPENMP={HOST_OPENMP_VERSION}")
    for u in options.undefines:
        args.append(f"-U{u}")
    openmp = host_openmp_include_dir()
    if openmp:
        args += ["-idirafter", openmp]
    args += ["-include", "cuda_runtime.h"]
    for f in options.pre_includes:
        args += ["-include", f]
    return args


@functools.cache
def host_openmp_include_dir() -> str | None:
    """The directory of the host compiler's ``omp.h`` (g++ keeps it in its private include
    directory, which libclang does not search), or None.  A ``.cu`` that includes ``<omp.h>``
    is built with ``-fopenmp`` by cuda2cpu, so its parse must see the same header; it is searched
    last (``-idirafter``), after the front end's and the user's directories."""
    compiler = os.environ.get("CXX") or "g++"
    try:
        found = subprocess.run([compiler, "-print-file-name=include/omp.h"], capture_output=True, text=True,
                               timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return os.path.dirname(found) if os.path.isabs(found) and os.path.isfile(found) else None


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


#: What the scan of :func:`join_spaced_launch_brackets` skips over: comments, string and character
#: literals (with escapes), and raw strings up to their closing delimiter.
_SKIPPED = re.compile(rb'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                      re.S)
_SPACED_OPEN = re.compile(rb"<<(\s+)<")
_SPACED_CLOSE = re.compile(rb">>(\s+)>")


def join_spaced_launch_brackets(data: bytes) -> bytes:
    """``k << < grid, block >> > (args)``, which nvcc accepts, as ``k<<<  grid, block>>>  (args)``.

    clang lexes ``<<<`` only when its three characters touch.  The brackets are joined by moving
    the spaces after them, so every other byte keeps its offset (and every token its line).  A
    ``>> >`` is joined only as the closing bracket of a spaced ``<< <`` (``vector<vector<int>> >``
    stays as written)."""
    if not _SPACED_OPEN.search(data):
        return data
    out = bytearray(data)
    pos, open_end = 0, None
    for skipped in itertools.chain(_SKIPPED.finditer(data), [None]):
        stop = skipped.start() if skipped else len(data)
        while True:
            found = (_SPACED_OPEN if open_end is None else _SPACED_CLOSE).search(data, pos, stop)
            if found is None:
                break
            space = found.group(1)
            out[found.start():found.end()] = found.group(0)[:2] + found.group(0)[-1:] + space
            pos = found.end()
            open_end = found.end() if open_end is None else None
        pos = skipped.end() if skipped else len(data)
    return bytes(out)


def parse_file(path: str | os.PathLike, options: TranslateOptions) -> ParsedUnit:
    """Parse ``path``; raise :class:`CompileError` with clang's messages on any error.

    Where clang reports a dependent member template called without ``template``, which nvcc
    accepts (:mod:`cuda_front.template_keyword`), the keyword is inserted and the unit parsed
    again, until clang reports none that can be fixed so: each round inserts at least one keyword,
    at a place without one, so the rounds end.  Errors that remain are reported as the first
    parse gave them where they fall on a line that was changed."""
    path = Path(path)
    written = check_source_file(path)
    nesting.check(written, str(path))
    texts = {str(path): join_spaced_launch_brackets(written)}
    index = ci.Index.create()
    flags = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    changed: set[tuple[str, int]] = set()  # (file, line) of each inserted keyword
    first_errors = None
    # The first '#pragma omp' outside the system headers draws this warning (once): that is the
    # sign that the OpenMP check below is needed.
    arguments = clang_arguments(options) + ["-Wsource-uses-openmp"]
    while True:
        unsaved = [(name, texts[name]) for name in {str(path)} | {name for name, _ in changed}
                   if name != str(path) or texts[name] != written] or None
        tu = _parse(index, path, arguments, flags, unsaved)
        errors = errors_of(tu)
        if not errors:
            break
        first_errors = first_errors or _as_errors(errors)
        insertions = _missing_template_keywords(errors, texts)
        if not insertions:
            break
        for name, offsets in insertions.items():
            text = texts[name]
            changed.update((name, text.count(b"\n", 0, at) + 1) for at in offsets)
            texts[name] = template_keyword.insert_keywords(text, offsets)
    headers = {name: texts[name] for name, _ in changed if name != str(path)}
    text = texts[str(path)]
    read = {**headers, str(path): text}
    views = device_arch_view.device_views(
        tu, read, options.device_arch, lambda views: _parse(index, path, arguments, flags, list({**read, **views}.items())))
    if views:
        # Device code tests __CUDA_ARCH__: parse again with the directives that select it as nvcc's
        # device pass reads them (same offsets); a header so read is carried like a changed one.
        # Errors of the host pass's view in code that the device view replaces are gone with it.
        text = views.pop(str(path), text)
        headers.update(views)
        unsaved = [(str(path), text)] + list(headers.items())
        tu = _parse(index, path, arguments, flags, unsaved)
        errors = errors_of(tu)
        if errors:
            raise CompileError(_as_errors(errors))
    elif errors:
        if any((d.location.file.name if d.location.file else "", d.location.line) in changed for d in errors):
            raise CompileError(first_errors)
        raise CompileError(_as_errors(errors))
    if any(d.option == "-Wsource-uses-openmp" for d in tu.diagnostics):
        check_openmp_pragmas(index, path, options, unsaved)
    return ParsedUnit(path, tu, text, headers)


#: clang's check, in the host pass, of a call from a __host__ (__device__) function to a __device__
#: one: Thrust's algorithms are __host__ __device__ and call the user's functors, which CUDA code
#: often declares __device__ only (and lambdas __device__): on a GPU they run in device code.
_WRONG_SIDE_CALL = re.compile(r"reference to __device__ (function|variable) .* in __host__ (__device__ )?function")


def errors_of(tu: ci.TranslationUnit) -> list[ci.Diagnostic]:
    """The parse's errors, without clang's host-pass check of calls from the header libraries'
    (Thrust's) code to the user's ``__device__`` functions: the translation compiles that code as
    host code, where every device function is a host function too (g++ sees no __device__)."""
    libraries = moccuda_build.header_library_dirs()
    return [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error
            and not (_WRONG_SIDE_CALL.match(d.spelling) and d.location.file is not None
                     and any(Path(d.location.file.name).resolve().is_relative_to(lib) for lib in libraries))]


def _as_errors(diagnostics: list[ci.Diagnostic]) -> list[Diagnostic]:
    return [Diagnostic("error", _loc(d.location), d.spelling) for d in diagnostics]


def _missing_template_keywords(errors: list[ci.Diagnostic], texts: dict[str, bytes]) -> dict[str, set[int]]:
    """Where the ``template`` keywords that ``errors`` report missing go, by file (the files' texts
    are read into ``texts``); files of the front end and MocCUDA are not the user's to change."""
    found: dict[str, set[int]] = {}
    for d in errors:
        name = template_keyword.missing_name(d.spelling)
        if name is None or d.location.file is None:
            continue
        file = d.location.file.name
        if Path(file).resolve().is_relative_to(FRONT_INCLUDE_DIR) or Path(file).resolve().is_relative_to(
                MOCCUDA_INCLUDE_DIR):
            continue
        if file not in texts:
            texts[file] = Path(file).read_bytes()
        at = template_keyword.insertion_point(texts[file], d.location.offset, name)
        if at is not None:
            found.setdefault(file, set()).add(at)
    return found


def _parse(index: ci.Index, path: Path, args: list[str], flags: int, unsaved) -> ci.TranslationUnit:
    try:
        return index.parse(str(path), args=args, options=flags, unsaved_files=unsaved)
    except ci.TranslationUnitLoadError as exc:
        raise CompileError([Diagnostic("error", SourceLoc(str(path), 0, 0),
                                       f"libclang could not parse '{path}': {exc}")]) from None


def check_openmp_pragmas(index: ci.Index, path: Path, options: TranslateOptions, unsaved) -> None:
    """Parse once more with OpenMP on, and refuse what clang then rejects.

    The front end parses without ``-fopenmp``: clang would hide an OpenMP region's body from the
    cursor API (a captured statement shows only the variables it captures), and kernels and host
    code are read through that API.  So clang ignores ``#pragma omp`` there, while the translation,
    whose host code keeps its pragmas, is compiled with ``-fopenmp``: a malformed pragma
    (``reduction+( : sum)``) would pass the translation and fail in g++.  Errors in system headers
    are left to the compiler (the user cannot fix them, and the pragmas there are not ours to
    judge).  ``_OPENMP`` stays as the first parse had it (``TranslateOptions.host_openmp``), as it is
    in the translation: clang's ``-fopenmp`` would define it."""
    openmp = ["-fopenmp"] if options.host_openmp else ["-fopenmp", "-U_OPENMP"]
    tu = _parse(index, path, clang_arguments(options) + openmp, 0, unsaved)
    errors = [
        Diagnostic("error", _loc(d.location), f"{d.spelling} (with OpenMP on, as the translation is compiled)")
        for d in tu.diagnostics
        if d.severity >= ci.Diagnostic.Error and not d.location.is_in_system_header
    ]
    if errors:
        raise CompileError(errors)
