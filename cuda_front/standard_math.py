"""Which calls mean the C/C++ standard library's math functions that ``moccuda::device_math``
declares (:mod:`foundation.device_math`).

A call means one when clang resolved it to the library's declaration (``erff``, ``::erf`` on a
double, ``std::erf`` on a float: the float overload, whose C name is ``erff``), or, in a template
on arguments of dependent type, when every declaration its name finds is the library's (the
overloads of ``erf`` in ``std`` and the global namespace): ``moccuda::device_math::cmath``'s
overloads of the name then resolve as those do.  A program's own function of the name (an overload
``exp(Dual)``) takes the call out; so does an argument that is neither float nor double (the
library's integer overloads ``std::exp(int)``).
"""

from __future__ import annotations

import clang.cindex as ci

from cuda_front import clang_ext
from foundation import device_math

K = ci.CursorKind


def device_math_function(call: ci.Cursor) -> str:
    """The ``moccuda::device_math`` function ``call`` (a ``CALL_EXPR``) means, as device code
    calls it: the C function clang resolved it to (``moccuda::device_math::erff``), or in a
    template ``<cmath>``'s overloads of the name (``moccuda::device_math::cmath::erf``); "" for any
    other call."""
    ref = call.referenced
    if ref is not None and ref.kind == K.FUNCTION_DECL:
        c_name = _resolved(ref, len(list(call.get_arguments())))
        return device_math.c_function(c_name) if c_name else ""
    callee = next(iter(call.get_children()), None)
    overloads = clang_ext.overload_set(callee) if callee is not None else None
    if overloads is None or overloads.spelling not in device_math.CMATH:
        return ""
    if all(map(_library_declaration, clang_ext.overloaded_declarations(overloads))):
        return device_math.cmath_overloads(overloads.spelling)
    return ""


def _resolved(function: ci.Cursor, arg_count: int) -> str:
    """The C name of ``function``, the library's float or double function of a name in the
    table; else ""."""
    name = function.spelling
    if name not in device_math.C_FUNCTIONS or not _library_declaration(function):
        return ""
    base = name if name in device_math.ARITY else name[:-1]
    if device_math.ARITY[base] != arg_count:
        return ""
    kinds = {a.type.get_canonical().kind for a in function.get_arguments()}
    kinds.add(function.result_type.get_canonical().kind)
    if kinds == {ci.TypeKind.FLOAT}:
        return base + "f"
    if kinds == {ci.TypeKind.DOUBLE} and name == base:
        return base
    return ""


def _library_declaration(declaration: ci.Cursor) -> bool:
    """Is ``declaration`` the standard library's: in a system header, at namespace scope in the
    global namespace or ``std`` (a using-declaration there, ``using std::erf;``, counts)?"""
    if not declaration.location.is_in_system_header:
        return False
    namespaces = []
    parent = declaration.semantic_parent
    while parent is not None and parent.kind != K.TRANSLATION_UNIT:
        if parent.kind == K.NAMESPACE:
            namespaces.append(parent.spelling)
        elif parent.kind != K.LINKAGE_SPEC:
            return False  # a member of a class
        parent = parent.semantic_parent
    # the global namespace, std, or an inline namespace of the library's inside it (libc++'s std::__1)
    return not namespaces or namespaces[-1] == "std"
