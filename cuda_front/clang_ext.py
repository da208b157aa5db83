"""libclang functions that the Python bindings of the wheel do not wrap, and two it wraps unsafely.

libclang 17 added operator-kind queries to its C API (``clang_getCursorBinaryOperatorKind`` and
friends); they tell the operator of a BINARY_OPERATOR / UNARY_OPERATOR cursor even when its tokens
come from a macro expansion, which re-lexing the cursor's extent cannot.

The bindings' ``Cursor.get_children`` collects children in a ctypes callback, and ctypes prints
and ignores an exception raised there ("Exception ignored on calling ctypes callback"): the list
comes back short and translation went on with part of the tree missing.  Their
``Cursor.walk_preorder`` recurses once per level of the tree, so a deeply nested expression
overflows the stack.  Importing this module replaces both, for every user of the bindings: an
exception in a visitor callback is raised again by ``get_children`` once the visit ends
(:func:`callbacks_raise`), and ``walk_preorder`` keeps its own stack.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import threading
from functools import cache

import clang.cindex as ci

from foundation.diagnostics import SourceLoc

_visits = threading.local()


_hook_before = [sys.unraisablehook]


def _unraisable_hook(info) -> None:
    """Keeps an exception of a callback run inside :func:`callbacks_raise`; hands on the others."""
    errors = getattr(_visits, "errors", None)
    if errors is not None and info.exc_value is not None:
        errors.append(info.exc_value)
        return
    _hook_before[0](info)


@contextlib.contextmanager
def callbacks_raise():
    """Raise, on leaving the block, the first exception that a ctypes callback called inside it
    raised (ctypes hands it to ``sys.unraisablehook``, which would print and drop it)."""
    if sys.unraisablehook is not _unraisable_hook:  # installed here, again if another took its place
        _hook_before[0] = sys.unraisablehook
        sys.unraisablehook = _unraisable_hook
    outer = getattr(_visits, "errors", None)
    _visits.errors = []
    try:
        yield
        errors = _visits.errors
    finally:
        _visits.errors = outer
    if errors:
        raise errors[0]


def _collect_child(child, _parent, children):
    children.append(child)
    return 1  # CXChildVisit_Continue


#: One ctypes callback for every visit (the list to fill is the visit's client data): making a
#: callback and a context manager per call cost more than the visit itself.
_COLLECT_CHILD = ci.callbacks["cursor_visit"](_collect_child)


def _get_children(self: ci.Cursor):
    """The cursor's children, as ``Cursor.get_children`` gives them; an exception raised while
    collecting them propagates instead of leaving the list short (as :func:`callbacks_raise`
    does, written out: this runs once for every cursor visited)."""
    if sys.unraisablehook is not _unraisable_hook:
        _hook_before[0] = sys.unraisablehook
        sys.unraisablehook = _unraisable_hook
    children = []
    outer = getattr(_visits, "errors", None)
    errors = _visits.errors = []
    try:
        ci.conf.lib.clang_visitChildren(self, _COLLECT_CHILD, children)
    finally:
        _visits.errors = outer
    if errors:
        raise errors[0]
    tu = self._tu
    for child in children:
        child._tu = tu  # keeps the translation unit alive as long as the cursor
    return iter(children)


def _walk_preorder(self: ci.Cursor):
    """This cursor and its descendants, depth-first pre-order, without recursion."""
    pending = [iter((self,))]
    while pending:
        cursor = next(pending[-1], None)
        if cursor is None:
            pending.pop()
            continue
        yield cursor
        pending.append(cursor.get_children())


ci.Cursor.get_children = _get_children
ci.Cursor.walk_preorder = _walk_preorder


def _decode_keeping_bytes(self) -> str | None:
    raw = ctypes.c_char_p.value.__get__(self)
    return None if raw is None else raw.decode("utf-8", "surrogateescape")


def _encode_keeping_bytes(self, text=None) -> None:
    if text is None:
        text = ""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    ctypes.c_char_p.__init__(self, text)


# The bindings decode every string libclang returns (token and cursor spellings, file names) as
# strict UTF-8, so a source file with a Latin-1 `©` in a comment raised UnicodeDecodeError.  Bytes
# that are not UTF-8 become lone surrogates instead (transpiler.translate.SOURCE_ERRORS) and are
# written back as the same bytes.
ci.c_interop_string.value = property(_decode_keeping_bytes)
ci.c_interop_string.__init__ = _encode_keeping_bytes


@cache
def _lib():
    lib = ci.conf.lib
    for prefix in ("Binary", "Unary"):
        kind = getattr(lib, f"clang_getCursor{prefix}OperatorKind")
        kind.argtypes = [ci.Cursor]
        kind.restype = ctypes.c_int
        spelling = getattr(lib, f"clang_get{prefix}OperatorKindSpelling")
        spelling.argtypes = [ctypes.c_int]
        spelling.restype = ci._CXString
        spelling.errcheck = ci._CXString.from_result
    return lib


def binary_operator(cursor: ci.Cursor) -> str:
    lib = _lib()
    return lib.clang_getBinaryOperatorKindSpelling(lib.clang_getCursorBinaryOperatorKind(cursor))


def unary_operator(cursor: ci.Cursor) -> str:
    """The operator's spelling; postfix ++/-- are returned as "post++"/"post--"."""
    lib = _lib()
    kind = lib.clang_getCursorUnaryOperatorKind(cursor)
    # CXUnaryOperatorKind: 1 PostInc, 2 PostDec, 3 PreInc, 4 PreDec, ...
    if kind == 1:
        return "post++"
    if kind == 2:
        return "post--"
    return lib.clang_getUnaryOperatorKindSpelling(kind)


