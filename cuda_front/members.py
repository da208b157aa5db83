"""Member functions of the program's classes, as ``inline-device`` needs them.

A member function that synchronizes (``__syncthreads()``, a warp collective, a ``__shared__``
variable, directly or through its callees) is inlined into the kernels, as a non-member one is.
Its body is converted in the context of its class (:class:`MemberContext`): ``this`` is the
parameter ``self``, an implicit member access ``m`` is ``self->m``, and the names the class
declares (its types, static members and enumerators) are spelled through the class, with the
class template's parameters (``typename ::ns::C<T, N>::Item``), so that the inliner, which
substitutes the object's template arguments for those parameters, writes them as the kernel must.

This module finds the classes and spells those names; ``cuda_front.convert`` converts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import clang.cindex as ci

from cuda_front import clang_ext
from cuda_front.clang_ext import location, tokens_text
from foundation import ir
from foundation.diagnostics import unsupported

K = ci.CursorKind

#: Class declarations whose member functions may be inlined.
CLASS_KINDS = frozenset({K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE, K.UNION_DECL})
#: Declarations of member functions.
METHOD_KINDS = frozenset({K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR})
#: Names a class declares that are types (and, for the last two, templates).
_TYPE_KINDS = frozenset({K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL, K.STRUCT_DECL, K.CLASS_DECL, K.UNION_DECL, K.ENUM_DECL})
_TEMPLATE_TYPE_KINDS = frozenset({K.CLASS_TEMPLATE, K.TYPE_ALIAS_TEMPLATE_DECL})


def pattern_class(decl: ci.Cursor | None) -> ci.Cursor | None:
    """The class ``decl`` names, as its definition in the source: a specialization of a class
    template (``Exchange<int, 64>``) gives the template; None for what is not a class of the
    user's own files."""
    if decl is None or decl.kind not in CLASS_KINDS:
        return None
    template = ci.conf.lib.clang_getSpecializedCursorTemplate(decl)
    if template is not None and not template.kind.is_invalid() and template.kind in CLASS_KINDS:
        decl = template
    definition = decl.get_definition() or decl
    file = definition.location.file
    if file is None or definition.location.is_in_system_header:
        return None
    return definition


def class_of_type(type_: ci.Type) -> ci.Cursor | None:
    """The class of an object of type ``type_`` (or pointed to, or referred to)."""
    canonical = type_.get_canonical()
    while canonical.kind in (ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        canonical = canonical.get_pointee().get_canonical()
    decl = canonical.get_declaration()
    if decl.kind.is_invalid():
        decl = type_.get_declaration()
    return pattern_class(decl)


def class_usr(cls: ci.Cursor) -> str:
    return cls.get_usr()


def is_member_function(cursor: ci.Cursor) -> bool:
    parent = cursor.semantic_parent
    return cursor.kind in METHOD_KINDS and parent is not None and parent.kind in CLASS_KINDS


def template_parameters(cursor: ci.Cursor) -> list[str]:
    kinds = (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER)
    return [c.spelling for c in cursor.get_children() if c.kind in kinds]


def leading_headers(cursor: ci.Cursor) -> list[str]:
    """The ``template <...>`` headers written before a declaration, in order (an out-of-class
    member template of a class template has two)."""
    tokens = clang_ext.written_tokens(cursor)
    if tokens is None:
        raise unsupported(location(cursor), "a class or member function template whose header comes from a macro")
    headers, i = [], 0
    while i + 1 < len(tokens) and tokens[i].spelling == "template" and tokens[i + 1].spelling == "<":
        depth, j = 0, i + 1
        while j < len(tokens):
            depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[j].spelling, 0)
            if depth <= 0:
                break
            j += 1
        headers.append("template <" + tokens_text(tokens[i + 2:j]).replace(",", ", ") + ">")
        i = j + 1
    return headers


def class_text(cls: ci.Cursor) -> str:
    """The class as its members name it from outside, with its template parameters:
    ``::ns::Exchange<T, N>``.  Only a class at namespace scope."""
    parts = []
    parent = cls.semantic_parent
    while parent is not None and parent.kind != K.TRANSLATION_UNIT:
        if parent.kind in CLASS_KINDS:
            raise unsupported(location(cls), "inlining a member function of a nested class, which synchronizes "
                                             "(define the class at namespace scope)")
        if parent.kind == K.NAMESPACE and parent.spelling:
            parts.append(parent.spelling)
        parent = parent.semantic_parent
    name = "::" + "::".join([*reversed(parts), cls.spelling])
    if cls.kind == K.CLASS_TEMPLATE:
        params = template_parameters(cls)
        if _has_pack(cls):
            raise unsupported(location(cls), "inlining a member function of a variadic class template, which "
                                             "synchronizes")
        name += "<" + ", ".join(params) + ">"
    return name


