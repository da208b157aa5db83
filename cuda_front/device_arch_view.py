"""Device code sees ``__CUDA_ARCH__``, as nvcc's device compilation does.

nvcc compiles a ``.cu`` file twice: host code without ``__CUDA_ARCH__``, device code with it (the
target's compute capability times 100).  cuda2cpu parses once, as the host pass, so a kernel or
``__device__`` function body written under ``#if __CUDA_ARCH__ >= 700`` (how cuda-samples gate a
kernel on a feature) would lose that body, and an ``#ifdef __CUDA_ARCH__`` in one would take the
host branch: a translation that builds and computes something else.  A CPU translation must give
each function one view, the one nvcc compiles it in: device-only functions (``__global__``, and
``__device__`` without ``__host__``) the device pass's, host code and ``__host__ __device__``
functions the host pass's.

So the conditional directives that select device code are rewritten to what the device pass sees
(``__CUDA_ARCH__`` is ``TranslateOptions.device_arch``: the image of the ``-arch``/``-gencode``
targets a 7.0 device runs, MocCUDA's device, else 700), and the file is parsed again.  Each
rewrite keeps the line's length, so every offset and location of the file stays as written.  Two
kinds of directive select device code:

- those inside the definitions of device-only functions (and the name used as a value there);
- a conditional group outside function bodies (at namespace scope, in a header) whose conditions
  name ``__CUDA_ARCH__``, or a macro such a group defines, and whose branches, in both views, hold
  nothing host code depends on: only device-only functions (declared or defined, also inside a
  namespace), and macros used only in device-only functions and in such groups' conditions.  A
  ``__device__`` helper defined under ``#if __CUDA_ARCH__ >= 700`` (cuda-samples' simpleAWBarrier),
  or ``#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800`` defining the macro that device
  functions test to choose inline PTX (FlashInfer's cp_async.cuh) are such groups.  The branches'
  declarations are read from the host parse and from a parse with every such group in the device
  view.  A group host code depends on (a type, a variable, a ``__host__`` function, a macro used
  in host code, an ``#include``) keeps the host pass's view: then a device function under it sees
  the host's, as before, and what it selects that cannot be translated is clang's located error.

Before (inside a kernel, or a group of device functions)::

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

K = ci.CursorKind

_SCOPES = (K.NAMESPACE, K.LINKAGE_SPEC, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
           K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.UNEXPOSED_DECL)
#: The preprocessing record's cursors (macros are judged by their uses, not as declarations).
_PREPROCESSING = (K.MACRO_DEFINITION, K.MACRO_INSTANTIATION, K.INCLUSION_DIRECTIVE)
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


def _user_declarations(tu: ci.TranslationUnit) -> list[ci.Cursor]:
    """The top-level declarations outside system headers."""
    return [c for c in tu.cursor.get_children() if c.location.file is not None and not c.location.is_in_system_header]


def _definitions(declarations: list[ci.Cursor], device_only: bool) -> dict[str, list[tuple[int, int]]]:
    """The byte ranges of the function definitions among ``declarations`` and in their scopes
    (device-only ones, or all), by file; function bodies are not entered."""
    extents: dict[str, list[tuple[int, int]]] = {}
    pending = list(declarations)
    while pending:
        c = pending.pop()
        if c.location.file is None or c.location.is_in_system_header:
            continue
        if c.kind in _SCOPES:
            pending.extend(c.get_children())
        elif c.kind in _FUNCTIONS and c.is_definition() and (not device_only or _is_device_only(c)):
            start, end = c.extent.start, c.extent.end
            extents.setdefault(start.file.name, []).append((start.offset, end.offset))
    return extents


def device_function_extents(tu: ci.TranslationUnit) -> dict[str, list[tuple[int, int]]]:
    """The byte ranges of device-only function definitions outside system headers, by file."""
    return _definitions(_user_declarations(tu), device_only=True)


@dataclass(frozen=True)
class ConditionalGroup:
    """An ``#if``/``#ifdef``/``#ifndef`` ... ``#endif`` chain: where it stands in its file, its
    own ``#if``/``#elif`` lines (not those of groups nested in it), and the directives it holds."""
    file: str
    start: int  # offset of its opening directive
    end: int  # offset just past its #endif line
    conditions: tuple[tuple[int, int], ...]
    defines: frozenset[str]  # the macros it #defines or #undefs
    kinds: frozenset[bytes]  # the kinds of directive inside it (b"define", b"include", ...)

    def holds(self, file: str, start: int, end: int) -> bool:
        return file == self.file and self.start <= start and end <= self.end


