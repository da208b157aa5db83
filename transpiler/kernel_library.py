"""``cuda2cpu --emit=kernel-library app.cu -o libapp_kernels.so``: the kernels of a ``.cu`` file as a
shared library that MocCUDA's ``libcudart.so.13`` stand-in runs under the program nvcc built from
the same file (``moccuda run --kernels libapp_kernels.so -- ./app``).

The program built by ``nvcc -cudart shared`` keeps its host code and registers each kernel by its
mangled device name (``__cudaRegisterFunction``) and each ``__device__``/``__constant__`` variable
by name (``__cudaRegisterVar``).  The library is the ordinary translation of the file with three
changes, made as edits of the host text (so kernels are lowered exactly as in a program cuda2cpu
builds):

* host code goes: ``main`` entirely, the bodies of other host functions that would be compiled
  (their declarations stay, for whatever kept code names them), out-of-class member definitions,
  and the definitions of non-const host variables (an ``extern`` declaration stays), so nothing
  of the program runs when the library is loaded;
* each kernel, each instantiation of a kernel template that the file uses, and each explicit
  instantiation gets an entry point named after nvcc's mangled name (clang's host mangling of the
  kernel's device stub, ``_Z19__device_stub__vaddPKfS0_Pfi``, without the ``__device_stub__``)::

      __global__ void vadd(const float *a, const float *b, float *c, int n) {...}
      int main() {... vadd<<<g, b>>>(a, b, c, n); ...}

  becomes::

      void vadd(moccuda::LaunchConfig launch, const float *a, const float *b, float *c, int n) {...}
      #if 0
      int main() {...}
      #endif
      MOCCUDA_KERNEL_ENTRY(_Z4vaddPKfS0_Pfi, &::vadd)

  (``moccuda/include/moccuda/kernel_library.h``: ``extern "C" moccuda_kernel__Z4vaddPKfS0_Pfi(grid,
  block, void **args, shared_bytes, stream)`` unpacks nvcc's argument array with the kernel's own
  parameter types and calls it with ``LaunchConfig(grid, block, shared_bytes, stream)``);
* each ``__device__``/``__constant__`` variable is exported by its registered name
  (``MOCCUDA_DEVICE_VARIABLE(offset, ::offset)``): the stand-in makes the library's variable the
  storage behind the program's host shadow, as CUDA's module loading does, so kernels,
  ``cudaMemcpyToSymbol`` and ``cudaGetSymbolAddress`` all see it, with its initializer.

The library is compiled ``-fPIC -fvisibility=hidden`` (only the entry points and variables are
exported) and linked without MocCUDA: the runtime it calls is the one already in the process.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

from cuda_front import clang_ext
from cuda_front.clang_ext import location
from cuda_front.convert import specialization_arguments
from cuda_front.parse import ParsedUnit, clang_arguments, errors_of
from foundation.expression_printer import declare
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc, error, warning

K = ci.CursorKind

ENTRY_HEADER = "moccuda/kernel_library.h"
_STUB = re.compile(r"(\d+)__device_stub__")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNSPELLABLE = ("(anonymous", "(lambda", "(unnamed", "type-parameter")
_HOST_FUNCTION_KINDS = (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION)
_DEVICE_ATTRS = (K.CUDAGLOBAL_ATTR, K.CUDADEVICE_ATTR, K.CUDACONSTANT_ATTR, K.CUDASHARED_ATTR)


@dataclass(frozen=True)
class Edit:
    """An insertion or replacement in a user file (byte offsets), as ``translate.Edit``."""

    file: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class ExplicitInstantiation:
    """``template __global__ void ns::k<float>(float *, int);`` as written: the tokens' pieces."""

    loc: SourceLoc
    file: str
    name: str         # "ns::k<float>" (the template-id, or the name alone when deduced)
    params: str       # "float *, int" (empty for none)
    open_paren: int   # offset just after '('
    end: int          # offset just after ';'
    declaration: bool = False  # `extern template ...`: instantiated in another file


def nvcc_name(clang_mangled: str) -> str:
    """nvcc's registered name from clang's host mangling of the kernel's stub."""
    m = _STUB.search(clang_mangled)
    if m is None:
        return clang_mangled  # extern "C": the plain name
    # The digits before the stub may follow other digits (`_GLOBAL__N_1` + `21__device_stub__k`):
    # the length is the shortest suffix long enough to hold the prefix.
    digits = m.group(1)
    k = next(k for k in range(len(digits) - 1, -1, -1) if digits[k] != "0" and int(digits[k:]) > 15)
    length = int(digits[k:]) - len("__device_stub__")
    return f"{clang_mangled[:m.start()]}{digits[:k]}{length}{clang_mangled[m.end():]}"


