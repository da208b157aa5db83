"""Translate one ``.cu`` file into one self-contained C++ file with OpenMP.

The steps, each owned by one package:

1. ``cuda_front.parse``: libclang parses the file once, in CUDA mode.
2. :func:`scan_unit` (here): find, in the user's own files, the kernels, the kernel prototypes,
   the ``__device__`` functions that need translation, the kernel launches and the includes.
3. ``cuda_front.convert``: those functions' bodies become IR.
4. ``foundation.passes``: the pass pipeline (barrier analyses and lowering) over the IR.
5. ``openmp_emit.emit``: lowered kernels become C++ text.
6. :func:`render_file` (here): the host source is kept as written, with only the kernel
   definitions, prototypes, device functions and launches replaced; user files that need such
   edits are inlined in place of their ``#include``.  ``openmp_emit.skeleton`` wraps the result.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import clang.cindex as ci

from barrier.inline_device import synchronizing_functions
from cuda_front import clang_ext, inline_ptx, launch_sites, members
from cuda_front.convert import (ASSERT_FAIL, BARRIER_FUNCTIONS, BUILTIN_VARS, LAUNCH_CONFIGURATION, UNSUPPORTED_CALLS,
                                Converter, default_argument, is_builtin_decl, is_namespace_shared, location,
                                specialization_arguments, template_header)
from cuda_front.parse import ParsedUnit, parse_file
from cuda_front.standard_math import device_math_function
from cuda_front.warp_front import WARP_INTRINSICS
from foundation import device_math, ir
from foundation.expression_printer import declare
from openmp_emit import device_traps, emit, fiber_emit, launch_regions, skeleton
from transpiler import __version__, deep_stack, torch_host
from transpiler import kernel_library as kernel_library_module
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc, unsupported
from foundation.options import TranslateOptions
from foundation.passes import PassContext, run_pipeline
from transpiler.pipeline import build_pipeline
from moccuda import build as moccuda_build

K = ci.CursorKind


@dataclass
class TranslationResult:
    #: The C++ text; bytes of the input that are not UTF-8 are in it as lone surrogates
    #: (:data:`SOURCE_ERRORS`): write it with :meth:`source_bytes`.
    source: str
    warnings: list[Diagnostic] = field(default_factory=list)
    explain: dict = field(default_factory=dict)
    #: Directories of inlined user files: their own quoted includes are resolved from there.
    include_dirs: list[str] = field(default_factory=list)
    program: ir.Program | None = None
    #: Every file the front end read through an include (libclang's list), so that a caller such
    #: as the service can check that each came from where it may come from.
    included_files: list[str] = field(default_factory=list)

    def source_bytes(self) -> bytes:
        """The C++ text as bytes, with every byte of the input that is not UTF-8 as it was."""
        return self.source.encode("utf-8", SOURCE_ERRORS)


#: How source bytes are read as text.  Files that are not UTF-8 (a Latin-1 `©` in a licence
#: comment, a byte in a string literal) pass through unchanged: each such byte is a lone surrogate
#: in the text and becomes the same byte again when the translation is written.
SOURCE_ERRORS = "surrogateescape"


def source_text(data: bytes) -> str:
    """Source bytes as text, keeping bytes that are not UTF-8 (:data:`SOURCE_ERRORS`)."""
    return data.decode("utf-8", SOURCE_ERRORS)


@dataclass(frozen=True)
class Edit:
    start: int  # byte offsets into the file
    end: int
    text: str


@dataclass
class UnitScan:
    kernels: list[ci.Cursor] = field(default_factory=list)
    kernel_prototypes: list[ci.Cursor] = field(default_factory=list)
    #: Declarations of ``__device__`` functions that are not definitions (forward declarations).
    device_prototypes: list[ci.Cursor] = field(default_factory=list)
    device_functions: dict[str, list[ci.Cursor]] = field(default_factory=dict)
    includes: list[ci.Cursor] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)  # user files seen, by name
    #: ``__shared__`` variables declared at namespace scope (one per block in each kernel).
    namespace_shared: list[ci.Cursor] = field(default_factory=list)
    #: Top-level declarations other than kernels and ``__device__`` functions (host code,
    #: classes, variables): they may not use a namespace-scope ``__shared__`` variable.
    others: list[ci.Cursor] = field(default_factory=list)


def _is_user(cursor: ci.Cursor) -> bool:
    loc = cursor.location
    return loc.file is not None and not loc.is_in_system_header


def _attrs(cursor: ci.Cursor) -> set:
    return {c.kind for c in cursor.get_children() if c.kind.is_attribute()}


def scan_unit(unit: ParsedUnit) -> UnitScan:
    scan = UnitScan()

    def visit(children) -> None:
        for c in children:
            if not _is_user(c):
                continue
            scan.files.setdefault(c.location.file.name, b"")
            if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
                visit(c.get_children())
            elif c.kind == K.INCLUSION_DIRECTIVE:
                scan.includes.append(c)
            elif c.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE) and not members.is_member_function(c):
                attrs = _attrs(c)
                if K.CUDAGLOBAL_ATTR in attrs:
                    (scan.kernels if c.is_definition() else scan.kernel_prototypes).append(c)
                elif K.CUDADEVICE_ATTR in attrs and c.is_definition():
                    scan.device_functions.setdefault(c.spelling, []).append(c)
                elif K.CUDADEVICE_ATTR in attrs and K.CUDAHOST_ATTR not in attrs:
                    scan.device_prototypes.append(c)
                    scan.others.append(c)
                else:
                    scan.others.append(c)
            elif c.kind == K.VAR_DECL and K.CUDASHARED_ATTR in _attrs(c):
                scan.namespace_shared.append(c)
            else:
                scan.others.append(c)

    visit(unit.user_top_level())
    scan.files.update(unit.changed_headers)
    scan.files[str(unit.path)] = unit.text
    return scan


# ------------------------------------------------------------------ device functions needing work


def _direct_needs(fn: ci.Cursor) -> tuple[set[str], set[str]]:
    """Builtin vectors read and functions called in ``fn``'s body.  An ``assert`` in a
    ``__device__`` (not ``__host__``) function reads ``blockIdx`` and ``threadIdx``: CUDA's device
    assert reports them."""
    builtins: set[str] = set()
    calls: set[str] = set()
    device_only = K.CUDAHOST_ATTR not in _attrs(fn)
    for n in fn.walk_preorder():
        if n.kind == K.DECL_REF_EXPR and n.spelling in BUILTIN_VARS:
            builtins.add(n.spelling)
        elif n.kind == K.CALL_EXPR and n.spelling == ASSERT_FAIL and device_only:
            builtins |= {"blockIdx", "threadIdx"}  # CUDA's device assert names the block and thread
        elif n.kind == K.ASM_STMT and device_only:
            builtins |= inline_ptx.builtins_read(n)  # special registers: %laneid, %tid.x, ...
        elif n.kind == K.CALL_EXPR:
            calls.add(n.spelling)
    return builtins, calls


def _translated_for_itself(fn: ci.Cursor, needs: dict[str, tuple[str, ...]], shifting: set[str]) -> bool:
    """Does an overload of a translated ``__device__`` function need the translation itself (it
    reads a thread index, asserts, reads the device clock, has inline PTX, calls a function that
    takes the indices, or its name is among ``shifting``, those whose shifts need the GPU's
    semantics)?  One that does not, and that the converter cannot represent, is kept as written
    with the set's leading parameters (another overload of its name reads them), unused."""
    builtins, calls = _direct_needs(fn)
    return (bool(builtins) or any(needs.get(c) for c in calls) or bool(calls & {"clock", "clock64"})
            or bool(inline_ptx.asm_statements(fn)) or fn.spelling in shifting)


def uses_block_storage(fn: ci.Cursor) -> bool:
    """Does ``fn`` declare a ``__shared__`` variable or use one declared at namespace scope?  Such
    a function is inlined into the kernels (``inline-device``), where the variable is one per
    block and per declaration, shared by every call in the block."""
    for n in fn.walk_preorder():
        if n.kind == K.VAR_DECL and K.CUDASHARED_ATTR in _attrs(n):
            return True
        if n.kind == K.DECL_REF_EXPR and n.referenced is not None and is_namespace_shared(n.referenced):
            return True
    return False


#: Declarations whose member functions may hold device code kept as written.
_CLASS_KINDS = frozenset({K.STRUCT_DECL, K.CLASS_DECL, K.UNION_DECL, K.CLASS_TEMPLATE,
                          K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                          K.CONVERSION_FUNCTION})