@cache
def _lib13():
    lib = ci.conf.lib
    lib.clang_Cursor_getVarDeclInitializer.argtypes = [ci.Cursor]
    lib.clang_Cursor_getVarDeclInitializer.restype = ci.Cursor
    lib.clang_Cursor_getVarDeclInitializer.errcheck = ci.Cursor.from_cursor_result
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_isUnsignedInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_isUnsignedInt.restype = ctypes.c_uint
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_Cursor_isFunctionInlined.argtypes = [ci.Cursor]
    lib.clang_Cursor_isFunctionInlined.restype = ctypes.c_uint
    lib.clang_getSpellingLocation.argtypes = [
        ci.SourceLocation, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    return lib


def is_inline_function(cursor: ci.Cursor) -> bool:
    """Is the function declared ``inline`` (or implicitly so: constexpr, defined in its class)?"""
    lib = _lib13()
    return bool(lib.clang_Cursor_isFunctionInlined(cursor))


def var_decl_initializer(cursor: ci.Cursor) -> ci.Cursor | None:
    """The initializer expression of a VAR_DECL, or None (array bounds are not initializers)."""
    init = _lib13().clang_Cursor_getVarDeclInitializer(cursor)
    if init is None or init.kind in (ci.CursorKind.NO_DECL_FOUND, ci.CursorKind.INVALID_FILE):
        return None
    return init


def evaluate(cursor: ci.Cursor) -> int | float | None:
    """Evaluate a constant expression (used for literals spelled through macros)."""
    lib = _lib13()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(result)
        if kind == 1:  # CXEval_Int
            if lib.clang_EvalResult_isUnsignedInt(result):
                return lib.clang_EvalResult_getAsUnsigned(result)
            return lib.clang_EvalResult_getAsLongLong(result)
        if kind == 2:  # CXEval_Float
            return lib.clang_EvalResult_getAsDouble(result)
        return None
    finally:
        lib.clang_EvalResult_dispose(result)


def identity(cursor: ci.Cursor) -> int | tuple[int, int | None, int | None]:
    """A key for the AST node ``cursor`` stands for: two cursors of one node give equal keys, and
    two nodes of a translation unit (while it lives) never do.  For a declaration, the address
    of its clang ``Decl`` (an int: the front end's symbol id); for a statement or expression, of its
    ``Stmt``; for any other cursor (a reference such as an overloaded name, an attribute), its kind
    with what it points at and where.  ``Cursor.hash`` (``clang_hashCursor``) folds the same address
    and the kind into 32 bits, which distinct nodes share: 8 pairs among 300,000 declarations."""
    kind = cursor.kind
    if kind.is_declaration():
        return cursor.data[0]
    if kind.is_expression() or kind.is_statement():
        return cursor.data[1]
    return (cursor._kind_id, cursor.data[0], cursor.data[1])


def specialized_template(cursor: ci.Cursor) -> ci.Cursor | None:
    """The function template ``cursor`` (a function template specialization) instantiates, or None
    for a function that is not a template's instance."""
    return ci.conf.lib.clang_getSpecializedCursorTemplate(cursor)


def overloaded_declarations(ref: ci.Cursor) -> list[ci.Cursor]:
    """The declarations an ``OVERLOADED_DECL_REF`` names: the overload set a call on arguments of
    dependent type looks in (clang chooses among them only when the template is instantiated)."""
    lib = ci.conf.lib
    return [lib.clang_getOverloadedDecl(ref, i) for i in range(lib.clang_getNumOverloadedDecls(ref))]


def overload_set(callee: ci.Cursor) -> ci.Cursor | None:
    """The ``OVERLOADED_DECL_REF`` a call's callee names (in a template, on arguments of dependent
    type), or None."""
    K = ci.CursorKind
    while callee.kind in (K.DECL_REF_EXPR, K.UNEXPOSED_EXPR):
        inner = [c for c in callee.get_children() if c.kind not in (K.NAMESPACE_REF, K.TYPE_REF)]
        if len(inner) != 1:
            return None
        callee = inner[0]
    return callee if callee.kind == K.OVERLOADED_DECL_REF else None


def spelling_offset(location: ci.SourceLocation) -> int:
    """Byte offset of where the token at ``location`` is spelled (inside a macro body, if any)."""
    lib = _lib13()
    offset = ctypes.c_uint()
    line, col = ctypes.c_uint(), ctypes.c_uint()
    file = ctypes.c_void_p()
    lib.clang_getSpellingLocation(location, ctypes.byref(file), ctypes.byref(line),
                                  ctypes.byref(col), ctypes.byref(offset))
    return offset.value


def from_macro(cursor: ci.Cursor) -> bool:
    """True when the cursor's first token comes from a macro argument.  (libclang's spelling
    location is the file location, so a token of a macro's body is not told apart here: see
    :func:`expanded_from_macro`.)"""
    start = cursor.extent.start
    return start.file is not None and spelling_offset(start) != start.offset


#: clang's SourceLocation encoding marks a location inside a macro expansion with its top bit
#: (``SourceLocation::MacroIDBit``); libclang passes the encoding through as ``int_data``.
_MACRO_ID_BIT = 1 << 31


def expanded_from_macro(cursor: ci.Cursor) -> bool:
    """True when the cursor starts inside a macro expansion, its body or an argument.

    Its tokens (``cursor.get_tokens()``) are then not what is written at the cursor: libclang
    tokenizes from where the first token is spelled, which for a macro's body is the
    ``#define`` line, up to the end of the expansion in the file."""
    start = cursor.extent.start
    return start.file is not None and bool(start.int_data & _MACRO_ID_BIT)


def _in_macro_argument(location: ci.SourceLocation) -> bool:
    return bool(location.int_data & _MACRO_ID_BIT) and spelling_offset(location) != location.offset


def written_tokens(cursor: ci.Cursor) -> list | None:
    """The cursor's tokens as written in the file: also for code written in a macro's argument
    (``MAX(16 / sizeof(T), 1)``), which stands in the file as it is; None when the cursor
    starts or ends in a macro's body (see :func:`expanded_from_macro`)."""
    if not expanded_from_macro(cursor):
        return list(cursor.get_tokens())
    ext = cursor.extent
    if not (_in_macro_argument(ext.start) and _in_macro_argument(ext.end)):
        return None
    start, end = spelling_offset(ext.start), spelling_offset(ext.end)
    if end <= start:
        return None
    tu, file = cursor.translation_unit, ext.start.file
    return list(tu.get_tokens(extent=ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, file, start),
                                                                   ci.SourceLocation.from_offset(tu, file, end))))


def name_before_template_arguments(tokens: list, after: int, lowest: int = 0) -> int:
    """The index of the token that names what a template-argument list closing just before
    ``tokens[after]`` belongs to (``k`` in ``k<float, 2><<<`` or ``k<float>(``), or of the token
    just before ``tokens[after]`` when no such list closes there; an index below ``lowest`` when
    the list does not open at or after ``lowest``."""
    k = after - 1
    if k >= lowest and tokens[k].spelling in (">", ">>"):
        depth = 0
        while k >= lowest:
            depth += {">": 1, ">>": 2, "<": -1}.get(tokens[k].spelling, 0)
            if depth <= 0:
                break
            k -= 1
        k -= 1
    return k


def location(cursor: ci.Cursor) -> SourceLoc:
    """Where ``cursor`` starts, as a diagnostic location."""
    loc = cursor.location
    return SourceLoc(loc.file.name if loc.file else "<built-in>", loc.line, loc.column)


def tokens_text(tokens) -> str:
    """Join tokens compactly: a space only where two words would otherwise fuse."""
    out = ""
    for tok in tokens:
        s = tok.spelling
        if out and (out[-1].isalnum() or out[-1] == "_") and (s[0].isalnum() or s[0] == "_"):
            out += " "
        out += s
    return out