def _has_pack(cls: ci.Cursor) -> bool:
    for param in cls.get_children():
        if param.kind in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER):
            spelled = [t.spelling for t in param.get_tokens()]
            if "..." in spelled:
                return True
    return False


def class_header(cls: ci.Cursor) -> str:
    """The class template's header (``template <typename T, int N = 4>``), or ""."""
    if cls.kind != K.CLASS_TEMPLATE:
        return ""
    headers = leading_headers(cls)
    if not headers:
        raise unsupported(location(cls), "this class template's header")
    return headers[-1]


def member_header(method: ci.Cursor) -> str:
    """A member function template's own header (the last one written before it), or ""."""
    if method.kind != K.FUNCTION_TEMPLATE:
        return ""
    headers = leading_headers(method)
    return headers[-1] if headers else ""


@dataclass
class MemberContext:
    """What converting a member function's body needs to know of its class."""

    cls: ci.Cursor
    text: str  # class_text(cls)
    self_sym: int
    static: bool
    #: The class's own names of types: name -> whether it is a template.
    types: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def of(cls_, method: ci.Cursor, self_sym: int) -> "MemberContext":
        cls = pattern_class(method.semantic_parent)
        if cls is None:
            raise unsupported(location(method), "inlining a member function of a class outside the program's files")
        types = {}
        for c in cls.get_children():
            if c.kind in _TYPE_KINDS and c.spelling:
                types[c.spelling] = False
            elif c.kind in _TEMPLATE_TYPE_KINDS and c.spelling:
                types[c.spelling] = True
        return cls_(cls, class_text(cls), self_sym, method.is_static_method(), types)

    def owns(self, decl: ci.Cursor | None) -> bool:
        """Is ``decl`` declared by this class (an enumerator of an enum declared in it too)?"""
        if decl is None:
            return False
        parent = decl.semantic_parent
        if decl.kind == K.ENUM_CONSTANT_DECL and parent is not None and parent.kind == K.ENUM_DECL:
            parent = parent.semantic_parent
        return pattern_class(parent) is not None and pattern_class(parent).get_usr() == self.cls.get_usr()

    def qualify_types(self, spelling: str) -> str:
        """``spelling`` with the class's own type names written through the class
        (``Item`` -> ``typename ::ns::C<T>::Item``; clang's ``struct ns::C::Item`` too, the
        class's name without its template arguments)."""
        plain = self.text.split("<", 1)[0].lstrip(":")
        # The class's own name: with template arguments, through its namespaces; without, the
        # injected class name (the class itself).
        own = re.escape(self.cls.spelling)
        spelling = re.sub(r"(?<![\w:])" + own + r"(?=\s*<)", "::" + plain, spelling)
        spelling = re.sub(r"(?:\b(?:struct|class|union)\s+)?(?<![\w:])" + own + r"\b(?!\s*(<|::))", self.text, spelling)
        if not self.types:
            return spelling
        spelled = r"(?:\b(?:struct|class|union|enum)\s+)?(?<![\w:])(?:::)?" + re.escape(plain) + \
            r"\s*::\s*(" + "|".join(map(re.escape, self.types)) + r")\b"

        def through_class(m: re.Match) -> str:
            keyword = "template " if self.types[m.group(1)] else ""
            return f"typename {self.text}::{keyword}{m.group(1)}"

        spelling = re.sub(spelled, through_class, spelling)
        pattern = r"(?<![\w:.>])(" + "|".join(map(re.escape, self.types)) + r")\b(?!\s*::\s*~)"

        def qualified(m: re.Match) -> str:
            keyword = "template " if self.types[m.group(1)] else ""
            return f"typename {self.text}::{keyword}{m.group(1)}"

        return re.sub(pattern, qualified, spelling)

    def self_name(self, loc) -> ir.Name:
        if self.static:
            raise unsupported(loc, "'this' in a static member function")
        return ir.Name("self", self.self_sym, loc=loc)