def shared_in_kept_code(scan: UnitScan) -> list[tuple[str, Edit]]:
    """``__shared__`` memory in code kept as written (member functions, host code) would be a
    plain variable there: one per call, or one global for all blocks.  An ``extern __shared__``
    array declared in a member function (``SharedMemory<T>``'s ``extern __shared__ int
    __smem[]``) becomes a pointer to the block's dynamic shared memory
    (``moccuda::block_dynamic_shared()``), another ``__shared__`` variable declared there a
    ``static thread_local`` one (:func:`_block_static`): the edits that say so.  A namespace-scope
    ``__shared__`` variable used there is a located error."""
    shared = {clang_ext.identity(c) for c in scan.namespace_shared}
    edits = []
    for top in scan.others:
        if not shared and top.kind not in _CLASS_KINDS:
            continue  # host functions cannot declare __shared__ memory (clang rejects it)
        for n in top.walk_preorder():
            if n.kind == K.DECL_REF_EXPR and n.referenced is not None and clang_ext.identity(n.referenced) in shared:
                raise unsupported(location(n), "a __shared__ variable at namespace scope used outside kernels and "
                                  "__device__ functions (here, in a member function or host code)")
            if n.kind == K.DECL_STMT and any(K.CUDASHARED_ATTR in _attrs(v) for v in n.get_children()):
                edits.extend(_kept_shared_edits(n))
    return edits


def _kept_shared_edits(stmt: ci.Cursor) -> list[tuple[str, Edit]]:
    """``extern __shared__ T name[];`` in a member function becomes
    ``T *const name = static_cast<T *>(moccuda::block_dynamic_shared());``; another ``__shared__``
    declaration there is :func:`_block_static`'s."""
    (var, *rest) = [c for c in stmt.get_children() if c.kind == K.VAR_DECL]
    if var.storage_class != ci.StorageClass.EXTERN:
        return _block_static(stmt, var)
    if rest:
        raise unsupported(location(var), "several extern __shared__ arrays in one declaration of a member function "
                          "(declare one per declaration)")
    spelled = var.type.spelling
    if clang_ext.from_macro(stmt) or stmt.extent.start.file is None or not spelled.endswith("[]") \
            or "[" in spelled[:-2]:
        raise unsupported(location(var), "this extern __shared__ declaration in a member function")
    element = spelled[:-2].rstrip()
    text = f"{element} *const {var.spelling} = static_cast<{element} *>(moccuda::block_dynamic_shared());"
    return [(stmt.extent.start.file.name, Edit(stmt.extent.start.offset, stmt.extent.end.offset, text))]


def _file_tokens(cursor: ci.Cursor) -> list[ci.Token]:
    """The tokens written in ``cursor``'s file range (its own ``get_tokens`` gives none when the
    extent starts with a macro such as ``__shared__``)."""
    tu, file = cursor.translation_unit, cursor.extent.start.file
    written = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, file, cursor.extent.start.offset),
                                            ci.SourceLocation.from_offset(tu, file, cursor.extent.end.offset))
    return list(tu.get_tokens(extent=written))


def _block_static(stmt: ci.Cursor, var: ci.Cursor) -> list[tuple[str, Edit]]:
    """``__shared__ T name;`` (or ``static __shared__``) in a member function, kept as written,
    becomes ``static thread_local T name;``, checked by ``moccuda::block_storage_check()``:
    one variable per declaration (and per instantiation of a template) for the blocks an OpenMP
    thread runs one after another, which is CUDA's one per block (its value at a block's start is
    unspecified in CUDA too).  Under the nested schedule a block's threads run on several OpenMP
    threads: refused at run time, as ``block_dynamic_shared()`` is."""
    file = stmt.extent.start.file
    tokens = [] if file is None else _file_tokens(stmt)
    qualifier = next((t for t in tokens if t.spelling == "__shared__"), None)
    if qualifier is None:
        raise unsupported(location(var), "a __shared__ variable declared in a member function with its qualifier "
                          "spelled by a macro (write __shared__ in the declaration)")
    spelled_static = any(t.spelling == "static" for t in tokens)
    start, end = qualifier.extent.start.offset, qualifier.extent.end.offset
    after = stmt.extent.end.offset
    return [(file.name, Edit(start, end, "thread_local" if spelled_static else "static thread_local")),
            (file.name, Edit(after, after, " moccuda::block_storage_check();"))]


# ------------------------------------------------------------------------ member functions


@dataclass
class MemberFunctions:
    """The ``__device__`` member functions defined in the user's files, by the key of their
    overload set (``ir.member_key``), and what inlining the synchronizing ones needs."""

    definitions: dict[str, list[ci.Cursor]] = field(default_factory=dict)
    bodies: dict[str, tuple[ir.MemberFunction, ...]] = field(default_factory=dict)
    unreadable: dict[str, CompileError] = field(default_factory=dict)


def member_functions(scan: UnitScan, converter: Converter) -> MemberFunctions:
    """Every ``__device__`` member function defined in the user's files (in its class or
    outside it), converted for the inliner; a body the converter cannot represent gives its
    error to ``unreadable`` (reported where a kernel inlines it)."""
    found = MemberFunctions()
    pending = list(scan.others)
    while pending:
        c = pending.pop()
        if c.kind in members.CLASS_KINDS or c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            pending.extend(c.get_children())
        elif members.is_member_function(c) and c.is_definition() and K.CUDADEVICE_ATTR in _attrs(c) \
                and _is_user(c):
            cls = members.pattern_class(c.semantic_parent)
            if cls is not None:
                found.definitions.setdefault(ir.member_key(cls.get_usr(), c.spelling), []).append(c)
    for key, definitions in found.definitions.items():
        bodies = []
        for c in definitions:
            try:
                bodies.append(converter.member_function(c))
            except CompileError as e:
                found.unreadable.setdefault(key, e)
        found.bodies[key] = tuple(bodies)
    return found


def inlined_member_edits(found: MemberFunctions, inlined: set[str]) -> tuple[list[tuple[str, Edit]], list[Diagnostic]]:
    """The member functions that synchronize are inlined into the kernels: their bodies, kept
    as written, would hold barriers and warp intrinsics that g++ does not know, so each becomes
    ``{ __builtin_trap(); }`` (no kept code calls one: ``builtins_in_kept_code`` refuses that).
    The edits, and a located error for each that cannot be inlined (a virtual function, a
    constructor)."""
    edits, errors = [], []
    for key in sorted(inlined & set(found.definitions)):
        for c in found.definitions[key]:
            if c.is_virtual_method():
                errors.append(unsupported(location(c), f"the virtual member function '{c.spelling}', which synchronizes "
                                          "(cuda2cpu inlines synchronizing member functions into the kernel, which "
                                          "needs the function a call resolves to: make it non-virtual)").diagnostics[0])
                continue
            if c.kind == K.CONSTRUCTOR:
                errors.append(unsupported(location(c), f"a constructor of '{c.spelling}' that synchronizes (move the "
                                          "synchronizing part into a member function called after construction)")
                              .diagnostics[0])
                continue
            body = next((b for b in c.get_children() if b.kind == K.COMPOUND_STMT), None)
            if body is None or body.extent.start.file is None or clang_ext.from_macro(body):
                errors.append(unsupported(location(c), f"the member function '{c.spelling}', which synchronizes, "
                                                       "defined by a macro").diagnostics[0])
                continue
            edits.append((body.extent.start.file.name,
                          Edit(body.extent.start.offset, body.extent.end.offset,
                               "{ __builtin_trap(); /* inlined into the kernels that call it (it synchronizes) */ }")))
    return edits, errors


def _unreadable_synchronizing_members(found: MemberFunctions, inlined: set[str]) -> set[str]:
    """The members whose body the converter could not read (``found.unreadable``) and that may
    synchronize: they call a barrier or a warp collective, or name a function or member function
    that synchronizes (a call in a template may be unresolved: its name is what is known).  A
    kernel calling one gets the conversion's error; kept as written, it would not synchronize."""
    names = {key.rsplit("::", 1)[-1] for key in inlined}
    marked: set[str] = set()
    changed = True
    while changed:
        changed = False
        for key in set(found.unreadable) - marked - set(inlined):
            for c in found.definitions[key]:
                spelled = {t.spelling for t in c.get_tokens() if t.kind == ci.TokenKind.IDENTIFIER}
                if _synchronizes_as_written(c) or spelled & names:
                    marked.add(key)
                    names.add(key.rsplit("::", 1)[-1])
                    changed = True
                    break
    return marked


def _call_member_key(call: ci.Cursor) -> str:
    """The overload-set key of the member function a call resolves to, or ""."""
    ref = call.referenced
    if ref is None or not members.is_member_function(ref):
        return ""
    cls = members.pattern_class(ref.semantic_parent)
    return ir.member_key(cls.get_usr(), ref.spelling) if cls is not None else ""


def device_builtins(scan: UnitScan) -> dict[str, tuple[str, ...]]:
    """For each device function name: the builtin vectors it reads, directly or via callees."""
    direct = {}
    for name, overloads in scan.device_functions.items():
        builtins, calls = set(), set()
        for fn in overloads:
            b, c = _direct_needs(fn)
            builtins |= b
            calls |= c
        direct[name] = (builtins, calls)
    needs = {name: set(b) for name, (b, _) in direct.items()}
    changed = True
    while changed:
        changed = False
        for name, (_, calls) in direct.items():
            for callee in calls:
                extra = needs.get(callee, set()) - needs[name]
                if extra:
                    needs[name] |= extra
                    changed = True
    order = ("threadIdx", "blockIdx", "blockDim", "gridDim")
    return {name: tuple(v for v in order if v in b) for name, b in needs.items() if b}