#: What the directive scan skips (comments, literals) or finds (a directive, continuations included).
_SCAN = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                   rb'^[ \t]*#[ \t]*(\w*)(?:[^\n]*\\\n)*[^\n]*', re.S | re.M)
_DEFINED_NAME = re.compile(rb"#[ \t]*(?:define|undef)[ \t]+(\w+)")
#: The directives a group may hold and still take the device pass's view (#define and #undef are
#: judged by where their macros are used); any other (#include, #error) keeps the host's.
_NEUTRAL_DIRECTIVES = frozenset({b"if", b"ifdef", b"ifndef", b"elif", b"else", b"endif", b"define", b"undef",
                                 b"pragma", b"line", b""})


def conditional_groups(name: str, text: bytes) -> list[ConditionalGroup]:
    """Every conditional group of ``text``, outermost first."""
    groups = []
    # Per open group: its start, its condition lines, the macros and directive kinds inside it.
    open_groups: list[tuple[int, list[tuple[int, int]], set[str], set[bytes]]] = []
    for m in _SCAN.finditer(text):
        kind = m.group(1)
        if kind is None:
            continue
        for _, _, defines, kinds in open_groups:
            kinds.add(kind)
            defined = _DEFINED_NAME.search(m.group(0)) if kind in (b"define", b"undef") else None
            if defined is not None:  # (a #define without a name is clang's error to report)
                defines.add(defined.group(1).decode())
        if kind in (b"if", b"ifdef", b"ifndef"):
            open_groups.append((m.start(), [(m.start(), m.end())], set(), set()))
        elif kind == b"elif" and open_groups:
            open_groups[-1][1].append((m.start(), m.end()))
        elif kind == b"endif" and open_groups:
            start, conditions, defines, kinds = open_groups.pop()
            groups.append(ConditionalGroup(name, start, m.end(), tuple(conditions), frozenset(defines),
                                           frozenset(kinds)))
    return sorted(groups, key=lambda g: g.start)


def _inside(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s <= start and end <= e for s, e in ranges)


def _device_only_declarations(declarations: list[ci.Cursor], group: ConditionalGroup) -> bool:
    """Whether every declaration that ``group`` holds is a device-only function (also inside a
    namespace); the scopes that hold the group are entered."""
    pending = list(declarations)
    while pending:
        c = pending.pop()
        location = c.location
        if location.file is None or location.is_in_system_header or location.file.name != group.file \
                or c.kind in _PREPROCESSING:
            continue
        start, end = c.extent.start.offset, c.extent.end.offset
        if group.start <= start < group.end:
            if c.kind in _FUNCTIONS and _is_device_only(c):
                continue
            if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC):
                pending.extend(c.get_children())
                continue
            return False
        if c.kind in _SCOPES and start <= group.start and group.end <= end:
            pending.extend(c.get_children())
    return True


