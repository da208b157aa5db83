"""Device code sees ``__CUDA_ARCH__``, as nvcc's device compilation does.

nvcc compiles a ``.cu`` file twice: host code without ``__CUDA_ARCH__``, device code with it (the
target's compute capability times 100).  cuda2cpu parses once, as the host pass, so a kernel or
``__device__`` function body written under ``#if __CUDA_ARCH__ >= 700`` (how cuda-samples gate a
kernel on a feature) would lose that body, and an ``#ifdef __CUDA_ARCH__`` in one would take the
host branch: a translation that builds and computes something else.

So the conditional directives inside the definitions of device-only functions (``__global__``, and
``__device__`` without ``__host__``) are rewritten to what the device pass sees (``__CUDA_ARCH__``
is ``TranslateOptions.device_arch``: the image of the ``-arch``/``-gencode`` targets a 7.0 device
runs, MocCUDA's device, else 700), and the file is parsed again.  Each rewrite keeps the line's length, so every offset and
location of the file stays as written.  Host code, ``__host__ __device__`` functions and
directives at namespace scope keep the host pass's view (``#if !defined(__CUDA_ARCH__)`` around a
fallback ``atomicAdd(double*, double)`` is such a directive: MocCUDA provides the function).

Before (inside a kernel)::

    #if __CUDA_ARCH__ >= 700
    #ifdef __CUDA_ARCH__
    #if !defined(__CUDA_ARCH__)

After (same lengths)::

    #if 700           >= 700
    #if 1
    #if !1
"""

from __future__ import annotations

import re
from pathlib import Path

import clang.cindex as ci

K = ci.CursorKind

_SCOPES = (K.NAMESPACE, K.LINKAGE_SPEC, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
           K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.UNEXPOSED_DECL)
_FUNCTIONS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR)

#: A conditional directive (with its continuation lines) that names __CUDA_ARCH__.
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b(?:[^\n]*\\\n)*[^\n]*", re.M)
_IFDEF = re.compile(rb"#([ \t]*)ifdef([ \t]+)__CUDA_ARCH__\b")
_IFNDEF = re.compile(rb"#([ \t]*)ifndef([ \t]+)__CUDA_ARCH__\b")
_DEFINED = re.compile(rb"\bdefined[ \t]*(?:\([ \t]*__CUDA_ARCH__[ \t]*\)|[ \t]+__CUDA_ARCH__\b)")
_NAME = re.compile(rb"\b__CUDA_ARCH__\b")
#: In code: the name, or what to leave alone (comments, string and character literals).
_CODE_NAME = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\b__CUDA_ARCH__\b', re.S)


def _padded(replacement: bytes, original: bytes) -> bytes:
    return replacement + b" " * (len(original) - len(replacement))


def device_view(directive: bytes, arch: int) -> bytes:
    """One conditional directive as the device pass for ``arch`` reads it, the same length."""
    directive = _IFDEF.sub(lambda m: _padded(b"#" + m.group(1) + b"if" + m.group(2) + b"1", m.group(0)), directive)
    directive = _IFNDEF.sub(lambda m: _padded(b"#" + m.group(1) + b"if" + m.group(2) + b"0", m.group(0)), directive)
    directive = _DEFINED.sub(lambda m: _padded(b"1", m.group(0)), directive)
    return _NAME.sub(lambda m: _padded(str(arch).encode(), m.group(0)), directive)


def _is_device_only(function: ci.Cursor) -> bool:
    attrs = {c.kind for c in function.get_children()}
    return K.CUDAGLOBAL_ATTR in attrs or (K.CUDADEVICE_ATTR in attrs and K.CUDAHOST_ATTR not in attrs)


def device_function_extents(tu: ci.TranslationUnit) -> dict[str, list[tuple[int, int]]]:
    """The byte ranges of device-only function definitions outside system headers, by file."""
    extents: dict[str, list[tuple[int, int]]] = {}
    pending = [tu.cursor]
    while pending:  # declarations only: function bodies are not entered
        scope = pending.pop()
        for c in scope.get_children():
            if c.location.is_in_system_header or c.location.file is None:
                continue
            if c.kind in _SCOPES:
                pending.append(c)
            elif c.kind in _FUNCTIONS and c.is_definition() and _is_device_only(c):
                start, end = c.extent.start, c.extent.end
                extents.setdefault(start.file.name, []).append((start.offset, end.offset))
    return extents


def rewrite(text: bytes, ranges: list[tuple[int, int]], arch: int) -> bytes:
    """``text`` with ``__CUDA_ARCH__`` inside ``ranges`` as the device pass reads it: in the
    conditional directives, and as a value in code."""
    out = bytearray(text)
    for start, end in ranges:
        for m in _CODE_NAME.finditer(text, start, end):
            if m.group(0) == b"__CUDA_ARCH__":
                out[m.start():m.end()] = _padded(str(arch).encode(), m.group(0))
        for m in _DIRECTIVE.finditer(text, start, end):
            if b"__CUDA_ARCH__" in m.group(0):
                out[m.start():m.end()] = device_view(m.group(0), arch)
    return bytes(out)


def device_views(tu: ci.TranslationUnit, texts: dict[str, bytes], arch: int) -> dict[str, bytes]:
    """The files whose device-only functions test ``__CUDA_ARCH__``, each as the parse must read it
    (empty when none does: the host pass's parse stands).  ``texts`` holds the files already
    changed for the parse (the others are read as written)."""
    views: dict[str, bytes] = {}
    for name, ranges in device_function_extents(tu).items():
        text = texts[name] if name in texts else Path(name).read_bytes()
        if b"__CUDA_ARCH__" not in text:
            continue
        changed = rewrite(text, ranges, arch)
        if changed != text:
            views[name] = changed
    return views
