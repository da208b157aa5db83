"""The ``template`` keyword that nvcc lets a call of a dependent member template leave out.

In a template, ``vec_cast<D, S>::cast<N>(dst, src)`` names the member template ``cast`` of a
class that depends on the template's parameters: C++ wants ``vec_cast<D, S>::template cast<N>``
(likewise ``obj.template get<T>()``), else ``<`` is a less-than.  nvcc's front end takes the name
as the template it turns out to be; clang and g++ reject the call, clang with one of the
diagnostics below, at the name or at the start of the qualified name.  The front end inserts the
keyword where clang reports it missing and parses again: the translation, which g++ compiles,
keeps the inserted keyword (the file is then rendered into it, ``transpiler.translate``).

Before::

    vec_cast<tgt_float_t, src_float_t>::cast<vec_size>(dst.ptr(), src.ptr());

After::

    vec_cast<tgt_float_t, src_float_t>::template cast<vec_size>(dst.ptr(), src.ptr());
"""

from __future__ import annotations

import re

#: clang's diagnostics of a dependent member template called without ``template``: the name when
#: the message gives it (group 1), else None (the location is the start of the qualified name).
MISSING_KEYWORD = (
    re.compile(r"missing 'template' keyword prior to dependent template name '(\w+)'"),
    re.compile(r"use 'template' keyword to treat '(\w+)' as a dependent template name"),
    re.compile(r"reference to overloaded function could not be resolved; did you mean to call it\?()"),
)

_TOKEN = re.compile(rb"\s*(::|->|[A-Za-z_]\w*|\d[\w.']*|>>|\S)")
_ACCESS = (b"::", b".", b"->")
_KEYWORD = b"template "


def missing_name(message: str) -> str | None:
    """For one of the diagnostics above, the member template's name ("" when the message does
    not give it); None for any other diagnostic."""
    for pattern in MISSING_KEYWORD:
        found = pattern.fullmatch(message)
        if found:
            return found.group(1)
    return None


def _tokens(data: bytes, at: int, limit: int = 400) -> list[tuple[bytes, int]]:
    """The tokens of ``data`` from ``at`` (with their offsets), up to the end of the statement or
    ``limit`` tokens."""
    out = []
    pos = at
    while len(out) < limit:
        found = _TOKEN.match(data, pos)
        if found is None:
            break
        token = found.group(1)
        if token in (b";", b"{", b"}"):
            break
        out.append((token, found.start(1)))
        pos = found.end()
    return out


def _after_arguments(tokens: list[tuple[bytes, int]], i: int) -> int | None:
    """Index of the token after the template argument list that opens at ``tokens[i]`` (``<``)."""
    depth = 0
    for j in range(i, len(tokens)):
        token = tokens[j][0]
        if token in (b"<", b"(", b"["):
            depth += 1
        elif token in (b")", b"]"):
            depth -= 1
        elif token == b">":
            depth -= 1
        elif token == b">>":
            depth -= 2
        if depth <= 0:
            return j + 1
    return None


def insertion_point(data: bytes, at: int, name: str) -> int | None:
    """Where ``template `` goes for the diagnostic at offset ``at`` of ``data``: before the member
    template ``name`` when the location is that name; else, along the qualified name or member
    access that starts at ``at`` (``A<..>::B::f<..>(``, ``x.f<..>(``), before the first name that
    follows ``::``, ``.`` or ``->`` and has a template argument list that ``::`` does not follow
    (it names a member template, not a class), if it is ``name`` (when the diagnostic gives it).
    None when there is no such name, or ``template`` is already there."""
    tokens = _tokens(data, at)
    if not tokens:
        return None
    if name and tokens[0][0] == name.encode():
        before = data[:at].rstrip()
        if not before.endswith(_ACCESS) or before.endswith(b"template"):
            return None
        return at
    i = 1 if tokens[0][0] == b"::" else 0
    while i + 1 < len(tokens) and re.fullmatch(rb"[A-Za-z_]\w*", tokens[i][0]) and tokens[i][0] != b"template":
        following = tokens[i + 1][0]
        if following in _ACCESS:
            i += 2
            continue
        if following != b"<":
            return None
        after = _after_arguments(tokens, i + 1)
        if after is None:
            return None
        if after < len(tokens) and tokens[after][0] in _ACCESS:
            i = after + 1
            continue
        named = not name or tokens[i][0] == name.encode()
        return tokens[i][1] if i > 0 and tokens[i - 1][0] in _ACCESS and named else None
    return None


def insert_keywords(data: bytes, offsets: set[int]) -> bytes:
    """``data`` with ``template `` inserted at each of ``offsets``."""
    for offset in sorted(offsets, reverse=True):
        data = data[:offset] + _KEYWORD + data[offset:]
    return data
