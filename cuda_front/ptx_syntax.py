"""The syntax of inline PTX: an ``asm`` statement's template parsed into statements.

A pure function of the template text (after C's string-literal escapes): no clang, no IR, so the
parser is tested on its own (``tests/test_ptx_syntax.py``).  What it reads:

* statements separated by ``;`` (and newlines), ``//`` and ``/* */`` comments;
* ``{`` and ``}`` opening and closing a register scope, ``.reg .TYPE name, name<N>;``
  declarations in it;
* instructions ``[@[!]p] opcode.mod.mod operand, ...`` whose operands are registers (``%r1``,
  ``p``), special registers (``%laneid``, ``%tid.x``), the asm's operands (``%0``, ``%[name]``,
  which a template writes with one ``%``; ``%%`` is a literal ``%``), immediates (``16``,
  ``0x1f``, ``-4``, ``0f3F800000``, ``1.5``), addresses ``[%1]``/``[%1+16]``, vectors
  ``{%0, %1}``, negated predicates ``!p``, the sink ``_`` and the pair ``d|p``.

Before::

    "{ .reg .pred p; setp.ne.b32 p, %0, 0; @p cp.async.cg.shared.global [%1], [%2], 16; }"

After::

    (ScopeOpen(), RegisterDecl('pred', ('p',)),
     Instruction(None, 'setp', ('ne', 'b32'), (Reg('p'), Ref(0), Imm('0'))),
     Instruction(Guard('p', False), 'cp', ('async', 'cg', 'shared', 'global'),
                 (Address(Ref(1), 0), Address(Ref(2), 0), Imm('16'))),
     ScopeClose())

Anything else (labels, branches, other directives, expressions as immediates) is a
:class:`PtxSyntaxError` naming what it met.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class PtxSyntaxError(Exception):
    """A template this parser does not read; ``at`` is the offset in the template text."""

    def __init__(self, message: str, at: int = 0) -> None:
        super().__init__(message)
        self.at = at


# ------------------------------------------------------------------------------- operands


@dataclass(frozen=True)
class Ref:
    """The asm statement's operand number ``index`` (``%0``, or ``%[name]`` resolved)."""

    index: int


@dataclass(frozen=True)
class Reg:
    """A PTX register by name: one declared with ``.reg``, or a special register (``%laneid``)."""

    name: str


@dataclass(frozen=True)
class Imm:
    """An immediate as written: an integer (``16``, ``0x1f``, ``-4``), a float (``1.5``), or a
    float's bits (``0f3F800000``, ``0d3FF0000000000000``)."""

    text: str


@dataclass(frozen=True)
class Not:
    """A negated predicate operand ``!p``."""

    operand: "Operand"


@dataclass(frozen=True)
class Pair:
    """``d|p``: a result and the predicate an instruction writes beside it."""

    first: "Operand"
    second: "Operand"


@dataclass(frozen=True)
class Sink:
    """``_``: a result nobody reads."""


@dataclass(frozen=True)
class Vector:
    elements: tuple["Operand", ...]


@dataclass(frozen=True)
class Address:
    """``[base + offset]``."""

    base: "Operand"
    offset: int = 0


Operand = Ref | Reg | Imm | Not | Pair | Sink | Vector | Address


# ----------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Guard:
    """``@p`` (``negated``: ``@!p``) before an instruction."""

    operand: Operand
    negated: bool


@dataclass(frozen=True)
class Instruction:
    guard: Guard | None
    opcode: str  # the first part: ``cp`` of ``cp.async.cg.shared.global``
    modifiers: tuple[str, ...]  # the other parts, without dots: ``('async', 'cg', 'shared', 'global')``
    operands: tuple[Operand, ...]
    at: int = 0  # offset of the opcode in the template

    @property
    def name(self) -> str:
        """The instruction as written: ``cp.async.cg.shared.global``."""
        return ".".join((self.opcode, *self.modifiers))


@dataclass(frozen=True)
class RegisterDecl:
    type: str  # without the dot: ``b32``, ``pred``
    names: tuple[str, ...]  # ``%r<3>`` is ``%r0, %r1, %r2``
    at: int = 0


@dataclass(frozen=True)
class ScopeOpen:
    at: int = 0


@dataclass(frozen=True)
class ScopeClose:
    at: int = 0


Statement = Instruction | RegisterDecl | ScopeOpen | ScopeClose