def _each_converted(cursors, convert, errors: list[Diagnostic]) -> list:
    """``convert`` of each cursor; the errors of those that fail go to ``errors`` (so that one
    run reports every function's first untranslatable construct, not only the first function's)."""
    converted = []
    for cursor in cursors:
        try:
            converted.append(convert(cursor))
        except CompileError as exc:
            errors.extend(exc.diagnostics)
    return converted


def _device_functions_emitted(scan: UnitScan):
    """The ``__device__`` functions (not also ``__host__``) that g++ would see, by name: called by
    a kernel or by code kept as written (a member function, a functor), directly or not, or
    emitted anyway (not inline, not a template); an unused inline helper is never emitted."""
    roots = [*scan.kernels, *scan.others]
    called = {_callee_name(n) for root in roots for n in root.walk_preorder() if n.kind == K.CALL_EXPR}
    reachable: set[str] = set()
    while called - reachable:
        name = (called - reachable).pop()
        reachable.add(name)
        for fn in scan.device_functions.get(name, []):
            called |= {_callee_name(n) for n in fn.walk_preorder() if n.kind == K.CALL_EXPR}
    for name, overloads in scan.device_functions.items():
        for fn in overloads:
            if K.CUDAHOST_ATTR in _attrs(fn) or (name not in reachable and _never_emitted_unused(fn)):
                continue
            yield name, fn


def inline_assembly_functions(scan: UnitScan) -> set[str]:
    """The emitted ``__device__`` functions with inline assembly.  They are translated, so that
    their PTX becomes C++ (``cuda_front/inline_ptx.py``)."""
    return {name for name, fn in _device_functions_emitted(scan) if inline_ptx.asm_statements(fn)}


def device_launches_in_device_functions(scan: UnitScan) -> list[Diagnostic]:
    """A located error for each kernel launch (dynamic parallelism) in an emitted ``__device__``
    function.  Such a function is otherwise kept as written, and the launch would run the child
    grid on the parent's thread."""
    return [d for _, fn in _device_functions_emitted(scan) for n in fn.walk_preorder()
            if n.kind == K.CALL_EXPR and any(c.kind == K.CALL_EXPR and c.spelling == LAUNCH_CONFIGURATION
                                             for c in n.get_children())
            for d in unsupported(location(n), UNSUPPORTED_CALLS[LAUNCH_CONFIGURATION]).diagnostics]


def _never_emitted_unused(fn: ci.Cursor) -> bool:
    """An inline function or a function template: g++ emits it only where it is used."""
    if fn.kind == K.FUNCTION_TEMPLATE:
        return True
    body = next((c for c in fn.get_children() if c.kind == K.COMPOUND_STMT), None)
    if body is None or fn.extent.start.file is None:
        return False
    # The declaration's written tokens (its extent starts with the __device__ macro, whose own
    # tokens libclang would give instead).
    tu, file = fn.translation_unit, fn.extent.start.file
    head = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, file, fn.extent.start.offset),
                                         ci.SourceLocation.from_offset(tu, file, body.extent.start.offset))
    return bool({t.spelling for t in tu.get_tokens(extent=head)} & {"inline", "__inline__", "__inline", "__forceinline__"})


#: Cursors that open a function body: what a builtin read inside them belongs to.
_FUNCTION_KINDS = frozenset({K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                             K.CONVERSION_FUNCTION, K.LAMBDA_EXPR})


def builtins_in_kept_code(scan: UnitScan, translated: set[str], needs: dict[str, tuple[str, ...]],
                          inlined: set[str] = frozenset(), inlined_members: set = frozenset()) -> list[tuple[str, Edit]]:
    """Device code kept as written (a functor's ``operator()``, a member function, a lambda in
    one) reads ``threadIdx``, ``blockIdx``, ``blockDim`` and ``gridDim`` as
    ``moccuda::ambient().threadIdx`` and so on: the values of the CUDA thread the calling OpenMP
    thread runs, which every kernel of such a translation unit sets before each thread's code
    (``GridLoop.sets_ambient_index``).  Its calls of translated ``__device__`` functions that take
    builtin vectors as leading parameters (``needs``) pass them the same way (CUB's
    ``linear_tid(RowMajorTid(...))`` in a constructor's member initializer list).  The edits that
    say so; code outside the functions the converter rewrites (the kernels and the ``__device__``
    functions named in ``translated``) is kept.  A read in host code, or spelled by a macro, is a
    located error: there is no CUDA thread there, and no source text of ours to edit; so is a
    call there of a function in ``inlined`` (it synchronizes: only kernels hold its code).  The
    member functions in ``inlined_members`` (by ``clang_ext.identity``) are inlined, not kept:
    they are skipped."""
    kept = [c for name, overloads in scan.device_functions.items() if name not in translated for c in overloads]
    edits = []
    pending = [(c, False) for c in (*scan.others, *kept)]
    while pending:
        cursor, in_device = pending.pop()
        if cursor.kind in _FUNCTION_KINDS and clang_ext.identity(cursor) in inlined_members:
            continue
        if cursor.kind in _FUNCTION_KINDS:
            in_device = K.CUDADEVICE_ATTR in _attrs(cursor) or (in_device and cursor.kind == K.LAMBDA_EXPR)
        if cursor.kind in _FUNCTION_KINDS and in_device and cursor.semantic_parent is not None \
                and cursor.semantic_parent.kind in _CLASS_KINDS:
            _no_synchronization_in_kept_code(cursor)
        if cursor.kind == K.DECL_REF_EXPR and cursor.spelling in BUILTIN_VARS and is_builtin_decl(cursor.referenced):
            if not in_device:
                raise unsupported(location(cursor), f"reading '{cursor.spelling}' in host code (outside a __global__ "
                                                    "or __device__ function)")
            if clang_ext.expanded_from_macro(cursor):
                raise unsupported(location(cursor), f"'{cursor.spelling}' spelled by a macro in a member function or "
                                                    "lambda kept as written (write it in the function)")
            at = cursor.extent.start
            edits.append((at.file.name, Edit(at.offset, cursor.extent.end.offset,
                                             f"moccuda::ambient().{cursor.spelling}")))
        elif cursor.kind == K.CALL_EXPR and in_device and (_callee_name(cursor) in inlined
                                                           or _call_member_key(cursor) in inlined):
            raise unsupported(location(cursor), f"a call of '{_callee_name(cursor)}', which synchronizes (it is inlined "
                                                "into the kernels), from a member function or lambda kept as written "
                                                "(call it from the kernel or a non-member __device__ function)")
        elif cursor.kind == K.CALL_EXPR and needs.get(cursor.spelling) and in_device:
            edits.append(_ambient_arguments(cursor, needs[cursor.spelling]))
        pending.extend((c, in_device) for c in cursor.get_children())
    return edits


def math_calls_in_kept_code(scan: UnitScan, translated: set[str], inlined_members: set = frozenset()) \
        -> list[tuple[str, Edit]]:
    """Device code kept as written (a ``__device__`` function that reads no builtin index, a
    functor's ``operator()``, a lambda in either) calls the standard library's math functions
    through ``moccuda::device_math``, as the translated code does (pass ``device-math``): gcc
    inlines such a function into the kernel's SIMD thread loop, where only those declarations
    vectorize.  The edits that rename the callees; a ``__host__ __device__`` function keeps its
    calls (host code runs it too), and so does a call spelled by a macro (there is no text of
    its own to edit).  Functions in ``translated`` (their text is replaced) and member functions
    in ``inlined_members`` (by ``clang_ext.identity``) are skipped."""
    kept = [c for name, overloads in scan.device_functions.items() if name not in translated for c in overloads]
    edits = []
    pending = [(c, False) for c in (*scan.others, *kept)]
    while pending:
        cursor, device_only = pending.pop()
        if cursor.kind in _FUNCTION_KINDS:
            if clang_ext.identity(cursor) in inlined_members:
                continue
            if cursor.kind != K.LAMBDA_EXPR:  # a lambda runs where its enclosing function does
                attrs = _attrs(cursor)
                device_only = K.CUDADEVICE_ATTR in attrs and K.CUDAHOST_ATTR not in attrs
        if device_only and cursor.kind == K.CALL_EXPR and _callee_name(cursor) in device_math.C_FUNCTIONS:
            target = device_math_function(cursor)
            callee = next(iter(cursor.get_children()), None)
            if target and callee is not None and callee.extent.start.file is not None \
                    and not clang_ext.expanded_from_macro(callee):
                edits.append((callee.extent.start.file.name,
                              Edit(callee.extent.start.offset, callee.extent.end.offset, target)))
        pending.extend((c, device_only) for c in cursor.get_children())
    return edits


