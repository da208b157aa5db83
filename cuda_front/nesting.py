"""Refuse, before libclang sees it, source nested deeper than the parse can take.

clang's parser and semantic checks recurse once per level of nesting, and nothing in clang limits
most kinds of nesting (``-fbracket-depth``, 256, limits only brackets): 10,000 nested ``if``s,
8,000 nested casts or 32,000 terms of a sum overflow a 16 MiB stack (a crash, not an error).
:func:`check` bounds the parse's nesting from the tokens, in one pass and without recursion, and
raises a located error where the bound passes :data:`MAX_DEPTH`.  The translation runs on a stack
(``transpiler.deep_stack``) that holds the parse of any input within the bound: measured, clang
uses at most about 5 KiB of stack per level (nested casts, the costliest shape).

The bound, at a token, is the number of tokens of the statement being parsed at each enclosing
bracket level, plus one per open bracket.  A closed bracket group counts as one token of its
level; ``;`` starts a new statement in braces, and ``,`` a new element in a list (call arguments,
braced initializers), since clang parses statements and list elements in a loop, not by recursion.
Macro expansions are not seen: a macro that expands to deep nesting is not caught here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from foundation.diagnostics import CompileError, Diagnostic, SourceLoc

#: The largest bound accepted: 20,000 levels at 5 KiB is 100 MiB, a fifth of the deep stack.
MAX_DEPTH = 20_000

_TOKEN = re.compile(rb"""//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?"""
                    rb"""|^[ \t]*\#(?:\\\r?\n|[^\n])*|[A-Za-z_]\w*|\d(?:[\w.]|'(?=\w))*|\S""", re.M | re.S)
#: Words before a '(' that opens an expression, not an argument list.
_NOT_CALLS = {b"if", b"while", b"for", b"switch", b"return", b"sizeof", b"alignof", b"decltype", b"case",
              b"throw", b"co_return", b"co_yield", b"noexcept"}
#: Words before a '{' that opens statements.
_STATEMENT_WORDS = {b"else", b"do", b"try"}


@dataclass
class _Level:
    bracket: bytes  # b"{", b"(", b"[", or b"" for the file itself
    base: int  # the bound at the bracket that opened this level
    statement_tokens: int = 0
    is_list: bool = False  # ',' separates elements parsed in a loop


def _is_word(token: bytes) -> bool:
    return token[:1].isalpha() or token[:1] == b"_"


def _opens_list(bracket: bytes, previous: bytes, parent: _Level) -> bool:
    if bracket == b"(":
        return (_is_word(previous) and previous not in _NOT_CALLS) or previous in (b">", b"]")
    if bracket == b"{":
        if previous == b"{":
            return parent.is_list
        return previous in (b"=", b",", b"(", b"return", b">", b"]") or (
            _is_word(previous) and previous not in _STATEMENT_WORDS)
    return False


def check(data: bytes, path: str) -> None:
    """Raise a located :class:`CompileError` where ``data``'s nesting passes :data:`MAX_DEPTH`."""
    levels = [_Level(b"", 0, is_list=False)]
    previous = b""
    for match in _TOKEN.finditer(data):
        token = match.group()
        if token[:2] in (b"//", b"/*") or token.lstrip()[:1] == b"#":
            continue
        level = levels[-1]
        if token in (b"(", b"[", b"{"):
            base = level.base + level.statement_tokens + 1
            levels.append(_Level(token, base, is_list=_opens_list(token, previous, level)))
        elif token in (b")", b"]", b"}"):
            if len(levels) > 1:
                levels.pop()
            levels[-1].statement_tokens += 1
        elif token == b";" and level.bracket in (b"{", b""):
            level.statement_tokens = 0
        elif token == b"," and level.is_list:
            level.statement_tokens = 0
        else:
            level.statement_tokens += 1
        previous = token
        level = levels[-1]
        if level.base + level.statement_tokens > MAX_DEPTH:
            line = data.count(b"\n", 0, match.start()) + 1
            column = match.start() - (data.rfind(b"\n", 0, match.start()) + 1) + 1
            raise CompileError([Diagnostic("error", SourceLoc(path, line, column),
                                           f"code nested too deeply to parse: more than {MAX_DEPTH} levels "
                                           "(statements, operators and brackets)")])
