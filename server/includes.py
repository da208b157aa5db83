"""Refuse uploads whose preprocessor directives could read files outside the upload.

An upload may include the files uploaded with it and system or prelude headers (``<cstdio>``,
``"cuda_runtime.h"``), named by a plain relative path.  Absolute paths, ``..`` components,
backslashes and computed includes (``#include MACRO``) are refused before libclang opens anything,
so no server file is ever read, and so none can be echoed in a clang message.

The scanner follows the C preprocessor's lexing closely enough to see every directive a compiler
would: backslash-newlines are spliced, comments count as white space (``#/**/include``), the
digraph ``%:`` and the trigraph ``??=`` count as ``#``, and string, character and raw-string
literals are skipped, so ``"/*"`` cannot hide a directive.  It errs toward refusing: an
``#include`` anywhere outside a literal or comment is checked, not only at the start of a line.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

DIRECTIVES = ("include", "include_next", "import", "embed")
HAS_INCLUDE = ("__has_include", "__has_include_next", "__has_embed")
# ``#pragma GCC dependency "file"`` (also through ``_Pragma``) stats a file: refused wherever it appears.
_DEPENDENCY = re.compile(r"GCC(?:\s|\\\r?\n)+dependency")


@dataclass(frozen=True)
class Refusal:
    line: int
    column: int
    message: str


def unsafe_target(name: str) -> str | None:
    """Why an include target may not be opened, or None when it is a plain relative path."""
    if not name:
        return "an empty include path"
    if name.startswith("/") or "\\" in name or re.match(r"[A-Za-z]:", name):
        return "an absolute path"
    if any(part == ".." for part in name.split("/")):
        return "a '..' path component"
    if any(ord(c) < 32 for c in name):
        return "a control character"
    return None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.refusals: list[Refusal] = []

    def where(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_left(self.newlines, offset)
        start = self.newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def refuse(self, offset: int, message: str) -> None:
        line, column = self.where(offset)
        self.refusals.append(Refusal(line, column, message))

    def splice(self, i: int) -> int:
        """Skip backslash-newlines at ``i``."""
        t = self.text
        while t.startswith("\\\n", i) or t.startswith("\\\r\n", i):
            i += 2 if t[i + 1] == "\n" else 3
        return i

    def char(self, i: int) -> tuple[str, int]:
        """The character at ``i`` after line splicing, and the offset just after it."""
        i = self.splice(i)
        if i >= len(self.text):
            return "", i
        return self.text[i], i + 1

    def skip_space(self, i: int, newlines: bool = False) -> int:
        """Skip blanks and comments (and newlines when asked) from ``i``."""
        while True:
            c, j = self.char(i)
            if c in (" ", "\t", "\v", "\f", "\r") or (newlines and c == "\n"):
                i = j
                continue
            if c == "/":
                d, k = self.char(j)
                if d == "*":
                    end = self.text.find("*/", k)
                    i = len(self.text) if end < 0 else end + 2
                    continue
                if d == "/":
                    i = self.line_end(k)
                    continue
            return i

    def line_end(self, i: int) -> int:
        while True:
            c, j = self.char(i)
            if c in ("", "\n"):
                return i
            i = j

    def word(self, i: int) -> tuple[str, int]:
        out = []
        while True:
            c, j = self.char(i)
            if not (c.isalnum() or c == "_"):
                return "".join(out), i
            out.append(c)
            i = j

    def literal(self, i: int, quote: str) -> int:
        """Skip a string or character literal whose opening quote is at ``i``."""
        i += 1
        while True:
            c, j = self.char(i)
            if c in ("", "\n", quote):
                return j
            if c == "\\":
                _, j = self.char(j)
            i = j

    def raw_literal(self, i: int) -> int:
        """Skip a raw string literal ``R"d(...)d"`` whose quote is at ``i``."""
        open_paren = self.text.find("(", i)
        if open_paren < 0:
            return len(self.text)
        delim = self.text[i + 1:open_paren]
        end = self.text.find(")" + delim + '"', open_paren)
        return len(self.text) if end < 0 else end + len(delim) + 2

    def operand(self, i: int) -> tuple[str | None, int]:
        """Read a ``"name"`` or ``<name>`` operand at ``i``; None when it is anything else."""
        c, j = self.char(i)
        close = {'"': '"', "<": ">"}.get(c)
        if close is None:
            return None, i
        out = []
        while True:
            d, j = self.char(j)
            if d == close:
                return "".join(out), j
            if d in ("", "\n"):
                return None, j
            out.append(d)

    def directive(self, start: int, i: int) -> int:
        """Check the directive whose ``#`` is at ``start``; ``i`` is just after the ``#``."""
        i = self.skip_space(i)
        name, j = self.word(i)
        if name not in DIRECTIVES:
            return j
        k = self.skip_space(j)
        target, end = self.operand(k)
        if target is None:
            self.refuse(start, f"#{name} must name a file as \"file.h\" or <file.h>; computed includes "
                        "are not allowed in uploads")
            return end
        self.check_target(start, name, target)
        return end

    def check_target(self, offset: int, what: str, target: str) -> None:
        why = unsafe_target(target)
        if why:
            self.refuse(offset, f"#{what} of '{target}' is refused: the service only includes uploaded "
                        f"files and system headers by relative name ({why})")

    def has_include(self, start: int, name: str, i: int) -> int:
        i = self.skip_space(i, newlines=True)
        c, j = self.char(i)
        if c != "(":
            return i
        k = self.skip_space(j, newlines=True)
        target, end = self.operand(k)
        if target is not None:
            why = unsafe_target(target)
            if why:
                self.refuse(start, f"{name}('{target}') is refused in uploads ({why})")
        return end

    def scan(self) -> list[Refusal]:
        t = self.text
        i = 0
        while i < len(t):
            c, j = self.char(i)
            if c == "":
                break
            if c == "/" and self.char(j)[0] in ("*", "/"):
                i = self.skip_space(i)
                continue
            if c == '"':
                i = self.raw_literal(i) if i > 0 and t[i - 1] == "R" else self.literal(i, '"')
                continue
            if c == "'":
                if i > 0 and (t[i - 1].isalnum() or t[i - 1] == "_") and _in_number(t, i):
                    i = j  # a digit separator: 1'000
                else:
                    i = self.literal(i, "'")
                continue
            if c == "#":
                i = self.directive(i, j)
                continue
            if c == "%" and self.char(j)[0] == ":":
                i = self.directive(i, self.char(j)[1])
                continue
            if c == "?" and t.startswith("?=", j):
                i = self.directive(i, j + 2)
                continue
            if c.isalpha() or c == "_":
                word, k = self.word(i)
                i = self.has_include(i, word, k) if word in HAS_INCLUDE else k
                continue
            i = j
        return self.refusals


def _in_number(text: str, quote: int) -> bool:
    """Whether the ``'`` at ``quote`` follows a token that starts with a digit (a pp-number)."""
    k = quote - 1
    while k >= 0 and (text[k].isalnum() or text[k] in "_.'"):
        k -= 1
    return text[k + 1].isdigit() or text[k + 1] == "."


def scan(text: str) -> list[Refusal]:
    """Every include-like directive in ``text`` that the service refuses, with its location."""
    scanner = _Scanner(text)
    for m in _DEPENDENCY.finditer(text):
        scanner.refuse(m.start(), "#pragma GCC dependency is not allowed in uploads")
    return sorted(scanner.scan(), key=lambda r: (r.line, r.column))