def _no_synchronization_in_kept_code(function: ci.Cursor) -> None:
    """A member function (or a lambda in one) is kept as written and runs within one CUDA
    thread's code: a barrier or warp collective there would not wait for the other threads.  A
    located error; non-member ``__device__`` functions that synchronize are inlined into the
    kernels instead."""
    from cuda_front.warp_front import BARRIER_WAITS, BLOCK_COLLECTIVES, WARP_INTRINSICS, barrier_method

    for n in function.walk_preorder():
        if n.kind == K.CALL_EXPR and barrier_method(n) is not None and barrier_method(n)[0] in BARRIER_WAITS:
            raise unsupported(location(n), f"cuda::barrier::{barrier_method(n)[0]}() in a member function (kept as "
                                           "written, it runs within one thread's code: make the function a non-member "
                                           "__device__ function, which cuda2cpu inlines into the kernel)")
        if n.kind == K.CALL_EXPR and (n.spelling in BARRIER_FUNCTIONS or n.spelling in WARP_INTRINSICS
                                      or n.spelling in BLOCK_COLLECTIVES):
            raise unsupported(location(n), f"{n.spelling}() in a member function (kept as written, it runs within "
                                           "one thread's code: make the function a non-member __device__ function, "
                                           "which cuda2cpu inlines into the kernel)")


def _synchronizes_as_written(function: ci.Cursor) -> bool:
    """Does ``function`` call a barrier, a warp or block collective, or use cooperative groups,
    which only a translated (inlined) body can do?"""
    from cuda_front.warp_front import BLOCK_COLLECTIVES, WARP_INTRINSICS

    for n in function.walk_preorder():
        if n.kind == K.CALL_EXPR and (n.spelling in BARRIER_FUNCTIONS or n.spelling in WARP_INTRINSICS
                                      or n.spelling in BLOCK_COLLECTIVES):
            return True
        if n.kind == K.ASM_STMT and inline_ptx.synchronizes(n):
            return True  # shfl.sync, vote.sync, bar.sync, ... in inline PTX
        if n.kind in (K.CALL_EXPR, K.DECL_REF_EXPR, K.PARM_DECL, K.VAR_DECL) and \
                "cooperative_groups::" in n.type.get_canonical().spelling:
            return True
        if n.kind in (K.DECL_REF_EXPR, K.PARM_DECL, K.VAR_DECL) and "cuda::barrier<" in n.type.get_canonical().spelling:
            return True  # a block barrier's waits are barriers
        if n.kind == K.CALL_EXPR and n.referenced is not None and \
                "cooperative_groups" in (n.referenced.semantic_parent.spelling if n.referenced.semantic_parent else ""):
            return True
        if n.kind == K.OVERLOADED_DECL_REF and any(
                (d.semantic_parent.spelling if d.semantic_parent else "") == "cooperative_groups"
                for d in clang_ext.overloaded_declarations(n)):
            return True  # in a template, cg::reduce(g, ...) on a group of dependent type: resolved per call
    return False


def _callee_name(call: ci.Cursor) -> str:
    """The function a call names, also in a template where overload resolution is still to come
    (libclang leaves such a call unnamed)."""
    if call.spelling:
        return call.spelling
    node = next(iter(call.get_children()), None)
    while node is not None and node.kind in (K.DECL_REF_EXPR, K.UNEXPOSED_EXPR):
        inner = [c for c in node.get_children() if c.kind not in (K.NAMESPACE_REF, K.TYPE_REF)]
        node = inner[0] if inner else None
    return node.spelling if node is not None and node.kind == K.OVERLOADED_DECL_REF else ""


def _ambient_arguments(call: ci.Cursor, builtins: tuple[str, ...]) -> tuple[str, Edit]:
    """The builtin vectors a kept call of a translated ``__device__`` function passes first:
    inserted after the call's opening parenthesis."""
    tokens = [] if clang_ext.expanded_from_macro(call) or call.extent.start.file is None else _file_tokens(call)
    depth, paren = 0, None
    for tok in tokens:
        depth += {"<": 1, ">": -1, ">>": -2}.get(tok.spelling, 0)
        if tok.spelling == "(" and depth <= 0:
            paren = tok
            break
    if paren is None:
        raise unsupported(location(call), f"a call of '{call.spelling}', which reads {', '.join(builtins)}, spelled "
                                          "by a macro in a member function or lambda kept as written")
    after = tokens[tokens.index(paren) + 1:]
    separator = "" if after and after[0].spelling == ")" else ", "
    text = ", ".join(f"moccuda::ambient().{b}" for b in builtins) + separator
    at = paren.extent.end.offset
    return call.extent.start.file.name, Edit(at, at, text)


def _overloaded_with_barriers(scan: UnitScan) -> set[str]:
    """Overloaded device functions that call ``__syncthreads()`` or a warp intrinsic, or use
    ``__shared__`` variables, as written (also an overload the converter cannot represent:
    ``inline-device`` reports why where it is called; kept as written, the intrinsic would reach
    g++).  A call on arguments of dependent type names its callee in an ``OVERLOADED_DECL_REF``."""
    synchronizing = {"__syncthreads", *WARP_INTRINSICS}
    return {name for name, overloads in scan.device_functions.items() if len(overloads) > 1
            and any(uses_block_storage(c) or any(n.spelling in synchronizing for n in c.walk_preorder()
                                                  if n.kind in (K.CALL_EXPR, K.OVERLOADED_DECL_REF))
                    or any(map(inline_ptx.synchronizes, inline_ptx.asm_statements(c)))
                    for c in overloads)}


def device_bodies_for_analysis(converter: Converter, scan: UnitScan,
                               unreadable: dict[str, CompileError] | None = None) -> dict[str, ir.DeviceFunction]:
    """IR of every ``__device__`` function with one definition, for the barrier analyses only
    (what a call reads and writes); the host text keeps them as written.  A body the converter
    cannot represent is left out (its error goes into ``unreadable``): calls to it count as
    unknown effects."""
    bodies = {}
    for name, overloads in scan.device_functions.items():
        if len(overloads) != 1:
            continue
        try:
            bodies[name] = converter.device_function(overloads[0])
        except CompileError as e:
            if unreadable is not None:
                unreadable[name] = e
    return bodies


def device_overloads_for_inlining(converter: Converter, scan: UnitScan,
                                  unreadable: dict[str, CompileError]) -> dict[str, ir.DeviceFunction]:
    """IR of each overload of the overloaded ``__device__`` functions, by declaration (its USR, as
    ``ir.Call.decl`` names it), for ``inline-device`` to inline the one a call means; a body the
    converter cannot represent puts its error into ``unreadable`` instead."""
    bodies = {}
    for overloads in scan.device_functions.values():
        if len(overloads) < 2:
            continue
        for cursor in overloads:
            try:
                bodies[cursor.get_usr()] = converter.device_function(cursor)
            except CompileError as e:
                unreadable[cursor.get_usr()] = e
    return bodies


def gpu_shift_functions(scan: UnitScan, bodies: dict[str, ir.DeviceFunction]) -> list[str]:
    """The ``__device__`` (not ``__host__``) functions that shift by a count not provably below
    the width: translated, not kept as written, so that the printer gives them the GPU's shifts
    (``foundation.expression_printer.GPU_SHIFTS``).  Only those ``bodies`` holds (one definition the
    converter can represent); others keep C++'s shifts."""
    from foundation.expression_printer import is_gpu_shift

    return [name for name, fn in bodies.items()
            if K.CUDAHOST_ATTR not in _attrs(scan.device_functions[name][0]) and any(map(is_gpu_shift, fn.body.walk()))]


def device_clock_functions(scan: UnitScan, bodies: dict[str, ir.DeviceFunction]) -> list[str]:
    """The ``__device__`` (not ``__host__``) functions that read ``clock()``: translated, not kept
    as written, so that the call is CUDA's cycle counter (``ir.DEVICE_CLOCK``), not the C
    library's process CPU time."""
    return [name for name, fn in bodies.items()
            if K.CUDAHOST_ATTR not in _attrs(scan.device_functions[name][0])
            and any(isinstance(n, ir.Call) and n.func == ir.DEVICE_CLOCK for n in fn.body.walk())]


# -------------------------------------------------------------------------------------- edits


def _file_bytes(scan: UnitScan, name: str) -> bytes:
    data = scan.files.get(name) or b""
    if not data:
        data = Path(name).read_bytes()
        scan.files[name] = data
    return data


def _extent(cursor: ci.Cursor) -> tuple[str, int, int]:
    ext = cursor.extent
    if ext.start.file is None or clang_ext.from_macro(cursor):
        raise unsupported(location(cursor), "a kernel or __device__ function defined by a macro")
    return ext.start.file.name, ext.start.offset, ext.end.offset


#: Directives that change which macros are defined, and the conditionals that decide whether
#: they run: what a function's text keeps when its body is replaced.
_MACRO_DIRECTIVES = frozenset({"define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else",
                               "endif"})


