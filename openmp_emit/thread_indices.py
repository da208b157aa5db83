"""A thread loop's index expressions in terms of what the block has: the loop's unassigned local
declarations replaced by their initializers (:class:`IndexResolver`), and the C++ integer type
of such an expression (:func:`integer_kind_of`).

An analysis shared by the passes that evaluate an index outside its thread loop:
``block-prefetch`` (at the next block's index) and ``wide-subscripts`` (at the corners of the
loop's threads).  A declaration that converts its initializer (``int i = blockIdx.x * 64u +
threadIdx.x``) stands as the cast it performs, so the resolved expression has the value and type
the loop computes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import assigned_symbols
from foundation import ir
from foundation.integer_types import int_literal, unpromoted_integer_kind

#: The binary operators a resolved index may use.
ARITHMETIC = frozenset("+ - * / % << >> & | ^".split())


@dataclass
class IndexResolver:
    """Rewrites an index of ``loop`` so that it names only ``uniform`` symbols, integer literals
    and builtin indices: the loop's unassigned local declarations are replaced by their
    initializers.  ``resolve`` gives None for anything else (a memory read, a call, a value
    the loop assigns)."""

    loop: ir.ThreadLoop
    uniform: set[int]
    symbols: dict[int, ir.Symbol]
    bodies: dict[str, ir.DeviceFunction]

    def __post_init__(self) -> None:
        assigned = assigned_symbols(self.loop.body, self.bodies)
        if self.loop.fast_body is not None:
            assigned |= assigned_symbols(self.loop.fast_body, self.bodies)
        kept = {kv.sym for kv in self.loop.kept}
        self.definitions: dict[int, ir.VarDecl] = {}
        bodies = (self.loop.body,) + ((self.loop.fast_body,) if self.loop.fast_body is not None else ())
        for body in bodies:
            for n in body.walk():
                if (isinstance(n, ir.VarDecl) and n.storage == "auto" and n.init is not None
                        and n.sym not in assigned and n.sym not in kept and "&" not in n.type
                        and "[" not in n.type):
                    self.definitions[n.sym] = n

    def resolve(self, e: ir.Expr, depth: int = 0) -> ir.Expr | None:
        if depth > 16:
            return None
        if isinstance(e, ir.Literal):
            return e if integer_literal_kind(e.text) is not None else None
        if isinstance(e, ir.Builtin):
            return e if e.var in ("threadIdx", "blockIdx", "blockDim", "gridDim") else None
        if isinstance(e, ir.Name):
            if e.sym in self.uniform:
                return e
            decl = self.definitions.get(e.sym)
            if decl is None:
                return None
            init = self.resolve(decl.init, depth + 1)
            if init is None:
                return None
            declared = unpromoted_integer_kind(decl.type)
            if declared is not None and declared == integer_kind_of(init, self.symbols):
                return init  # the declaration converts nothing
            return ir.Cast(plain_type(decl.type), init, loc=e.loc)
        if isinstance(e, ir.Binary) and e.op in ARITHMETIC:
            lhs, rhs = self.resolve(e.lhs, depth + 1), self.resolve(e.rhs, depth + 1)
            return None if lhs is None or rhs is None else replace(e, lhs=lhs, rhs=rhs)
        if isinstance(e, ir.Unary) and e.op in ("+", "-", "~") and not e.postfix:
            operand = self.resolve(e.operand, depth + 1)
            return None if operand is None else replace(e, operand=operand)
        if isinstance(e, ir.Cast) and unpromoted_integer_kind(e.type) is not None:
            operand = self.resolve(e.operand, depth + 1)
            return None if operand is None else replace(e, operand=operand)
        return None


def plain_type(t: str) -> str:
    """``t`` without its top-level ``const``/``volatile``/``register``."""
    return " ".join(w for w in t.split() if w not in ("const", "volatile", "register"))


def literal_value(e: ir.Expr) -> int | None:
    """The value of an integer literal (``12``, ``0x1fu``, ``010``), else None."""
    return int_literal(e.text) if isinstance(e, ir.Literal) else None


def integer_literal_kind(text: str) -> tuple[bool, int] | None:
    """(signed, bits) of an integer literal's type, else None."""
    value = literal_value(ir.Literal(text))
    if value is None:
        return None
    suffix = text[len(text.rstrip("uUlL")):].lower()
    unsigned = "u" in suffix
    bits = 64 if "l" in suffix or value >= 2 ** 31 else 32
    return (not unsigned, bits)


def integer_kind_of(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> tuple[bool, int] | None:
    """(signed, bits) of an integer expression's type (C++'s usual arithmetic conversions for
    the types :class:`IndexResolver` leaves), else None."""
    if isinstance(e, ir.Literal):
        return integer_literal_kind(e.text)
    if isinstance(e, ir.Builtin):
        return (False, 32)
    if isinstance(e, ir.Name):
        symbol = symbols.get(e.sym)
        return None if symbol is None else unpromoted_integer_kind(symbol.type)
    if isinstance(e, ir.Cast):
        return unpromoted_integer_kind(e.type)
    if isinstance(e, ir.Unary):
        kind = integer_kind_of(e.operand, symbols)
        return None if kind is None else (kind[0] or kind[1] < 32, max(kind[1], 32))
    if isinstance(e, ir.Binary):
        lhs, rhs = integer_kind_of(e.lhs, symbols), integer_kind_of(e.rhs, symbols)
        if lhs is None or rhs is None:
            return None
        return lhs if e.op in ("<<", ">>") else usual_conversion(lhs, rhs)
    return None


def usual_conversion(a: tuple[bool, int], b: tuple[bool, int]) -> tuple[bool, int]:
    """The common type of two integer operands of at least ``int``'s width."""
    (a_signed, a_bits), (b_signed, b_bits) = a, b
    if a_bits == b_bits:
        return (a_signed and b_signed, a_bits)
    wide_signed, wide_bits = a if a_bits > b_bits else b
    return (wide_signed, wide_bits)  # a 64-bit type holds every 32-bit value