# --------------------------------------------------------------------------------- lexing

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+|\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<ref>%\d+|%\[\w+\])
  | (?P<reg>%%[A-Za-z_$][\w$]*(?:\.[xyz])?)
  | (?P<float_bits>-?0[fF][0-9a-fA-F]{8}\b|-?0[dD][0-9a-fA-F]{16}\b)
  | (?P<number>-?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)[uU]?)
  | (?P<word>[.]?[A-Za-z_$][\w$]*(?:(?:\.|::)[\w$]+)*)
  | (?P<punct>[,;:{}\[\]+|!@<>_()-])
""", re.X | re.S)

#: Special registers whose name has a component (``%tid.x``): the lexer keeps the component.
_SPECIAL_WITH_COMPONENT = frozenset({"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
                                     "%cluster_ctaid", "%cluster_nctaid"})


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    at: int


def _tokens(text: str, operand_names: dict[str, int]) -> list[_Token]:
    found = []
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None and text[i] == "%":
            raise PtxSyntaxError("a '%' that is neither an operand (%0, %[name]) nor a register (%%name) in inline "
                                 "PTX", i)
        if m is None:
            raise PtxSyntaxError(f"unexpected character {text[i]!r} in inline PTX", i)
        kind = m.lastgroup
        value = m.group()
        i = m.end()
        if kind == "space" and value == "\n":
            found.append(_Token("punct", ";", m.start()))
            continue
        if kind in ("space", "comment"):
            continue
        if kind == "ref" and value.startswith("%["):
            name = value[2:-1]
            if name not in operand_names:
                raise PtxSyntaxError(f"'%[{name}]' names no operand of the asm statement", m.start())
            value = f"%{operand_names[name]}"
        if kind == "reg":
            value = value[1:]  # "%%laneid" is the register %laneid
            base = value.split(".", 1)[0]
            if "." in value and base not in _SPECIAL_WITH_COMPONENT:
                raise PtxSyntaxError(f"unexpected '{value}' in inline PTX", m.start())
        if kind == "word" and value == "_":
            kind = "punct"
        found.append(_Token(kind, value, m.start()))
    return found


# -------------------------------------------------------------------------------- parsing


def parse_ptx(text: str, operand_names: dict[str, int] | None = None) -> tuple[Statement, ...]:
    """The statements of an inline-PTX template (``text`` as the string literals spell it, after
    their escapes); ``operand_names`` maps the asm's symbolic operand names to their numbers."""
    return _Parser(_tokens(text, operand_names or {})).statements()


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self, offset: int = 0) -> _Token | None:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def at_text(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "punct" and tok.text == text

    def expect(self, text: str) -> _Token:
        tok = self.peek()
        if tok is None or tok.text != text:
            where = tok.at if tok is not None else (self.tokens[-1].at if self.tokens else 0)
            got = f"'{tok.text}'" if tok is not None else "the end"
            raise PtxSyntaxError(f"expected '{text}' in inline PTX, found {got}", where)
        return self.take()

    def statements(self) -> tuple[Statement, ...]:
        found: list[Statement] = []
        depth = 0
        while self.peek() is not None:
            tok = self.peek()
            if tok.kind == "punct" and tok.text == ";":
                self.take()
            elif tok.kind == "punct" and tok.text == "{":
                self.take()
                depth += 1
                found.append(ScopeOpen(tok.at))
            elif tok.kind == "punct" and tok.text == "}":
                self.take()
                depth -= 1
                if depth < 0:
                    raise PtxSyntaxError("a '}' without its '{' in inline PTX", tok.at)
                found.append(ScopeClose(tok.at))
            elif tok.kind == "word" and tok.text.startswith("."):
                found.append(self.directive())
            else:
                found.append(self.instruction())
        if depth:
            raise PtxSyntaxError("a '{' without its '}' in inline PTX", self.tokens[-1].at)
        return tuple(found)

    def directive(self) -> RegisterDecl:
        tok = self.take()
        if tok.text != ".reg":
            raise PtxSyntaxError(f"the directive '{tok.text}' in inline PTX (only .reg declarations are read)", tok.at)
        type_tok = self.peek()
        if type_tok is None or type_tok.kind != "word" or not type_tok.text.startswith("."):
            raise PtxSyntaxError("a .reg declaration without a type", tok.at)
        self.take()
        type_ = type_tok.text[1:]
        if type_ in ("v2", "v4", "v8"):
            raise PtxSyntaxError(f"a vector register declaration (.reg .{type_}) in inline PTX", type_tok.at)
        names: list[str] = []
        while True:
            name_tok = self.take() if self.peek() is not None else None
            if name_tok is None or name_tok.kind not in ("word", "reg") or name_tok.text.startswith("."):
                raise PtxSyntaxError("a .reg declaration without a register name", tok.at)
            if self.at_text("<"):
                self.take()
                count = self.take()
                if count.kind != "number" or not count.text.isdigit():
                    raise PtxSyntaxError("a register count that is not a number", count.at)
                self.expect(">")
                names.extend(f"{name_tok.text}{k}" for k in range(int(count.text)))
            else:
                names.append(name_tok.text)
            if not self.at_text(","):
                break
            self.take()
        if self.peek() is not None:
            self.expect(";")
        return RegisterDecl(type_, tuple(names), tok.at)

    def instruction(self) -> Instruction:
        guard = None
        if self.at_text("@"):
            at = self.take().at
            negated = self.at_text("!")
            if negated:
                self.take()
            guard = Guard(self.register_operand(), negated)
            if self.peek() is None:
                raise PtxSyntaxError("a guard without an instruction", at)
        tok = self.take()
        if tok.kind != "word" or tok.text.startswith("."):
            raise PtxSyntaxError(f"unexpected '{tok.text}' in inline PTX, where an instruction should be", tok.at)
        if self.at_text(":") or (self.peek() is not None and self.peek().text == ":"):
            raise PtxSyntaxError(f"the label '{tok.text}' in inline PTX (branches are not translated)", tok.at)
        parts = tok.text.split(".")
        operands: list[Operand] = []
        while self.peek() is not None and not self.at_text(";"):
            operands.append(self.operand())
            if self.at_text(","):
                self.take()
            elif self.peek() is not None and not self.at_text(";"):
                nxt = self.peek()
                raise PtxSyntaxError(f"unexpected '{nxt.text}' after an operand of '{tok.text}'", nxt.at)
        return Instruction(guard, parts[0], tuple(parts[1:]), tuple(operands), tok.at)

    def register_operand(self) -> Operand:
        tok = self.take()
        if tok.kind == "ref":
            return Ref(int(tok.text[1:]))
        if tok.kind in ("reg", "word") and not tok.text.startswith("."):
            return Reg(tok.text)
        raise PtxSyntaxError(f"unexpected '{tok.text}' in inline PTX, where a register should be", tok.at)

    def operand(self) -> Operand:
        tok = self.peek()
        if tok.kind == "punct" and tok.text == "!":
            self.take()
            return Not(self.register_operand())
        if tok.kind == "punct" and tok.text == "_":
            self.take()
            return Sink()
        if tok.kind == "punct" and tok.text == "{":
            self.take()
            elements = [self.operand()]
            while self.at_text(","):
                self.take()
                elements.append(self.operand())
            self.expect("}")
            return Vector(tuple(elements))
        if tok.kind == "punct" and tok.text == "[":
            return self.address()
        if tok.kind in ("number", "float_bits"):
            self.take()
            return Imm(tok.text)
        if tok.kind == "punct" and tok.text == "-" and self.peek(1) is not None and self.peek(1).kind in ("number",
                                                                                                        "float_bits"):
            self.take()
            return Imm("-" + self.take().text)
        first = self.register_operand()
        if self.at_text("|"):
            self.take()
            return Pair(first, self.register_operand())
        return first

    def address(self) -> Address:
        start = self.expect("[")
        tok = self.peek()
        if tok is None:
            raise PtxSyntaxError("an address without its ']'", start.at)
        if tok.kind in ("number",):
            raise PtxSyntaxError("an absolute address in inline PTX", tok.at)
        base = self.register_operand()
        offset = 0
        while self.at_text("+") or self.at_text("-") or (self.peek() is not None and self.peek().kind == "number"
                                                          and self.peek().text.startswith("-")):
            sign = 1
            if self.at_text("+") or self.at_text("-"):
                sign = -1 if self.take().text == "-" else 1
            number = self.take()
            if number.kind != "number":
                raise PtxSyntaxError(f"an address offset '{number.text}' that is not a number (registers are not "
                                     "added in a PTX address)", number.at)
            offset += sign * immediate_integer(number.text)
        self.expect("]")
        return Address(base, offset)


def immediate_integer(text: str) -> int:
    """The value of a PTX integer literal (decimal, hexadecimal, binary, octal; ``U`` suffix)."""
    body = text.rstrip("uU")
    negative = body.startswith("-")
    body = body.lstrip("-")
    if body[:2] in ("0x", "0X"):
        value = int(body[2:], 16)
    elif body[:2] in ("0b", "0B"):
        value = int(body[2:], 2)
    elif len(body) > 1 and body.startswith("0") and body.isdigit():
        value = int(body, 8)
    elif body.isdigit():
        value = int(body)
    else:
        raise PtxSyntaxError(f"'{text}' is not an integer")
    return -value if negative else value


def is_integer_literal(text: str) -> bool:
    try:
        immediate_integer(text)
    except PtxSyntaxError:
        return False
    return True