def macro_directives(data: bytes, start: int, end: int) -> str:
    """The ``#define``/``#undef`` lines written in ``data[start:end]`` (a function's text that a
    translation replaces), with the ``#if``/``#else``/``#endif`` around them, one per line and
    without comments; "" if there are none.

    Written after the translated function they have the same effect on the code that follows as
    where they stood: the conditionals are evaluated again with the same macros defined, since
    the directives before them run again in order.  The translated body needs none of them: it
    is printed from the parse, where they were already in effect."""
    text = data[start:end].decode(errors="replace")
    if "#" not in text:
        return ""
    lines: list[str] = []
    current: list[str] | None = None  # the directive being read, by its physical lines' pieces
    at_line_start, i, n = True, 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            if current is not None:
                current.append(" ")
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1 + (text[i] == "\\" and i + 1 < n)
            continue
        if ch == "\\" and text.startswith("\n", i + 1):
            i += 2  # a continued line
            continue
        if ch == "\n":
            if current is not None:
                lines.append("".join(current).strip())
                current = None
            at_line_start = True
            i += 1
            continue
        if current is None and ch in "\"'":
            close = i + 1
            while close < n and text[close] not in (ch, "\n"):
                close += 1 + (text[close] == "\\")
            i = close + 1
            at_line_start = False
            continue
        if at_line_start and ch == "#" and current is None:
            current = []
        if current is not None:
            current.append(ch)
        elif not ch.isspace():
            at_line_start = False
        i += 1
    if current is not None:
        lines.append("".join(current).strip())
    kept = [line for line in lines if line[1:].split(maxsplit=1)[:1] and line[1:].split()[0] in _MACRO_DIRECTIVES]
    if not any(line[1:].split()[0] in ("define", "undef") for line in kept):
        return ""
    return "\n" + "\n".join(kept) + "\n"


def _what_other_files_must_match(cursor: ci.Cursor, kernel: ir.Kernel, facts):
    """What the barrier analyses took from the kernel's launches in this file
    (:mod:`cuda_front.launch_sites`), where a launch from another file could differ: the block
    size, and the pointer parameters in distinct allocations (in parameter order), for a kernel
    with external linkage.  The translated kernel checks them at each launch
    (:func:`openmp_emit.emit.emit_kernel`); one that only this file can launch needs no check."""
    if facts is None or cursor.linkage in (ci.LinkageKind.INTERNAL, ci.LinkageKind.NO_LINKAGE):
        return None, ()
    order = [p.name for p in kernel.params]
    pairs = sorted(tuple(sorted(pair, key=order.index)) for pair in facts.distinct if pair <= set(order))
    return facts.block_extent, tuple(sorted(pairs, key=lambda p: (order.index(p[0]), order.index(p[1]))))


def launch_edits(unit: ParsedUnit, name: str, data: bytes, team_launches: set[tuple[str, int]] = frozenset()) -> list[Edit]:
    """``k<<<g, b, s, st>>>(args)`` becomes ``k(moccuda::LaunchConfig(g, b, s, st), args)``; inside
    a region of ``launch-regions`` (``team_launches``: file and end offset of the kernel's name),
    ``k__team(...)``, the work-sharing form."""
    if b"<<<" not in data:
        return []
    file = unit.tu.get_file(name)
    extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(unit.tu, file, 0),
                                           ci.SourceLocation.from_offset(unit.tu, file, len(data)))
    tokens = list(unit.tu.get_tokens(extent=extent))
    edits = []
    renamed = set()
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.spelling != "<<<" or tok.kind == ci.TokenKind.COMMENT:
            i += 1
            continue
        j = next((k for k in range(i + 1, len(tokens)) if tokens[k].spelling == ">>>"), None)
        if j is None or j + 1 >= len(tokens) or tokens[j + 1].spelling != "(":
            raise CompileError([Diagnostic("error", _tok_loc(tok), "malformed kernel launch: expected '>>>(' after '<<<'")])
        config = source_text(data[tok.extent.end.offset:tokens[j].extent.start.offset])
        has_args = j + 2 < len(tokens) and tokens[j + 2].spelling != ")"
        config = config.strip()
        if re.search(r"^[ \t]*#", config, re.M):
            config += "\n"  # it ends in a directive (`#endif` of an #ifdef'd argument): close on a new line
        text = f"(moccuda::LaunchConfig({config})" + (", " if has_args else "")
        name_end = _kernel_name_end(tokens, i)
        if name_end is not None and (name, name_end) in team_launches:
            edits.append(Edit(name_end, name_end, emit.TEAM_SUFFIX))
            renamed.add((name, name_end))
        edits.append(Edit(tok.extent.start.offset, tokens[j + 1].extent.end.offset, text))
        i = j + 2
    missed = {launch for launch in team_launches if launch[0] == name} - renamed
    if missed:
        # A launch left in its own form inside a shared region would run the whole grid once
        # per thread of the team: never emit that.
        raise AssertionError(f"launch-regions: launches at {sorted(missed)} were not renamed")
    return edits


def _kernel_name_end(tokens: list, launch: int) -> int | None:
    """The end offset of the kernel's name in the launch whose ``<<<`` is ``tokens[launch]``,
    past template arguments written between them (``k<float, 2><<<...``)."""
    k = clang_ext.name_before_template_arguments(tokens, launch)
    return tokens[k].extent.end.offset if k >= 0 and tokens[k].kind == ci.TokenKind.IDENTIFIER else None


#: Launch calls whose kernel argument, cast to ``void *`` as CUDA's C API wants it, is the
#: translated kernel itself for MocCUDA's typed overloads (a translated kernel is a host function
#: the C API cannot call).
KERNEL_POINTER_CALLS = frozenset({"cudaLaunchKernel", "cudaLaunchCooperativeKernel"})


def kernel_pointer_edits(unit: ParsedUnit, scan: UnitScan, kernels: set[str]) -> list[tuple[str, Edit]]:
    """``cudaLaunchCooperativeKernel((void *)k, ...)`` becomes ``cudaLaunchCooperativeKernel(k, ...)``
    when ``k`` is a kernel of this translation unit (as CUDA's samples write cooperative launches),
    or a variable initialized with one (FlashInfer's ``auto kernel = K<...>;``): MocCUDA's
    typed overloads then launch it with its parameters' types; through ``void *`` it is a
    host function the runtime cannot call."""
    edits = []
    casts = (K.CSTYLE_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_STATIC_CAST_EXPR)
    for top in (d.cursor for d in unit.top_level if d.file in scan.files):
        for call in top.walk_preorder():
            if call.kind != K.CALL_EXPR or _callee_name(call) not in KERNEL_POINTER_CALLS:
                continue
            args = list(call.get_arguments())
            cast = args[0] if args else None
            while cast is not None and cast.kind == K.UNEXPOSED_EXPR and len(list(cast.get_children())) == 1:
                cast = list(cast.get_children())[0]
            if cast is None or cast.kind not in casts or "void" not in cast.type.spelling:
                continue
            inner = [c for c in cast.walk_preorder() if c.kind == K.DECL_REF_EXPR]
            if not inner or not _names_a_kernel(inner[0], kernels):
                continue
            target = list(cast.get_children())[-1]
            written = _written_range(cast), _written_range(target)
            if None in written:
                continue  # spelled by a macro's body: the launch is the macro's to write
            (file, cast_start, cast_end), (_, start, end) = written
            text = source_text(_file_bytes(scan, file)[start:end])
            edits.append((file, Edit(cast_start, cast_end, text)))
    # A launch written in a macro's argument that the macro expands twice (a dispatch switch's
    # cases) is met once per expansion: one edit.
    return list(dict.fromkeys(edits))


def _names_a_kernel(ref: ci.Cursor, kernels: set[str]) -> bool:
    """Whether ``ref`` names a kernel, or a variable whose initializer is one (its first name:
    ``K<N, T>``, not ``pick(K)``)."""
    if ref.spelling in kernels:
        return True
    decl = ref.referenced
    init = clang_ext.var_decl_initializer(decl) if decl is not None and decl.kind == K.VAR_DECL else None
    if init is None or init.kind == K.CALL_EXPR:
        return False
    named = next((c for c in init.walk_preorder() if c.kind in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF, K.CALL_EXPR)
                  and c.spelling), None)  # in a template, an unnamed reference wraps the template's
    return named is not None and named.kind != K.CALL_EXPR and named.spelling in kernels


#: Runtime calls naming a __device__ or __constant__ variable, and which argument names it.
SYMBOL_ARGUMENT = {"cudaMemcpyToSymbol": 0, "cudaMemcpyToSymbolAsync": 0, "cudaMemcpyFromSymbol": 1,
                   "cudaMemcpyFromSymbolAsync": 1, "cudaGetSymbolAddress": 1, "cudaGetSymbolSize": 1}