def _uses_outside(text: bytes, names: frozenset[str], allowed: list[tuple[int, int]]) -> bool:
    """Whether code or a directive of ``text`` names one of ``names`` outside the ``allowed`` ranges
    (comments and literals are not uses)."""
    pattern = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\b(?:'
                         + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\b", re.S)
    return any(m.group(0)[:1] not in (b"/", b'"', b"'") and not _inside(allowed, m.start(), m.end())
               for m in pattern.finditer(text))


def _user_files(tu: ci.TranslationUnit) -> list[str]:
    """The main file and the headers it includes outside system headers."""
    files = [tu.spelling]
    for inclusion in tu.get_includes():
        name = inclusion.include.name
        if name not in files and not tu.get_location(name, 0).is_in_system_header:
            files.append(name)
    return files


def _merge(*extents: dict[str, list[tuple[int, int]]]) -> dict[str, list[tuple[int, int]]]:
    merged: dict[str, list[tuple[int, int]]] = {}
    for by_file in extents:
        for name, ranges in by_file.items():
            merged.setdefault(name, []).extend(ranges)
    return merged


def _arch_groups(texts: dict[str, bytes], functions: dict[str, list[tuple[int, int]]]) -> list[ConditionalGroup]:
    """The groups outside function definitions whose conditions name ``__CUDA_ARCH__``, or a macro
    that such a group defines (until no group adds one)."""
    groups = [g for name, text in texts.items() for g in conditional_groups(name, text)
              if not any(s <= g.start and g.end <= e for s, e in functions.get(name, ()))]
    names = frozenset({"__CUDA_ARCH__"})
    while True:
        chosen = [g for g in groups if any(_uses_outside(texts[g.file][s:e], names, []) for s, e in g.conditions)]
        more = names.union(*(g.defines for g in chosen))
        if more == names:
            return chosen
        names = more


def _with_views(text: bytes, device_functions: list[tuple[int, int]], groups: list[ConditionalGroup],
                arch: int) -> bytes:
    """``text`` with the device-only functions' bodies and ``groups`` as the device pass reads them:
    their conditions, and ``__CUDA_ARCH__`` as a value in the code they hold (an enumerator
    ``SHM_BANKS = (__CUDA_ARCH__ >= 200) ? 32 : 16`` under ``#ifdef __CUDA_ARCH__``)."""
    return rewrite(text, device_functions + [(g.start, g.end) for g in groups], arch)


def device_views(tu: ci.TranslationUnit, texts: dict[str, bytes], arch: int,
                 parse: Callable[[dict[str, bytes]], ci.TranslationUnit]) -> dict[str, bytes]:
    """The files whose device code is selected by ``__CUDA_ARCH__``, each as the parse must read it
    (empty when none is: the host pass's parse stands).  ``texts`` holds the files already changed
    for the parse (the others are read as written); ``parse`` parses the unit with the given files
    read from the given texts, which it needs where groups outside functions name the name: their
    device branches' declarations are read from that parse."""
    files = {name: texts[name] if name in texts else Path(name).read_bytes() for name in _user_files(tu)}
    if not any(b"__CUDA_ARCH__" in text for text in files.values()):
        # Nothing to rewrite: only the name's uses in the user's files change.  (Most files: the
        # walk of the unit's top-level declarations below costs a tenth of a second.)
        return {}
    host_declarations = _user_declarations(tu)
    device_functions = _definitions(host_declarations, device_only=True)
    functions = _definitions(host_declarations, device_only=False)
    groups = _arch_groups(files, functions)
    chosen: list[ConditionalGroup] = []
    if groups:
        every = {name: _with_views(text, device_functions.get(name, []), [g for g in groups if g.file == name], arch)
                 for name, text in files.items()}
        device_tu = parse({name: text for name, text in every.items() if text != files[name] or name in texts})
        device_declarations = _user_declarations(device_tu)
        device_functions = _merge(device_functions, _definitions(device_declarations, device_only=True))
        functions = _merge(functions, _definitions(device_declarations, device_only=False))
        chosen = [g for g in groups
                  if not any(s <= g.start and g.end <= e for s, e in functions.get(g.file, ()))
                  and g.kinds <= _NEUTRAL_DIRECTIVES
                  and _device_only_declarations(host_declarations, g)
                  and _device_only_declarations(device_declarations, g)]
        chosen = _without_host_uses(chosen, files, device_functions)
    views: dict[str, bytes] = {}
    for name, text in files.items():
        changed = _with_views(text, device_functions.get(name, []), [g for g in chosen if g.file == name], arch)
        if changed != text:
            views[name] = changed
    return views


def _without_host_uses(groups: list[ConditionalGroup], files: dict[str, bytes],
                       device_functions: dict[str, list[tuple[int, int]]]) -> list[ConditionalGroup]:
    """``groups`` less those whose macros host code uses: a use is allowed inside a device-only
    function, in the group itself, and in the conditions of the groups kept (a greatest fixpoint:
    a group dropped makes the uses in its conditions host uses)."""
    kept = list(groups)
    while True:
        conditions = _merge(*({g.file: list(g.conditions)} for g in kept))
        dropped = [g for g in kept if g.defines and any(
            _uses_outside(text, g.defines, device_functions.get(name, []) + conditions.get(name, [])
                          + ([(g.start, g.end)] if name == g.file else []))
            for name, text in files.items())]
        if not dropped:
            return kept
        kept = [g for g in kept if g not in dropped]