def _is_user(cursor: ci.Cursor) -> bool:
    loc = cursor.location
    return loc.file is not None and not loc.is_in_system_header


def _attrs(cursor: ci.Cursor) -> set:
    return {c.kind for c in cursor.get_children() if c.kind.is_attribute()}


def _declarations(parent: ci.Cursor):
    """The user's namespace-scope declarations, through namespaces and ``extern "C"`` blocks."""
    for c in parent.get_children():
        if not _is_user(c):
            continue
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            yield from _declarations(c)
        else:
            yield c


def _qualified_name(cursor: ci.Cursor) -> str:
    """``::ns::name`` (anonymous namespaces are transparent to qualified lookup)."""
    parts = [cursor.spelling]
    parent = cursor.semantic_parent
    while parent is not None and parent.kind != K.TRANSLATION_UNIT:
        if parent.spelling and parent.kind not in (K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "::" + "::".join(reversed(parts))


def _extent(cursor: ci.Cursor) -> tuple[str, int, int]:
    ext = cursor.extent
    return ext.start.file.name, ext.start.offset, ext.end.offset


def _leading_words(cursor: ci.Cursor, stop: int) -> set[str]:
    """The tokens of ``cursor`` before offset ``stop`` (its body), as a set."""
    return {t.spelling for t in cursor.get_tokens() if t.extent.start.offset < stop}


# ------------------------------------------------------------------------------ host code


def _wrap(file: str, start: int, end: int, after: str = "") -> list[Edit]:
    return [Edit(file, start, start, "\n#if 0  // host code: the nvcc-built program has it\n"),
            Edit(file, end, end, f"\n#endif\n{after}")]


def host_code_edits(unit: ParsedUnit) -> list[Edit]:
    """Edits that take the host code out of the translation (see the module docstring)."""
    edits: list[Edit] = []
    declarations = list(_declarations(unit.tu.cursor))
    # `int a = 1, b;` declares two variables from one start: such statements are left as written.
    starts = Counter(_extent(c)[:2] for c in declarations if c.kind == K.VAR_DECL)
    for c in declarations:
        if clang_ext.from_macro(c) or _attrs(c) & set(_DEVICE_ATTRS):
            continue
        if c.kind in _HOST_FUNCTION_KINDS and c.is_definition():
            body = next((b for b in c.get_children() if b.kind == K.COMPOUND_STMT), None)
            if body is None:  # = default, = delete
                continue
            file, start, end = _extent(c)
            words = _leading_words(c, body.extent.start.offset)
            if c.kind == K.FUNCTION_DECL and c.spelling == "main" and c.semantic_parent.kind == K.TRANSLATION_UNIT:
                edits += _wrap(file, start, end)
            elif words & {"inline", "constexpr", "consteval"}:
                continue  # compiled only where used: nothing of it is in the library
            elif c.kind == K.FUNCTION_DECL:
                edits += _wrap(file, body.extent.start.offset, end, after=";")  # the declaration stays
            else:
                edits += _wrap(file, start, end)  # an out-of-class member: the class declares it
        elif c.kind == K.VAR_DECL and c.is_definition() and starts[_extent(c)[:2]] == 1:
            edits += _host_variable_edits(unit, c)
    return edits


def _is_const(t: ci.Type) -> bool:
    while t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        t = t.element_type
    return t.is_const_qualified()


def _host_variable_edits(unit: ParsedUnit, var: ci.Cursor) -> list[Edit]:
    """A non-const host variable becomes an ``extern`` declaration, so its initializer does not run
    when the library is loaded; anything not plainly rewritable is left as written."""
    if _is_const(var.type) or var.storage_class not in (ci.StorageClass.NONE, ci.StorageClass.STATIC):
        return []
    spelled = var.type.spelling
    if any(u in spelled for u in _UNSPELLABLE):
        return []
    if {t.spelling for t in var.get_tokens()} & {"thread_local", "__thread", "constexpr"}:
        return []  # thread storage: leave it
    file, start, end = _extent(var)
    data = unit.source(file)
    rest = data[end:].lstrip()
    if not rest.startswith(b";"):
        return []
    semicolon = end + (len(data[end:]) - len(rest)) + 1
    return _wrap(file, start, semicolon, after=f"extern {declare(spelled, var.spelling)};\n")


# ------------------------------------------------------------------------------ entry points


def _template_argument(spec: ci.Cursor, i: int, param: ci.Cursor | None, where: SourceLoc) -> str:
    try:
        kind = spec.get_template_argument_kind(i)
    except ValueError:  # a kind the Python bindings do not name (a template template argument)
        kind = None
    if kind == ci.TemplateArgumentKind.TYPE:
        spelled = spec.get_template_argument_type(i).get_canonical().spelling
        if not any(u in spelled for u in _UNSPELLABLE):
            return spelled
    elif kind == ci.TemplateArgumentKind.INTEGRAL and param is not None:
        ptype = param.type.get_canonical().spelling
        if ptype == "bool":
            return "true" if spec.get_template_argument_value(i) else "false"
        if not any(u in ptype for u in _UNSPELLABLE):
            value = (spec.get_template_argument_unsigned_value(i) if ptype.startswith("unsigned")
                     else spec.get_template_argument_value(i))
            return f"static_cast<{ptype}>({value})"
    raise CompileError([error(where, f"kernel '{spec.spelling}': a template argument of this kind cannot be "
                                     "named in a kernel library's entry point (an explicit instantiation of "
                                     "it, `template __global__ void ...;`, gives it one)")])


def _template_params(template: ci.Cursor) -> list[ci.Cursor]:
    kinds = (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER)
    return [c for c in template.get_children() if c.kind in kinds]


def _entry(mangled: str, callee: str, where: SourceLoc) -> str:
    if not _SYMBOL.fullmatch(mangled):
        raise CompileError([error(where, f"kernel name '{mangled}' cannot be part of a symbol name")])
    return f"MOCCUDA_KERNEL_ENTRY({mangled}, {callee})"


def _pointer(cursor: ci.Cursor, name: str, overloaded: bool, where: SourceLoc) -> str:
    """The kernel as a function pointer expression; cast to its type when the name is overloaded."""
    if not overloaded:
        return f"&{name}"
    params = [p.type.get_canonical().spelling for p in cursor.get_children() if p.kind == K.PARM_DECL]
    if any(u in p for p in params for u in _UNSPELLABLE):
        raise CompileError([error(where, f"overloaded kernel '{cursor.spelling}' with a parameter type that "
                                         "cannot be named outside its scope")])
    return f"static_cast<void (*)({', '.join(['moccuda::LaunchConfig', *params])})>(&{name})"


def kernel_entries(unit: ParsedUnit, kernels: list[ci.Cursor],
                   explicit: dict[str, str] | None = None) -> tuple[list[str], list[Diagnostic]]:
    """Entry points (``MOCCUDA_KERNEL_ENTRY`` lines) for the kernels defined in the file and the
    instantiations of kernel templates the file uses; a warning for a kernel template with none.
    ``explicit``: nvcc names already given entries by explicit instantiations, with the
    qualified name of their template."""
    explicit = explicit or {}
    names = [_qualified_name(k) for k in kernels]
    templates = {n: k for n, k in zip(names, kernels) if k.kind == K.FUNCTION_TEMPLATE}
    entries: dict[str, str] = {}
    for name, k in zip(names, kernels):
        if k.kind == K.FUNCTION_DECL:
            where, mangled = location(k), nvcc_name(k.mangled_name)
            specialization = specialization_arguments(k)
            # An explicit specialization is named with its arguments: `&::k<float>` is that one.
            pointer = f"&{name}{specialization}" if specialization else _pointer(k, name, names.count(name) > 1, where)
            entries.setdefault(mangled, _entry(mangled, pointer, where))
    used: set[str] = set(explicit.values())
    for n in unit.tu.cursor.walk_preorder():
        if n.kind not in (K.CALL_EXPR, K.DECL_REF_EXPR) or not _is_user(n):
            continue
        spec = n.referenced
        if spec is None or spec.kind != K.FUNCTION_DECL or spec.get_num_template_arguments() < 0:
            continue
        name = _qualified_name(spec)
        template = templates.get(name)
        if template is None or K.CUDAGLOBAL_ATTR not in _attrs(spec):
            continue
        where = location(n)
        mangled = nvcc_name(spec.mangled_name)
        if mangled in entries or mangled in explicit:
            used.add(name)
            continue
        params = _template_params(template)
        args = [_template_argument(spec, i, params[i] if i < len(params) else None, where)
                for i in range(spec.get_num_template_arguments())]
        targs = ", ".join(args)
        callee = _pointer(spec, f"{name}<{targs}>", names.count(name) > 1, where)
        entries[mangled] = _entry(mangled, callee, where)
        used.add(name)
    warnings = [warning(location(k), f"kernel template '{k.spelling}' is not instantiated in this file (not "
                                     "launched with its template arguments, not explicitly instantiated): the "
                                     "kernel library has no entry point for it")
                for name, k in templates.items() if name not in used]
    return list(entries.values()), warnings


def device_variables(unit: ParsedUnit) -> list[str]:
    """``MOCCUDA_DEVICE_VARIABLE`` lines for the ``__device__``/``__constant__`` variables defined
    at namespace scope, by the name nvcc registers: the plain name at file scope, else the
    mangled one."""
    lines = []
    for c in _declarations(unit.tu.cursor):
        if c.kind != K.VAR_DECL or not c.is_definition() or not _attrs(c) & {K.CUDADEVICE_ATTR, K.CUDACONSTANT_ATTR}:
            continue
        if c.semantic_parent.kind in (K.TRANSLATION_UNIT, K.LINKAGE_SPEC):
            registered = c.spelling
        else:
            registered = c.mangled_name
        if _SYMBOL.fullmatch(registered or ""):
            lines.append(f"MOCCUDA_DEVICE_VARIABLE({registered}, {_qualified_name(c)})")
    return lines


# --------------------------------------------------------------------- explicit instantiations


def _closing(tokens: list, i: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        s = tokens[j].spelling
        depth += (s == open_) - (s == close)
        if depth == 0:
            return j
    return -1


def explicit_instantiations(unit: ParsedUnit, kernel_names: set[str], files: list[str]) -> list[ExplicitInstantiation]:
    """``template __global__ void k<float>(float *, int);`` declarations of the user's kernel
    templates (libclang does not expose explicit instantiations as cursors, so they are read
    from the tokens)."""
    found = []
    for name in files:
        data = unit.source(name)
        if b"template" not in data:
            continue
        file = unit.tu.get_file(name)
        extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(unit.tu, file, 0),
                                               ci.SourceLocation.from_offset(unit.tu, file, len(data)))
        tokens = [t for t in unit.tu.get_tokens(extent=extent) if t.kind != ci.TokenKind.COMMENT]
        for i, tok in enumerate(tokens):
            if tok.spelling != "template" or i + 1 >= len(tokens) or tokens[i + 1].spelling == "<":
                continue
            if i > 0 and tokens[i - 1].spelling not in (";", "}", "{", "extern") and (
                    tokens[i - 1].location.line == tok.location.line or tokens[i - 1].spelling in (".", "->", "::")):
                continue  # `x.template f<...>`, `T::template X<...>`: not a declaration
            end = next((j for j in range(i + 1, len(tokens)) if tokens[j].spelling in (";", "{")), -1)
            if end < 0 or tokens[end].spelling != ";" or tokens[end - 1].spelling != ")":
                continue
            close = end - 1
            open_ = next((j for j in range(close, i, -1) if _closing(tokens, j, "(", ")") == close), None)
            if open_ is None:
                continue
            name_end = open_
            ident = clang_ext.name_before_template_arguments(tokens, open_, lowest=i + 1)
            if ident <= i or tokens[ident].spelling not in kernel_names:
                continue  # not one of the file's kernels (a host function template)
            name_start = ident
            while name_start - 2 > i and tokens[name_start - 1].spelling == "::":
                name_start -= 2
            if tokens[name_start - 1].spelling == "::":
                name_start -= 1  # ::k<float>
            start_off = tokens[name_start].extent.start.offset
            found.append(ExplicitInstantiation(
                SourceLoc(name, tok.location.line, tok.location.column), name,
                data[start_off:tokens[name_end].extent.start.offset].decode().strip(),
                data[tokens[open_].extent.end.offset:tokens[close].extent.start.offset].decode().strip(),
                tokens[open_].extent.end.offset, tokens[end].extent.end.offset,
                declaration=i > 0 and tokens[i - 1].spelling == "extern"))
    return found


def explicit_instantiation_edits(instantiations: list[ExplicitInstantiation]) -> list[Edit]:
    """The explicit instantiation of a translated kernel names its launch parameter too:
    ``template void k<float>(float *, int)`` → ``template void k<float>(moccuda::LaunchConfig, float *, int)``."""
    return [Edit(e.file, e.open_paren, e.open_paren,
                 "moccuda::LaunchConfig" + (", " if e.params not in ("", "void") else ""))
            for e in instantiations]


def _instantiated_names(unit: ParsedUnit, options,
                        instantiations: list[ExplicitInstantiation]) -> list[tuple[str, str]]:
    """nvcc's names of explicitly instantiated kernels, with their templates' qualified names:
    libclang parses the files again with a probe after each instantiation (a pointer to it, in its
    scope) and mangles what it refers to."""
    texts: dict[str, bytes] = {str(unit.path): unit.text, **unit.changed_headers}
    for file in {e.file for e in instantiations}:
        data = unit.source(file)
        # Offsets refer to the original text: insert from the back.
        for n, e in sorted(enumerate(instantiations), key=lambda p: -p[1].end):
            if e.file != file:
                continue
            params = e.params if e.params not in ("", "void") else ""
            probe = f" static void (*const moccuda_probe_{n})({params}) = &{e.name};"
            data = data[:e.end] + probe.encode() + data[e.end:]
        texts[file] = data
    index = ci.Index.create()
    tu = index.parse(str(unit.path), args=clang_arguments(options),
                     unsaved_files=[(f, t.decode()) for f, t in texts.items()])
    errors = [Diagnostic("error", SourceLoc(d.location.file.name if d.location.file else "?", d.location.line,
                                            d.location.column), d.spelling)
              for d in errors_of(tu)]
    if errors:
        raise CompileError(errors)
    names: dict[int, tuple[str, str]] = {}
    for c in tu.cursor.walk_preorder():
        if c.kind == K.VAR_DECL and c.spelling.startswith("moccuda_probe_"):
            ref = next((r.referenced for r in c.walk_preorder() if r.kind == K.DECL_REF_EXPR), None)
            if ref is not None and ref.mangled_name:
                names[int(c.spelling[len("moccuda_probe_"):])] = (nvcc_name(ref.mangled_name),
                                                                  _qualified_name(ref))
    missing = [e for n, e in enumerate(instantiations) if n not in names]
    if missing:
        raise CompileError([error(e.loc, "cannot tell which kernel this explicit instantiation names")
                            for e in missing])
    return [names[n] for n in range(len(instantiations))]


def explicit_entry_edits(unit: ParsedUnit, options,
                         instantiations: list[ExplicitInstantiation]) -> tuple[list[Edit], dict[str, str]]:
    """An entry point right after each explicit instantiation (in its scope, where its names mean
    what they meant); also the nvcc names given entries, each with its template's qualified name."""
    instantiations = [e for e in instantiations if not e.declaration]  # their entries are elsewhere
    if not instantiations:
        return [], {}
    edits, named = [], {}
    for e, (mangled, template) in zip(instantiations, _instantiated_names(unit, options, instantiations)):
        params = ", ".join(["moccuda::LaunchConfig"] + ([e.params] if e.params not in ("", "void") else []))
        callee = f"static_cast<void (*)({params})>(&{e.name})"
        if mangled not in named:
            edits.append(Edit(e.file, e.end, e.end, "\n" + _entry(mangled, callee, e.loc) + "\n"))
            named[mangled] = template
    return edits, named


# ------------------------------------------------------------------------------ the library


def library_edits(unit: ParsedUnit, scan, options,
                  instantiations: list[ExplicitInstantiation]) -> tuple[list[Edit], list[Diagnostic]]:
    """Every edit that turns the translation of ``unit`` into a kernel library's source
    (``instantiations``: the file's explicit instantiations of kernels)."""
    explicit, explicit_names = explicit_entry_edits(unit, options, instantiations)
    entries, warnings = kernel_entries(unit, scan.kernels, explicit_names)
    main = str(unit.path)
    tail = ["", "// Entry points for programs built by nvcc from the same source (MocCUDA's libcudart.so.13",
            "// stand-in finds them by the kernels' and variables' registered names).", *entries,
            *device_variables(unit), ""]
    edits = [Edit(main, 0, 0, f"#include <{ENTRY_HEADER}>\n"), *host_code_edits(unit), *explicit,
             Edit(main, len(unit.text), len(unit.text), "\n".join(tail))]
    return edits, warnings


def default_output(source_path: str) -> str:
    return f"lib{Path(source_path).stem}_kernels.so"


__all__ = ["library_edits", "nvcc_name", "kernel_entries", "device_variables", "host_code_edits",
           "explicit_instantiations", "explicit_instantiation_edits", "default_output"]