def symbol_name_edits(unit: ParsedUnit, scan: UnitScan) -> list[tuple[str, Edit]]:
    """CUDA 4 and older named a symbol by a string: ``cudaMemcpyToSymbol("coeffs", ...)`` becomes
    ``cudaMemcpyToSymbol(coeffs, ...)`` when a file-scope ``__device__`` or ``__constant__``
    variable of that name is declared before the call (Rodinia's kmeans).  MocCUDA would otherwise
    look the name up among the executable's dynamic symbols, which a program linked by its own
    Makefile (no ``-rdynamic``) does not export: the copy failed and the kernels read zeros."""
    declared: set[str] = set()
    edits = []
    for decl in unit.top_level:
        top = decl.cursor
        if top.kind == K.VAR_DECL and {K.CUDACONSTANT_ATTR, K.CUDADEVICE_ATTR} & _attrs(top):
            declared.add(top.spelling)
            continue
        if decl.file not in scan.files or not declared:
            continue
        for call in top.walk_preorder():
            if call.kind != K.CALL_EXPR or call.spelling not in SYMBOL_ARGUMENT:
                continue
            args = list(call.get_arguments())
            index = SYMBOL_ARGUMENT[call.spelling]
            literal = args[index] if len(args) > index else None
            while literal is not None and literal.kind == K.UNEXPOSED_EXPR and len(list(literal.get_children())) == 1:
                literal = list(literal.get_children())[0]
            if literal is None or literal.kind != K.STRING_LITERAL or not literal.spelling.startswith('"'):
                continue
            name = literal.spelling[1:-1]
            written = _written_range(literal)
            if name in declared and written is not None:
                file, start, end = written
                edits.append((file, Edit(start, end, name)))
    return edits


def launched_pointer_type_edits(unit: ParsedUnit, scan: UnitScan) -> list[tuple[str, Edit]]:
    """A function pointer launched with ``<<< >>>`` (``void (*kernel)(float *, int) = &copy;
    kernel<<<g, b>>>(...)``) holds translated kernels, which take the launch configuration
    first: its declared type (or the typedef/using it is declared with) gets that parameter,
    ``void (*kernel)(moccuda::LaunchConfig, float *, int)``."""
    declarations: dict[int, ci.Cursor] = {}
    for top in (d.cursor for d in unit.top_level if d.file in scan.files):
        for call in top.walk_preorder():
            children = list(call.get_children()) if call.kind == K.CALL_EXPR else []
            if len(children) < 2 or children[1].kind != K.CALL_EXPR or children[1].spelling != "__cudaPushCallConfiguration":
                continue
            callee = children[0]
            while callee.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) and len(list(callee.get_children())) == 1:
                callee = list(callee.get_children())[0]
            ref = callee.referenced if callee.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) else None
            if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL, K.FIELD_DECL):
                continue
            declared = ref.type.get_declaration()
            if declared.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL):
                ref = declared  # the pointer type has a name: that is where its parameters are
            declarations.setdefault(clang_ext.identity(ref), ref)
    edits = []
    for decl in declarations.values():
        at = _function_pointer_parameters(decl)
        if at is None:
            raise unsupported(location(decl), "a kernel launched through a pointer whose type is not written "
                                               "'R (*name)(parameters)' here")
        file, offset, empty = at
        edits.append((file, Edit(offset, offset, "moccuda::LaunchConfig" + ("" if empty else ", "))))
    return edits


def _function_pointer_parameters(decl: ci.Cursor) -> tuple[str, int, bool] | None:
    """Where the parameter list of ``R (*name)(...)`` (or ``using name = R (*)(...)``) written by
    ``decl`` opens: its file, the offset just past ``(``, and whether the list is empty."""
    if clang_ext.expanded_from_macro(decl) or decl.extent.start.file is None:
        return None
    tokens = list(decl.get_tokens())
    spelled = [t.spelling for t in tokens]
    for i in range(len(spelled) - 2):
        star = spelled[i] == "(" and spelled[i + 1] == "*"
        if not star:
            continue
        close = i + 2 if spelled[i + 2] == ")" else i + 3
        if close + 1 >= len(spelled) or spelled[close] != ")" or spelled[close + 1] != "(":
            continue
        if close == i + 3 and spelled[i + 2] != decl.spelling:
            continue
        empty = spelled[close + 2] in (")", "void") if close + 2 < len(spelled) else True
        if spelled[close + 2:close + 4] == ["void", ")"]:
            return None  # `(void)`: one edit cannot make it `(moccuda::LaunchConfig)`
        return decl.extent.start.file.name, tokens[close + 1].extent.end.offset, empty
    return None


def _written_range(cursor: ci.Cursor) -> tuple[str, int, int] | None:
    """Where ``cursor`` is written: its file and byte range, also inside a macro's argument
    (``CHECK(cudaLaunchKernel((void *)k, ...))``); None for code a macro's body spells."""
    ext = cursor.extent
    if ext.start.file is None:
        return None
    if not clang_ext.expanded_from_macro(cursor):
        return ext.start.file.name, ext.start.offset, ext.end.offset
    if not clang_ext.from_macro(cursor):
        return None
    start, end = clang_ext.spelling_offset(ext.start), clang_ext.spelling_offset(ext.end)
    return (ext.start.file.name, start, end) if start < end else None


def _tok_loc(tok) -> SourceLoc:
    loc = tok.location
    return SourceLoc(loc.file.name if loc.file else "?", loc.line, loc.column)


def prototype_text(cursor: ci.Cursor, team: bool = False, defaults: bool = True) -> str:
    """``defaults``: with the default arguments written in ``cursor``'s parameters."""
    params = []
    for p in cursor.get_children():
        if p.kind == K.PARM_DECL:
            default = default_argument(p) if defaults else ""
            params.append((declare(p.type.spelling, p.spelling) if p.spelling else p.type.spelling)
                          + (f" = {default}" if default else ""))
    if team:
        return emit.kernel_declaration(emit.team_function_name(cursor.spelling), params, template_header(cursor), "static")
    specialization = specialization_arguments(cursor)
    if specialization:
        return emit.kernel_declaration(cursor.spelling + specialization, params, "template <>", "")
    return emit.kernel_declaration(cursor.spelling, params, template_header(cursor), "")


def prototype_builtins_edit(cursor: ci.Cursor, builtins: tuple[str, ...]) -> tuple[str, Edit]:
    """The edit that gives a forward declaration of a translated ``__device__`` function the
    leading builtin parameters its definition takes (``__device__ int f(int a = 7);`` becomes
    ``__device__ int f(const uint3 threadIdx, int a = 7);``); the rest is kept as written, default
    arguments included."""
    file, start, end = _extent(cursor)
    tu, source = cursor.translation_unit, cursor.extent.start.file
    written = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, source, start),
                                            ci.SourceLocation.from_offset(tu, source, end))
    tokens = list(tu.get_tokens(extent=written))  # as written (`__device__` is a macro)
    name = next((i for i, t in enumerate(tokens) if t.spelling == cursor.spelling), None)
    if name is None or name + 1 >= len(tokens) or tokens[name + 1].spelling != "(":
        raise unsupported(location(cursor), f"this declaration of '{cursor.spelling}', which reads the thread's "
                                            "index (its parameter list is not written after its name)")
    params = ", ".join(f"const {ir.BUILTIN_TYPES[b]} {b}" for b in builtins)
    after = [t.spelling for t in tokens[name + 2:name + 4]]
    opening = tokens[name + 1].extent.end.offset
    if after[:1] == [")"]:
        return file, Edit(opening, opening, params)
    if after == ["void", ")"]:
        return file, Edit(opening, tokens[name + 2].extent.end.offset, params)
    return file, Edit(opening, opening, params + ", ")


def _launch_regions(unit: ParsedUnit, scan: UnitScan, program: ir.Program, ctx: PassContext):
    """The host regions of ``launch-regions`` and the kernels launched in them."""
    if not ctx.launch_regions:
        return [], set()
    names = [k.name for k in program.kernels]
    candidates = {k.name for k in program.kernels if emit.can_run_in_team(k) and names.count(k.name) == 1}
    # The scan records included files by name only (their text is read when first edited): the
    # regions are edits of that text, so it must be there.
    files = {name: _file_bytes(scan, name) for name in scan.files}
    regions = launch_regions.find_regions([d.cursor for d in unit.top_level if d.file in files], files, candidates)
    return regions, {launch_regions.launched_kernel(c) for r in regions for c in r.launches}


def apply_edits(data: bytes, edits: list[Edit]) -> bytes:
    edits = sorted(edits, key=lambda e: e.start)
    out = []
    pos = 0
    for e in edits:
        if e.start < pos:
            raise AssertionError("overlapping source edits")
        out.append(data[pos:e.start])
        out.append(e.text.encode("utf-8", SOURCE_ERRORS))
        pos = e.end
    out.append(data[pos:])
    return b"".join(out)


def line_marker(file_name: str, line: int) -> bytes:
    """``#line LINE "FILE"``: what follows is FILE from LINE on, for the host compiler's
    diagnostics, ``__FILE__``/``__LINE__`` (assert) and debug information."""
    escaped = file_name.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{escaped}"\n'.encode("utf-8", SOURCE_ERRORS)


def _restart_point(data: bytes, offset: int) -> int:
    """The start of the first line after ``offset`` where a ``#line`` directive can go: not a
    continuation of a line ending in a backslash (a macro definition), not inside a block comment."""
    pos = offset
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            return len(data)
        opened, closed = data.rfind(b"/*", offset, end), data.rfind(b"*/", offset, end)
        if opened > closed:  # inside a comment: go on after it closes
            close = data.find(b"*/", end)
            if close < 0:
                return len(data)
            pos = close + 2
            continue
        if data[end - 1:end] == b"\\" or data[end - 2:end] == b"\\\r":
            pos = end + 1
            continue
        return end + 1


def apply_edits_with_line_markers(data: bytes, edits: list[Edit], file_name: str) -> bytes:
    """:func:`apply_edits`, with ``#line`` directives so that every line of ``data`` the
    translation keeps is known by its own number (one at the start, one after each edit that
    changes the number of lines: at once if the edit's text ends a line, else before the next
    line); a replaced region's own lines (a translated kernel) count on from the line where it
    starts.  A kernel on lines 3-6 of app.cu, say, becomes::

        #line 1 "app.cu"
        #include <cstdio>
        (blank)
        void k(moccuda::LaunchConfig launch, int *a)   <- line 3
        {   ... the translated kernel: lines 4, 5, ... of app.cu to g++ ...
        }
        #line 7 "app.cu"
        int main() { ...                               <- line 7, as in app.cu
    """
    edits = sorted(edits, key=lambda e: e.start)
    out = [line_marker(file_name, 1)]
    pos = 0
    restart = None  # where the next marker goes (an offset into data), if one is owed
    for e in edits:
        if e.start < pos:
            raise AssertionError("overlapping source edits")
        if restart is not None and restart <= e.start:
            out += [data[pos:restart], line_marker(file_name, data.count(b"\n", 0, restart) + 1)]
            pos, restart = restart, None
        out.append(data[pos:e.start])
        out.append(e.text.encode("utf-8", SOURCE_ERRORS))
        pos = e.end
        if e.text.count("\n") == data.count(b"\n", e.start, e.end) and restart is None:
            continue
        if e.text.endswith("\n"):  # the output is at a line start: the rest of the line is known at once
            out.append(line_marker(file_name, data.count(b"\n", 0, pos) + 1))
            restart = None
        else:
            restart = _restart_point(data, pos)
    if restart is not None and restart < len(data):
        out += [data[pos:restart], line_marker(file_name, data.count(b"\n", 0, restart) + 1)]
        pos = restart
    out.append(data[pos:])
    return b"".join(out)


def _line_span(data: bytes, offset: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    return start, (len(data) if end < 0 else end)


def render_file(name: str, edits: dict[str, list[Edit]], scan: UnitScan, includes: dict[str, list[tuple[int, str]]],
                dirty: set[str], inlined: set[str]) -> bytes:
    """The file's text with its edits applied and its dirty includes inlined (once each)."""
    data = _file_bytes(scan, name)
    file_edits = list(edits.get(name, []))
    for offset, target in includes.get(name, []):
        if target not in dirty:
            continue
        start, end = _line_span(data, offset)
        if target in inlined:
            file_edits.append(Edit(start, end, f"// (already inlined above) {source_text(data[start:end]).strip()}"))
            continue
        inlined.add(target)
        body = source_text(render_file(target, edits, scan, includes, dirty, inlined))
        body = re.sub(r"^[ \t]*#[ \t]*pragma[ \t]+once[ \t]*$", "", body, flags=re.M)
        file_edits.append(Edit(start, end, f"// begin {source_text(data[start:end]).strip()} (translated by cuda2cpu)\n"
                                           f"{body.rstrip()}\n// end {os.path.basename(target)}"))
    return apply_edits_with_line_markers(data, file_edits, name)


# --------------------------------------------------------------------------------- the driver


def host_library_includes(unit: ParsedUnit) -> list[str]:
    """The CCCL headers (Thrust, CUB, libcu++) that the user's files include, as ``<...>`` names,
    in the order the parse read them.

    Thrust's OpenMP system is host C++ for a host compiler: CCCL reads ``__CUDACC__``/``__NVCC__``
    as nvcc compiling (device attributes, ``NV_IF_TARGET``, intrinsics) and ``_OPENMP`` as OpenMP
    being there.  The translation defines the first two for the user's code and hides ``_OPENMP``
    from it, so these headers are included first, before any of that, as g++ with ``-fopenmp``
    sees them; the user's own includes of them are then empty (their include guards).  Their
    templates are instantiated later, as written (a macro the user defines before including them
    does not reach them)."""
    cccl = moccuda_build.header_library_dir("nvidia.cuda_cccl")
    if cccl is None:
        return []
    names: list[str] = []
    for inclusion in unit.tu.get_includes():
        if inclusion.source is None:  # -include on the command line
            continue
        included, by = Path(inclusion.include.name), Path(inclusion.source.name)
        if included.is_relative_to(cccl) and not by.is_relative_to(cccl):
            name = included.relative_to(cccl).as_posix()
            if name not in names:
                names.append(name)
    return names


def host_libraries_text(unit: ParsedUnit) -> str:
    """The lines that include :func:`host_library_includes` at the top of the translation."""
    names = host_library_includes(unit)
    if not names:
        return ""
    return ("// NVIDIA's host libraries first, as g++ with OpenMP compiles them (Thrust's OpenMP system):\n"
            + "".join(f"#include <{name}>\n" for name in names))


def translate_file(path: str | os.PathLike, options: TranslateOptions | None = None,
                   kernel_library: bool = False) -> TranslationResult:
    """``kernel_library``: the source of a kernel library for the program nvcc builds from the same
    file (``transpiler.kernel_library``): host code out, entry points in, no host regions.

    Runs on a thread with a deep stack (``transpiler.deep_stack``): every stage recurses on the
    program's nesting."""
    return deep_stack.call(_translate_file, path, options, kernel_library)


def _translate_file(path: str | os.PathLike, options: TranslateOptions | None,
                    kernel_library: bool) -> TranslationResult:
    options = options or TranslateOptions()
    disabled = (*options.disabled_passes, "launch-regions") if kernel_library else options.disabled_passes
    passes = build_pipeline(options.pipeline, disabled,
                            ("reassociate-reductions",) if options.reassociate_reductions else ())
    unit = parse_file(path, options)
    scan = scan_unit(unit)
    needs = device_builtins(scan)

    converter = Converter()
    converter.overloaded_device_functions = {name: {c.get_usr() for c in overloads}
                                             for name, overloads in scan.device_functions.items() if len(overloads) > 1}
    errors = device_launches_in_device_functions(scan)
    kernels = tuple(_each_converted(scan.kernels, converter.kernel, errors))
    unreadable: dict[str, CompileError] = {}
    bodies = device_bodies_for_analysis(converter, scan, unreadable)
    unreadable_overloads: dict[str, CompileError] = {}
    overload_bodies = device_overloads_for_inlining(converter, scan, unreadable_overloads)
    # A body the converter cannot read is kept as written, as host code, which has no barriers,
    # warp collectives or cooperative groups: its reason (e.g. nested too deeply) is the error.
    errors.extend(d for name, e in unreadable.items() if _synchronizes_as_written(scan.device_functions[name][0])
                  for d in e.diagnostics)
    shifting = set(gpu_shift_functions(scan, bodies))
    for name in shifting:
        needs.setdefault(name, ())  # translated (no builtin parameters) for the GPU's shifts
    for name in device_clock_functions(scan, bodies):
        needs.setdefault(name, ())  # translated (no builtin parameters) for the device's clock()
    for name in inline_assembly_functions(scan):
        needs.setdefault(name, ())  # translated: their inline PTX becomes C++
    # Functions that synchronize or use __shared__ variables are inlined into the kernels (pass
    # inline-device), not emitted.
    block_storage = {name for name, overloads in scan.device_functions.items() if any(map(uses_block_storage, overloads))}
    # Member functions that synchronize are inlined too; their kept bodies become traps (no kept
    # code may call them).
    # (One that only declares __shared__ variables is kept: shared_in_kept_code.)
    member_fns = member_functions(scan, converter)
    # A lambda is inlined where it is called: those of kernels and of translated functions always
    # (no function is emitted for them), those of functions kept as written when they synchronize.
    lambdas = converter.lambda_functions
    kernel_names = {c.spelling for c in scan.kernels}
    inlined_lambdas = {name for name, owner in converter.lambda_owners.items() if owner in kernel_names or owner in needs}
    # A member function with inline assembly is inlined too (kept as written, its PTX would reach
    # g++'s assembler), and so are the functions that call it.
    asm_members = {key for key, definitions in member_fns.definitions.items()
                   if any(map(inline_ptx.asm_statements, definitions))}
    inlined = synchronizing_functions({**bodies, **lambdas},
                                      block_storage | inlined_lambdas | _overloaded_with_barriers(scan) | asm_members,
                                      member_fns.bodies, overload_bodies)
    inlined |= _unreadable_synchronizing_members(member_fns, inlined)
    member_edits, member_errors = inlined_member_edits(member_fns, inlined)
    errors.extend(member_errors)
    inlined_members = {clang_ext.identity(c) for key in inlined & set(member_fns.definitions)
                       for c in member_fns.definitions[key]}
    replaced = {(file, e.start, e.end) for file, e in member_edits}
    kept_shared = [(file, e) for file, e in shared_in_kept_code(scan)
                   if not any(f == file and start <= e.start and e.end <= end for f, start, end in replaced)]
    kept_builtins = builtins_in_kept_code(scan, set(needs) | inlined,
                                          {name: b for name, b in needs.items() if name not in inlined}, inlined,
                                          inlined_members)
    device_fns = []
    kept_overloads: set = set()
    for name, overloads in scan.device_functions.items():
        if name in needs and name not in inlined:
            for cursor in overloads:
                try:
                    fn = converter.device_function(cursor)
                except CompileError as exc:
                    if _translated_for_itself(cursor, needs, shifting):
                        errors.extend(exc.diagnostics)
                    else:
                        kept_overloads.add(clang_ext.identity(cursor))
                    continue
                device_fns.append(replace(fn, builtins=needs[name]))
    if errors:
        # Every construct of the file that cannot be translated, each once, in source order.
        unique = {(d.loc.file, d.loc.line, d.loc.column, d.message): d for d in errors}
        raise CompileError([unique[k] for k in sorted(unique)])
    program = ir.Program(kernels, tuple(device_fns))
    program = ir.pass_builtins_to_calls(program, needs)

    ctx = PassContext(dict(converter.symbols), lowering=options.lowering, schedule=options.schedule,
                      reassociate_floating=options.reassociate_reductions,
                      device_bodies={**bodies, **lambdas},
                      device_builtins=needs, synchronizing=frozenset(inlined), namespace_shared=converter.namespace_shared,
                      binds_dynamic_shared=bool(kept_shared), sets_ambient_index=bool(kept_builtins),
                      device_overloads=overload_bodies,
                      unreadable_device_bodies={**unreadable, **unreadable_overloads}, launches=launch_sites.analyze(unit.user_top_level(), scan.kernels),
                      member_bodies={key: member_fns.bodies.get(key, ()) for key in inlined & set(member_fns.definitions)},
                      unreadable_members={key: e for key, e in member_fns.unreadable.items() if key in inlined})
    program = run_pipeline(program, passes, ctx)

    edits: dict[str, list[Edit]] = {}
    regions, team_kernels = _launch_regions(unit, scan, program, ctx)
    for region in regions:
        edits.setdefault(region.file, []).extend(Edit(at, at, text) for at, text in region.insertions)
    team_launches = {(region.file, launch_regions.callee_end(c)) for region in regions for c in region.launches}
    trapping = device_traps.trapping_functions(program)
    for cursor, kernel in zip(scan.kernels, program.kernels):
        file, start, end = _extent(cursor)
        block, distinct = _what_other_files_must_match(cursor, kernel, ctx.launches.get(kernel.name))
        text = emit.emit_kernel(kernel, team=kernel.name in team_kernels, trapping=trapping, assumed_block=block,
                                assumed_distinct=distinct)
        if kernel.name in team_kernels and cursor.lexical_parent.kind == K.LINKAGE_SPEC:
            # `extern "C"` written before the kernel applies to the first declaration of the text:
            # the kernel's own, not its static team function.
            text = prototype_text(cursor, defaults=False) + ";\n" + text  # the definition has them
        text += macro_directives(_file_bytes(scan, file), start, end)
        edits.setdefault(file, []).append(Edit(start, end, text))
    for cursor in scan.kernel_prototypes:
        file, start, end = _extent(cursor)
        text = prototype_text(cursor)
        if cursor.spelling in team_kernels:
            text = text + ";\n" + prototype_text(cursor, team=True)  # the kernel's first (as above)
        edits.setdefault(file, []).append(Edit(start, end, text))
    translated = iter(program.device_functions)
    for name, overloads in scan.device_functions.items():
        for cursor in overloads:
            file, start, end = _extent(cursor)
            directives = macro_directives(_file_bytes(scan, file), start, end)
            if name in inlined:
                text = f"/* {name}: inlined into the kernels that call it (it synchronizes or uses __shared__ memory) */"
                edits.setdefault(file, []).append(Edit(start, end, text + directives))
            elif name in needs and clang_ext.identity(cursor) in kept_overloads:
                if needs[name]:
                    edit = prototype_builtins_edit(cursor, needs[name])
                    edits.setdefault(edit[0], []).append(edit[1])
            elif name in needs:
                edits.setdefault(file, []).append(Edit(start, end, emit.emit_device_function(next(translated)) + directives))
    for cursor in scan.device_prototypes:
        builtins = needs.get(cursor.spelling, ()) if cursor.spelling not in inlined else ()
        if builtins:
            edit = prototype_builtins_edit(cursor, builtins)
            edits.setdefault(edit[0], []).append(edit[1])
    # Explicit instantiations of kernels name the translated kernel's launch parameter too.
    instantiations = kernel_library_module.explicit_instantiations(unit, {c.spelling for c in scan.kernels},
                                                                   list(scan.files))
    for e in kernel_library_module.explicit_instantiation_edits(instantiations):
        edits.setdefault(e.file, []).append(Edit(e.start, e.end, e.text))
    if kernel_library:
        library_edits, library_warnings = kernel_library_module.library_edits(unit, scan, options, instantiations)
        for e in library_edits:
            edits.setdefault(e.file, []).append(Edit(e.start, e.end, e.text))
        ctx.warnings.extend(library_warnings)
    for name in list(scan.files):
        found = launch_edits(unit, name, _file_bytes(scan, name), team_launches)
        if found:
            edits.setdefault(name, []).extend(found)
    kept_math = math_calls_in_kept_code(scan, set(needs) | inlined, inlined_members) \
        if any(p.name == "device-math" for p in passes) else []
    for name, edit in kept_shared + kept_builtins + member_edits + kept_math:
        edits.setdefault(name, []).append(edit)
    for name, edit in kernel_pointer_edits(unit, scan, {c.spelling for c in scan.kernels}):
        edits.setdefault(name, []).append(edit)
    for name, edit in launched_pointer_type_edits(unit, scan):
        edits.setdefault(name, []).append(edit)
    for name, edit in symbol_name_edits(unit, scan):
        edits.setdefault(name, []).append(edit)
    # PyTorch extensions: host checks for CUDA tensors accept the CPU tensors standing in for them.
    host_rewrites = []
    if options.torch_host:
        for name in list(scan.files):
            host_rewrites += torch_host.device_check_rewrites(unit.tu, name, _file_bytes(scan, name))
        for r in host_rewrites:
            edits.setdefault(r.loc.file, []).append(Edit(r.start, r.end, r.new))

    includes: dict[str, list[tuple[int, str]]] = {}
    for inc in scan.includes:
        target = inc.get_included_file()
        if target is None:
            continue
        includes.setdefault(inc.location.file.name, []).append((inc.extent.start.offset, target.name))
    # A header the parse changed (unit.changed_headers) goes into the translation as changed.
    dirty = {name for name, e in edits.items() if e} | set(unit.changed_headers)
    changed = True
    while changed:
        changed = False
        for name, incs in includes.items():
            if name not in dirty and any(t in dirty for _, t in incs):
                dirty.add(name)
                changed = True

    main = str(unit.path)
    inlined: set[str] = {main}
    body = source_text(render_file(main, edits, scan, includes, dirty, inlined))
    # Kernels lowered with fibers (the fallback lowering) need MocCUDA's fiber scheduler.
    runtime_includes = f"#include <{fiber_emit.FIBERS_HEADER}>\n" if fiber_emit.uses_fibers(program) else ""
    # Blocks run at once (grid.sync(), blocks waiting for each other) need MocCUDA's run_grid.
    if any(g is not None and g.schedule == "cooperative" for g in map(ir.grid_loop, program.kernels)):
        runtime_includes += "#include <cooperative_groups.h>\n"
    # The translation is compiled with -fopenmp, which defines _OPENMP; the source was parsed as
    # nvcc's host compiler sees it, without _OPENMP unless the user's flags ask for OpenMP: keep
    # its #ifdef _OPENMP choices (after the runtime headers, which use OpenMP themselves).
    openmp_macro = "" if options.host_openmp else "#undef _OPENMP\n"
    source = skeleton.render("translation_unit.cpp.j2", version=__version__,
                             source_name=os.path.basename(main), body=body, runtime_includes=runtime_includes,
                             openmp_macro=openmp_macro, host_libraries=host_libraries_text(unit))
    explain = {"kernels": [ctx.reports[k.name].as_json() for k in program.kernels if k.name in ctx.reports],
               "regions": [r.as_json() for r in regions]}
    if host_rewrites:
        explain["host_rewrites"] = [r.as_json() for r in host_rewrites]
    include_dirs = sorted({os.path.dirname(os.path.abspath(f)) for f in inlined})
    included = [inc.include.name for inc in unit.tu.get_includes()]
    return TranslationResult(source, ctx.warnings, explain, include_dirs, program, included)
