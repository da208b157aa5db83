"""The PTX instructions cuda2cpu translates, one handler per opcode: a table from the opcode to
what the instruction does, written as IR through the emitter of ``cuda_front/inline_ptx.py``
(which binds the asm's operands to registers and reads and writes them).

Each handler takes the instruction's modifiers it knows (``Modifiers.take``), checks that none
is left (an unknown one is not guessed at: the instruction is then not supported), and emits
statements.  The semantics follow NVIDIA's PTX ISA; what a CPU does differently is said where
it is done:

* approximate instructions (``ex2.approx``, ``rcp.approx``, ``div.approx`` ...) compute the
  correctly rounded value of the function (as MocCUDA's ``__expf`` does);
* ``.ftz`` flushes f32 subnormal inputs and results to zero of their sign, ``.sat`` clamps to
  [0, 1] (NaN to 0); directed rounding (``.rz``/``.rm``/``.rp``) of floating-point arithmetic
  is not translated;
* memory orders: ``.volatile`` (PTX: relaxed at system scope), ``.relaxed``, ``.acquire``,
  ``.release`` become the C++ orders of one scope (all of a program's blocks share one memory);
* ``cp.async`` copies at once, so waiting for its groups waits for nothing;
* warp collectives (``shfl.sync``, ``vote.sync``, ``match.sync``, ``redux.sync``,
  ``activemask``, ``bar.warp.sync``) are the IR's :class:`~foundation.ir.WarpCollective`, as
  ``__shfl_xor_sync`` and friends are; ``bar.sync``/``barrier.sync`` without a thread count
  are ``__syncthreads()``.

Before (``add.s32 %0, %1, 1;`` with ``"=r"(y) : "r"(x)``)::

    ExprStmt(Assign('=', Name('ptx_0'), Call('moccuda::__ptx_add<int>', (Cast('int', Name('ptx_1')), Literal('1')))))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from cuda_front.ptx_syntax import Address, Instruction, Pair, Sink, Vector
from foundation import ir


class PtxUnsupported(Exception):
    """An instruction (or a use of one) outside the translated subset; the message says what."""


@dataclass(frozen=True)
class ScalarType:
    """A PTX type as the C++ scalar that holds it (16-bit floats as their bits)."""

    ptx: str
    cpp: str
    bits: int
    kind: str  # u: unsigned integer, s: signed integer, f: float/double, h: 16-bit float bits,
    # h2: a pair of them, p: predicate

    @property
    def integer(self) -> bool:
        return self.kind in ("u", "s")


def _types() -> dict[str, ScalarType]:
    table = {}
    for names, cpp, bits, kind in (
            (("b8", "u8"), "unsigned char", 8, "u"), (("s8",), "signed char", 8, "s"),
            (("b16", "u16"), "unsigned short", 16, "u"), (("s16",), "short", 16, "s"),
            (("b32", "u32"), "unsigned int", 32, "u"), (("s32",), "int", 32, "s"),
            (("b64", "u64"), "unsigned long long", 64, "u"), (("s64",), "long long", 64, "s"),
            (("f32",), "float", 32, "f"), (("f64",), "double", 64, "f"),
            (("f16", "bf16"), "unsigned short", 16, "h"), (("f16x2", "bf16x2"), "unsigned int", 32, "h2"),
            (("pred",), "bool", 1, "p")):
        for name in names:
            table[name] = ScalarType(name, cpp, bits, kind)
    return table


#: Every PTX type the translation knows, by its name without the dot.
TYPES = _types()
U16, U32, S32, U64, F32, F64, PRED = (TYPES[n] for n in ("u16", "u32", "s32", "u64", "f32", "f64", "pred"))
#: PTX types that exist but are not translated (a modifier of this name is a type, not unknown).
UNTRANSLATED_TYPES = frozenset({"b128", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2", "f8x4", "e2m1x2", "ue8m0x2",
                                "s2f6x2", "f16x4", "bf16x4"})


def integer_type(bits: int, signed: bool) -> ScalarType:
    return TYPES[("s" if signed else "u") + str(bits)]


def _half_variant(t: ScalarType) -> int:
    """0 for .f16/.f16x2, 1 for .bf16/.bf16x2: the helpers' template argument."""
    return 1 if t.ptx.startswith("bf") else 0


# ------------------------------------------------------------------------------ modifiers

#: Cache and eviction hints: they change where data is kept, never what is read or written.
_CACHE_HINT = re.compile(r"^(?:ca|cg|cs|lu|cv|wb|wt|nc|unified|L1::\w+|L2::\w+|level::\w+|L2::cache_hint)$")


class Modifiers:
    """The modifiers of one instruction, taken by its handler; whatever is left is unsupported."""

    def __init__(self, ins: Instruction) -> None:
        self.ins = ins
        self.left = list(ins.modifiers)
        self.cache_hint = False

    def take(self, *names: str) -> str | None:
        """The first of ``names`` among the modifiers (removed), else None."""
        for name in names:
            if name in self.left:
                self.left.remove(name)
                return name
        return None

    def has(self, name: str) -> bool:
        return self.take(name) is not None

    def types(self, count: int) -> list[ScalarType]:
        """The ``count`` type modifiers, in order (an instruction's types come last)."""
        found = [m for m in self.left if m in TYPES or m in UNTRANSLATED_TYPES]
        if len(found) != count:
            raise PtxUnsupported(f"'{self.ins.name}': expected {count} type modifier{'s' if count > 1 else ''}")
        for name in found:
            if name in UNTRANSLATED_TYPES:
                raise PtxUnsupported(f"the type .{name} of '{self.ins.name}'")
            self.left.remove(name)
        return [TYPES[n] for n in found]

    def cache_hints(self) -> None:
        """Cache operators and eviction hints, dropped; ``.L2::cache_hint`` adds an operand."""
        for name in list(self.left):
            if _CACHE_HINT.match(name):
                self.left.remove(name)
                self.cache_hint = self.cache_hint or name == "L2::cache_hint"

    def rounding(self) -> str | None:
        return self.take("rn", "rz", "rm", "rp", "rna", "rs")

    def done(self) -> None:
        if self.left:
            listed = ", ".join("." + m for m in self.left)
            raise PtxUnsupported(f"'{self.ins.name}' with {listed}")


# --------------------------------------------------------------------------------- table

Handler = Callable[["object", Instruction, Modifiers], None]
HANDLERS: dict[str, Handler] = {}


def handles(*opcodes: str):
    def register(fn: Handler) -> Handler:
        for opcode in opcodes:
            HANDLERS[opcode] = fn
        return fn
    return register


def _operands(ins: Instruction, count: int, optional: int = 0) -> tuple:
    if not count <= len(ins.operands) <= count + optional:
        raise PtxUnsupported(f"'{ins.name}' with {len(ins.operands)} operands")
    return ins.operands + (None,) * (count + optional - len(ins.operands))


def _typed(ins: Instruction, m: Modifiers, count: int) -> tuple:
    """The type of an instruction with no other modifier, and its ``count`` operands."""
    (t,) = m.types(1)
    m.done()
    return (t, *_operands(ins, count))


def _call(func: str, *args: ir.Expr, loc) -> ir.Call:
    return ir.Call(func, tuple(args), loc=loc)


def _lit(text: str, loc) -> ir.Literal:
    return ir.Literal(text, loc=loc)


def _ptx(name: str, loc, *args: ir.Expr, targs: str = "") -> ir.Call:
    """A call of MocCUDA's ``moccuda::__ptx_<name>`` (cuda2cpu_ptx.h)."""
    return ir.Call(f"moccuda::__ptx_{name}{'<' + targs + '>' if targs else ''}", tuple(args), loc=loc)


def _no_rounding(m: Modifiers, what: str) -> None:
    rnd = m.rounding()
    if rnd not in (None, "rn"):
        raise PtxUnsupported(f"'{m.ins.name}': the rounding .{rnd} of {what} (round to nearest is translated)")


# ---------------------------------------------------------------- floating-point helpers


def _float_in(e, op, t: ScalarType, ftz: bool) -> ir.Expr:
    value = e.read(op, t)
    return _ptx("ftz", e.loc, value) if ftz and t.ptx == "f32" else value


def _float_out(e, value: ir.Expr, t: ScalarType, ftz: bool, sat: bool) -> ir.Expr:
    if ftz and t.ptx == "f32":
        value = _ptx("ftz", e.loc, value)
    if sat:
        value = _ptx("sat", e.loc, value)
    return value


def _half(e, name: str, t: ScalarType, *args: ir.Expr, variant: bool = True) -> ir.Call:
    pair = "2" if t.kind == "h2" else ""
    return _ptx(f"h{pair}_{name}", e.loc, *args, targs=str(_half_variant(t)) if variant else "")


def _float_call(t: ScalarType, name_f32: str, name_f64: str) -> str:
    return name_f32 if t.ptx == "f32" else name_f64


# ------------------------------------------------------------------ integer / float arithmetic


@handles("add", "sub")
def _add_sub(e, ins: Instruction, m: Modifiers) -> None:
    op = ins.opcode
    if m.take("cc") or ins.opcode in ("addc", "subc"):
        raise PtxUnsupported(f"'{ins.name}': carry chains (.cc, addc, subc)")
    sat, ftz = m.has("sat"), m.has("ftz")
    rnd = m.rounding()
    t, d, a, b = _typed(ins, m, 3)
    if t.integer:
        if rnd:
            raise PtxUnsupported(f"'{ins.name}': a rounding modifier on an integer type")
        if sat and t.ptx != "s32":
            raise PtxUnsupported(f"'{ins.name}': .sat on a type other than .s32")
        value = _ptx(f"{op}_sat" if sat else op, e.loc, e.read(a, t), e.read(b, t), targs=t.cpp)
    elif t.kind == "f":
        if rnd not in (None, "rn"):
            raise PtxUnsupported(f"'{ins.name}': the rounding .{rnd} (round to nearest is translated)")
        value = ir.Binary("+" if op == "add" else "-", _float_in(e, a, t, ftz), _float_in(e, b, t, ftz), loc=e.loc)
        value = _float_out(e, value, t, ftz, sat)
    elif t.kind in ("h", "h2"):
        if rnd not in (None, "rn") or sat or ftz:
            raise PtxUnsupported(f"'{ins.name}': .ftz, .sat or directed rounding of 16-bit floats")
        value = _half(e, op, t, e.read(a, t), e.read(b, t))
    else:
        raise PtxUnsupported(f"'{ins.name}' on .{t.ptx}")
    e.write(d, value, t)


def _widened(t: ScalarType, ins: Instruction) -> ScalarType:
    if not t.integer or t.bits not in (16, 32):
        raise PtxUnsupported(f"'{ins.name}': .wide of .{t.ptx}")
    return integer_type(2 * t.bits, t.kind == "s")


@handles("mul")
def _mul(e, ins: Instruction, m: Modifiers) -> None:
    part = m.take("lo", "hi", "wide")
    sat, ftz = m.has("sat"), m.has("ftz")
    rnd = m.rounding()
    t, d, a, b = _typed(ins, m, 3)
    if t.integer:
        if part is None or rnd or sat or ftz:
            raise PtxUnsupported(f"'{ins.name}' (integer mul takes .lo, .hi or .wide, nothing else)")
        result = _widened(t, ins) if part == "wide" else t
        name = {"lo": "mul_lo", "hi": "mul_hi", "wide": "mul_wide"}[part]
        e.write(d, _ptx(name, e.loc, e.read(a, t), e.read(b, t), targs=t.cpp), result)
        return
    if part is not None:
        raise PtxUnsupported(f"'{ins.name}': .{part} of a floating-point type")
    if t.kind == "f":
        if rnd not in (None, "rn"):
            raise PtxUnsupported(f"'{ins.name}': the rounding .{rnd} (round to nearest is translated)")
        value = ir.Binary("*", _float_in(e, a, t, ftz), _float_in(e, b, t, ftz), loc=e.loc)
        e.write(d, _float_out(e, value, t, ftz, sat), t)
    elif t.kind in ("h", "h2") and rnd in (None, "rn") and not sat and not ftz:
        e.write(d, _half(e, "mul", t, e.read(a, t), e.read(b, t)), t)
    else:
        raise PtxUnsupported(f"'{ins.name}'")


@handles("mad", "fma")
def _mad(e, ins: Instruction, m: Modifiers) -> None:
    part = m.take("lo", "hi", "wide")
    sat, ftz, relu = m.has("sat"), m.has("ftz"), m.has("relu")
    rnd = m.rounding()
    if m.has("cc"):
        raise PtxUnsupported(f"'{ins.name}': carry chains (.cc, madc)")
    t, d, a, b, c = _typed(ins, m, 4)
    if t.integer and ins.opcode == "mad":
        if part is None or rnd or ftz or relu or sat:
            raise PtxUnsupported(f"'{ins.name}' (integer mad takes .lo, .hi or .wide, nothing else)")
        if part == "wide":
            wide = _widened(t, ins)
            product = _ptx("mul_wide", e.loc, e.read(a, t), e.read(b, t), targs=t.cpp)
            e.write(d, _ptx("add", e.loc, product, e.read(c, wide), targs=wide.cpp), wide)
            return
        product = _ptx("mul_lo" if part == "lo" else "mul_hi", e.loc, e.read(a, t), e.read(b, t), targs=t.cpp)
        e.write(d, _ptx("add", e.loc, product, e.read(c, t), targs=t.cpp), t)
        return
    if part is not None or t.integer:
        raise PtxUnsupported(f"'{ins.name}'")
    if rnd not in (None, "rn"):
        raise PtxUnsupported(f"'{ins.name}': the rounding .{rnd} (round to nearest is translated)")
    if t.kind == "f" and not relu:
        # mad.f32 is fma.rn.f32 since sm_20: one rounding of a * b + c
        value = _call(_float_call(t, "fmaf", "fma"), _float_in(e, a, t, ftz), _float_in(e, b, t, ftz),
                      _float_in(e, c, t, ftz), loc=e.loc)
        e.write(d, _float_out(e, value, t, ftz, sat), t)
    elif t.kind in ("h", "h2") and not sat and not ftz:
        value = _half(e, "fma", t, e.read(a, t), e.read(b, t), e.read(c, t))
        e.write(d, _half(e, "relu", t, value) if relu else value, t)
    else:
        raise PtxUnsupported(f"'{ins.name}'")


@handles("mul24", "mad24")
def _mul24(e, ins: Instruction, m: Modifiers) -> None:
    part = m.take("lo", "hi")
    (t,) = m.types(1)
    m.done()
    if part is None or t.ptx not in ("u32", "s32"):
        raise PtxUnsupported(f"'{ins.name}'")
    ops = _operands(ins, 4 if ins.opcode == "mad24" else 3)
    value = _ptx("mul24", e.loc, e.read(ops[1], t), e.read(ops[2], t), _lit("true" if part == "hi" else "false", e.loc),
                 targs=t.cpp)
    if ins.opcode == "mad24":
        value = _ptx("add", e.loc, value, e.read(ops[3], t), targs=t.cpp)
    e.write(ops[0], value, t)


@handles("div")
def _div(e, ins: Instruction, m: Modifiers) -> None:
    approx = m.take("approx", "full")
    ftz = m.has("ftz")
    rnd = m.rounding()
    t, d, a, b = _typed(ins, m, 3)
    if t.integer:
        if approx or ftz or rnd:
            raise PtxUnsupported(f"'{ins.name}'")
        e.write(d, _ptx("div", e.loc, e.read(a, t), e.read(b, t), targs=t.cpp), t)
        return
    if t.kind != "f" or rnd not in (None, "rn") or (approx and t.ptx != "f32") or (not approx and rnd is None):
        raise PtxUnsupported(f"'{ins.name}'")
    # div.approx and div.full are within a few ulp of a / b; the quotient rounded to nearest is
    value = ir.Binary("/", _float_in(e, a, t, ftz), _float_in(e, b, t, ftz), loc=e.loc)
    e.write(d, _float_out(e, value, t, ftz, False), t)


@handles("rem")
def _rem(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b = _typed(ins, m, 3)
    if not t.integer:
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(d, _ptx("rem", e.loc, e.read(a, t), e.read(b, t), targs=t.cpp), t)


@handles("abs", "neg")
def _abs_neg(e, ins: Instruction, m: Modifiers) -> None:
    ftz = m.has("ftz")
    t, d, a = _typed(ins, m, 2)
    if t.integer and not ftz:
        e.write(d, _ptx(ins.opcode, e.loc, e.read(a, t), targs=t.cpp), t)
    elif t.kind == "f":
        x = _float_in(e, a, t, ftz)
        value = _call(_float_call(t, "fabsf", "fabs"), x, loc=e.loc) if ins.opcode == "abs" else ir.Unary("-", x, loc=e.loc)
        e.write(d, _float_out(e, value, t, ftz, False), t)
    elif t.kind in ("h", "h2") and not ftz:
        e.write(d, _half(e, ins.opcode, t, e.read(a, t), variant=False), t)
    else:
        raise PtxUnsupported(f"'{ins.name}'")


@handles("min", "max")
def _min_max(e, ins: Instruction, m: Modifiers) -> None:
    ftz = m.has("ftz")
    t, d, a, b = _typed(ins, m, 3)
    if t.integer and not ftz:
        e.write(d, _ptx(ins.opcode, e.loc, e.read(a, t), e.read(b, t), targs=t.cpp), t)
    elif t.kind == "f":
        value = _ptx("f" + ins.opcode, e.loc, _float_in(e, a, t, ftz), _float_in(e, b, t, ftz), targs=t.cpp)
        e.write(d, _float_out(e, value, t, ftz, False), t)
    elif t.kind in ("h", "h2") and not ftz:
        e.write(d, _half(e, ins.opcode, t, e.read(a, t), e.read(b, t)), t)
    else:
        raise PtxUnsupported(f"'{ins.name}'")


@handles("copysign")
def _copysign(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b = _typed(ins, m, 3)
    if t.kind != "f":
        raise PtxUnsupported(f"'{ins.name}'")
    # d takes a's sign and b's magnitude
    e.write(d, _call(_float_call(t, "copysignf", "copysign"), e.read(b, t), e.read(a, t), loc=e.loc), t)


#: Functions of one floating-point operand: f32 function, f64 function (None: f32 only), and the
#: name of the 16-bit helper (None: no 16-bit form).
_UNARY_FLOAT = {
    "ex2": ("exp2f", None, "ex2"), "lg2": ("log2f", None, None), "sin": ("sinf", None, None),
    "cos": ("cosf", None, None), "tanh": ("tanhf", None, "tanh"), "sqrt": ("sqrtf", "sqrt", None),
    "rsqrt": (None, None, None), "rcp": (None, None, None),
}


@handles(*_UNARY_FLOAT)
def _unary_float(e, ins: Instruction, m: Modifiers) -> None:
    approx, ftz = m.has("approx"), m.has("ftz")
    rnd = m.rounding()
    t, d, a = _typed(ins, m, 2)
    f32, f64, half = _UNARY_FLOAT[ins.opcode]
    if rnd not in (None, "rn") or not (approx or rnd):
        raise PtxUnsupported(f"'{ins.name}' (the .approx forms and round to nearest are translated)")
    if t.kind in ("h", "h2"):
        if half is None or ftz:
            raise PtxUnsupported(f"'{ins.name}'")
        e.write(d, _half(e, half, t, e.read(a, t)), t)
        return
    if t.kind != "f" or (t.ptx == "f64" and ins.opcode not in ("sqrt", "rsqrt", "rcp")):
        raise PtxUnsupported(f"'{ins.name}'")
    x = _float_in(e, a, t, ftz)
    one = _lit("1.0f" if t.ptx == "f32" else "1.0", e.loc)
    if ins.opcode == "rcp":
        value = ir.Binary("/", one, x, loc=e.loc)
    elif ins.opcode == "rsqrt":
        value = ir.Binary("/", one, _call(_float_call(t, "sqrtf", "sqrt"), x, loc=e.loc), loc=e.loc)
    else:
        value = _call(f32 if t.ptx == "f32" else f64, x, loc=e.loc)
    e.write(d, _float_out(e, value, t, ftz, False), t)


# --------------------------------------------------------------------------- bits and logic


@handles("and", "or", "xor")
def _logic(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b = _typed(ins, m, 3)
    if t.kind == "p":
        op = {"and": "&&", "or": "||", "xor": "!="}[ins.opcode]
        e.write(d, ir.Binary(op, e.read(a, t), e.read(b, t), loc=e.loc), t)
    elif t.integer:
        op = {"and": "&", "or": "|", "xor": "^"}[ins.opcode]
        e.write(d, ir.Cast(t.cpp, ir.Binary(op, e.read(a, t), e.read(b, t), loc=e.loc), "static", loc=e.loc), t)
    else:
        raise PtxUnsupported(f"'{ins.name}'")


@handles("not", "cnot")
def _not(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a = _typed(ins, m, 2)
    if t.kind == "p" and ins.opcode == "not":
        e.write(d, ir.Unary("!", e.read(a, t), loc=e.loc), t)
    elif t.integer and ins.opcode == "not":
        e.write(d, ir.Cast(t.cpp, ir.Unary("~", e.read(a, t), loc=e.loc), "static", loc=e.loc), t)
    elif t.integer:
        zero = ir.Binary("==", e.read(a, t), _lit("0", e.loc), loc=e.loc)
        e.write(d, ir.Cast(t.cpp, zero, "static", loc=e.loc), t)
    else:
        raise PtxUnsupported(f"'{ins.name}'")


@handles("shl", "shr")
def _shift(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b = _typed(ins, m, 3)
    if not t.integer or t.bits == 8:
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(d, _ptx(ins.opcode, e.loc, e.read(a, t), e.read(b, U32), targs=t.cpp), t)


@handles("shf")
def _shf(e, ins: Instruction, m: Modifiers) -> None:
    direction = m.take("l", "r")
    mode = m.take("wrap", "clamp")
    t, d, a, b, c = _typed(ins, m, 4)
    if direction is None or mode is None or t.ptx != "b32" and t.ptx != "u32":
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(d, _ptx("shf", e.loc, e.read(a, U32), e.read(b, U32), e.read(c, U32),
                    _lit("true" if direction == "l" else "false", e.loc),
                    _lit("true" if mode == "clamp" else "false", e.loc)), U32)


@handles("bfe")
def _bfe(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b, c = _typed(ins, m, 4)
    if not t.integer or t.bits < 32:
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(d, _ptx("bfe", e.loc, e.read(a, t), e.read(b, U32), e.read(c, U32), targs=t.cpp), t)


@handles("bfi")
def _bfi(e, ins: Instruction, m: Modifiers) -> None:
    t, f, a, b, c, d = _typed(ins, m, 5)
    if not t.integer or t.bits < 32:
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(f, _ptx("bfi", e.loc, e.read(a, t), e.read(b, t), e.read(c, U32), e.read(d, U32), targs=t.cpp), t)


_PRMT_MODES = ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")


@handles("prmt")
def _prmt(e, ins: Instruction, m: Modifiers) -> None:
    mode = m.take(*_PRMT_MODES)
    t, d, a, b, c = _typed(ins, m, 4)
    if t.bits != 32 or not t.integer:
        raise PtxUnsupported(f"'{ins.name}'")
    number = 0 if mode is None else _PRMT_MODES.index(mode) + 1
    e.write(d, _ptx("prmt", e.loc, e.read(a, U32), e.read(b, U32), e.read(c, U32), _lit(str(number), e.loc)), U32)


@handles("lop3")
def _lop3(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b, c, lut = _typed(ins, m, 5)
    if t.ptx != "b32":
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(d, _ptx("lop3", e.loc, e.read(a, U32), e.read(b, U32), e.read(c, U32), e.read(lut, U32),
                    targs="unsigned int"), U32)


@handles("popc", "clz", "brev", "bfind")
def _bit_count(e, ins: Instruction, m: Modifiers) -> None:
    shift_amount = m.has("shiftamt")
    t, d, a = _typed(ins, m, 2)
    if not t.integer or t.bits < 32 or (shift_amount and ins.opcode != "bfind"):
        raise PtxUnsupported(f"'{ins.name}'")
    args = (e.read(a, t),) + ((_lit("true" if shift_amount else "false", e.loc),) if ins.opcode == "bfind" else ())
    e.write(d, _ptx(ins.opcode, e.loc, *args, targs=t.cpp), t if ins.opcode == "brev" else U32)


@handles("dp4a", "dp2a")
def _dot(e, ins: Instruction, m: Modifiers) -> None:
    half = m.take("lo", "hi") if ins.opcode == "dp2a" else None
    ta, tb = m.types(2)
    m.done()
    d, a, b, c = _operands(ins, 4)
    if ta.ptx not in ("u32", "s32") or tb.ptx not in ("u32", "s32") or (ins.opcode == "dp2a" and half is None):
        raise PtxUnsupported(f"'{ins.name}'")
    signs = f"{'true' if ta.kind == 's' else 'false'}, {'true' if tb.kind == 's' else 'false'}"
    args = [e.read(a, U32), e.read(b, U32), e.read(c, S32)]
    if half is not None:
        args.append(_lit("true" if half == "hi" else "false", e.loc))
    # the sum's 32 bits, whether the result is .s32 or .u32
    e.write(d, _ptx(ins.opcode, e.loc, *args, targs=signs), S32)


# ---------------------------------------------------------------------- compare and select

#: Integer comparisons: the C++ operator (lo/ls/hi/hs compare as unsigned).
_INT_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
                "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}
_FLOAT_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


def _compare(e, cmp: str, t: ScalarType, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """``a CmpOp b`` of PTX: ordered float comparisons are false for NaN, unordered (``..u``)
    true."""
    loc = e.loc

    def bin_(op, x, y):
        return ir.Binary(op, x, y, loc=loc)

    if t.integer:
        if cmp not in _INT_COMPARE:
            raise PtxUnsupported(f"the comparison .{cmp} of .{t.ptx}")
        if cmp in ("lo", "ls", "hi", "hs") and t.kind == "s":
            unsigned = integer_type(t.bits, False).cpp
            a, b = ir.Cast(unsigned, a, "static", loc=loc), ir.Cast(unsigned, b, "static", loc=loc)
        return bin_(_INT_COMPARE[cmp], a, b)
    if cmp not in _FLOAT_COMPARE:
        raise PtxUnsupported(f"the comparison .{cmp} of .{t.ptx}")
    if cmp == "ne":
        return bin_("||", bin_("<", a, b), bin_(">", a, b))
    if cmp == "num":
        return bin_("&&", bin_("==", a, a), bin_("==", b, b))
    if cmp == "nan":
        return bin_("||", bin_("!=", a, a), bin_("!=", b, b))
    ordered = {"eq": "==", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
    if cmp in ordered:
        return bin_(ordered[cmp], a, b)
    if cmp == "neu":
        return bin_("!=", a, b)
    if cmp == "equ":
        return ir.Unary("!", bin_("||", bin_("<", a, b), bin_(">", a, b)), loc=loc)
    # ltu, leu, gtu, geu: not the ordered complement (false for NaN), so true for NaN
    complement = {"ltu": ">=", "leu": ">", "gtu": "<=", "geu": "<"}[cmp]
    return ir.Unary("!", bin_(complement, a, b), loc=loc)


def _compare_operands(e, t: ScalarType, a, b, ftz: bool) -> tuple[ir.Expr, ir.Expr]:
    if t.kind == "h":
        variant = str(_half_variant(t))
        return (_ptx("h2f", e.loc, e.read(a, t), targs=variant), _ptx("h2f", e.loc, e.read(b, t), targs=variant))
    if t.kind == "f":
        return _float_in(e, a, t, ftz), _float_in(e, b, t, ftz)
    if t.kind == "h2" or t.kind == "p":
        raise PtxUnsupported(f"a comparison of .{t.ptx}")
    return e.read(a, t), e.read(b, t)


def _combined(e, t_value: ir.Expr, boolop: str | None, c) -> ir.Expr:
    if boolop is None:
        return t_value
    op = {"and": "&&", "or": "||", "xor": "!="}[boolop]
    return ir.Binary(op, t_value, e.read(c, PRED), loc=e.loc)


@handles("setp")
def _setp(e, ins: Instruction, m: Modifiers) -> None:
    cmp = m.take(*_INT_COMPARE, *_FLOAT_COMPARE)
    boolop = m.take("and", "or", "xor")
    ftz = m.has("ftz")
    (t,) = m.types(1)
    m.done()
    if cmp is None:
        raise PtxUnsupported(f"'{ins.name}' without a comparison")
    dest, a, b, c = _operands(ins, 4) if boolop else (*_operands(ins, 3), None)
    x, y = _compare_operands(e, t, a, b, ftz)
    holds = e.temp(PRED, _compare(e, cmp, t, x, y))
    if isinstance(dest, Pair):
        e.write(dest.first, _combined(e, holds, boolop, c), PRED)
        e.write(dest.second, _combined(e, ir.Unary("!", holds, loc=e.loc), boolop, c), PRED)
    else:
        e.write(dest, _combined(e, holds, boolop, c), PRED)


@handles("set")
def _set(e, ins: Instruction, m: Modifiers) -> None:
    cmp = m.take(*_INT_COMPARE, *_FLOAT_COMPARE)
    boolop = m.take("and", "or", "xor")
    ftz = m.has("ftz")
    dtype, stype = m.types(2)
    m.done()
    if cmp is None or dtype.ptx not in ("u32", "s32", "f32"):
        raise PtxUnsupported(f"'{ins.name}'")
    dest, a, b, c = _operands(ins, 4) if boolop else (*_operands(ins, 3), None)
    x, y = _compare_operands(e, stype, a, b, ftz)
    holds = _combined(e, _compare(e, cmp, stype, x, y), boolop, c)
    true, false = ("1.0f", "0.0f") if dtype.ptx == "f32" else ("0xffffffffu", "0u")
    value = ir.Conditional(holds, _lit(true, e.loc), _lit(false, e.loc), loc=e.loc)
    e.write(dest, value, dtype if dtype.ptx == "f32" else U32)


@handles("selp")
def _selp(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a, b, c = _typed(ins, m, 4)
    if t.kind == "p":
        raise PtxUnsupported(f"'{ins.name}'")
    e.write(d, ir.Conditional(e.read(c, PRED), e.read(a, t), e.read(b, t), loc=e.loc), t)


@handles("slct")
def _slct(e, ins: Instruction, m: Modifiers) -> None:
    ftz = m.has("ftz")
    dtype, ctype = m.types(2)
    m.done()
    d, a, b, c = _operands(ins, 4)
    if ctype.ptx not in ("s32", "f32") or dtype.kind == "p":
        raise PtxUnsupported(f"'{ins.name}'")
    zero = _lit("0.0f" if ctype.ptx == "f32" else "0", e.loc)
    cond = ir.Binary(">=", _float_in(e, c, ctype, ftz) if ctype.ptx == "f32" else e.read(c, ctype), zero, loc=e.loc)
    e.write(d, ir.Conditional(cond, e.read(a, dtype), e.read(b, dtype), loc=e.loc), dtype)


# ---------------------------------------------------------------------------- moves, conversions


def _pieces(ins: Instruction, t: ScalarType, count: int, what: str) -> tuple[ScalarType, ScalarType, int]:
    """The unsigned types of a register of type ``t`` and of each of its ``count`` equal pieces
    (``mov.b64 %0, {%1, %2}``), and the pieces' width."""
    width = t.bits // count
    if t.kind not in ("u", "s", "h2") or width not in (8, 16, 32) or width * count != t.bits:
        raise PtxUnsupported(f"'{ins.name}' {what} {count} values")
    return integer_type(t.bits, False), integer_type(width, False), width


@handles("mov")
def _mov(e, ins: Instruction, m: Modifiers) -> None:
    t, d, a = _typed(ins, m, 2)
    if isinstance(a, Vector) and not isinstance(d, Vector):
        whole, part, width = _pieces(ins, t, len(a.elements), "packing")
        value = None
        for k, element in enumerate(a.elements):
            piece = ir.Cast(whole.cpp, e.read(element, part), "static", loc=e.loc)
            if k:
                piece = ir.Binary("<<", piece, _lit(str(k * width), e.loc), loc=e.loc)
            value = piece if value is None else ir.Binary("|", value, piece, loc=e.loc)
        e.write(d, ir.Cast(whole.cpp, value, "static", loc=e.loc), whole)
        return
    if isinstance(d, Vector) and not isinstance(a, Vector):
        whole, part, width = _pieces(ins, t, len(d.elements), "unpacking into")
        source = e.temp(whole, e.read(a, whole))
        for k, element in enumerate(d.elements):
            if isinstance(element, Sink):
                continue
            shifted = ir.Binary(">>", source, _lit(str(k * width), e.loc), loc=e.loc) if k else source
            e.write(element, ir.Cast(part.cpp, shifted, "static", loc=e.loc), part)
        return
    if isinstance(d, Vector) or isinstance(a, Vector):
        raise PtxUnsupported(f"'{ins.name}' between vectors")
    e.write(d, e.read(a, t), t)


_INTEGER_ROUNDING = {"rni": 0, "rzi": 1, "rmi": 2, "rpi": 3}


@handles("cvt")
def _cvt(e, ins: Instruction, m: Modifiers) -> None:
    irnd = m.take(*_INTEGER_ROUNDING)
    frnd = m.rounding()
    ftz, sat, relu = m.has("ftz"), m.has("sat"), m.has("relu")
    if m.take("satfinite"):
        raise PtxUnsupported(f"'{ins.name}': .satfinite")
    dtype, atype = m.types(2)
    m.done()
    if dtype.kind == "h2":
        _cvt_pack(e, ins, dtype, atype, frnd, relu or ftz or sat or irnd)
        return
    d, a = _operands(ins, 2)
    if relu and dtype.kind != "h":
        raise PtxUnsupported(f"'{ins.name}': .relu")
    if dtype.kind == "p" or atype.kind in ("p", "h2"):
        raise PtxUnsupported(f"'{ins.name}'")
    loc = e.loc
    source_is_float = atype.kind in ("f", "h")
    if source_is_float:
        value = _float_in(e, a, atype, ftz) if atype.kind == "f" else _ptx("h2f", loc, e.read(a, atype),
                                                                           targs=str(_half_variant(atype)))
        value_type = atype.cpp if atype.kind == "f" else "float"
    else:
        value = e.read(a, atype)
        value_type = atype.cpp
    if dtype.integer:
        if source_is_float:
            if irnd is None or frnd:
                raise PtxUnsupported(f"'{ins.name}': a conversion to an integer takes .rni, .rzi, .rmi or .rpi")
            e.write(d, _ptx("cvt_float_int", loc, value, _lit(str(_INTEGER_ROUNDING[irnd]), loc),
                            targs=f"{dtype.cpp}, {value_type}"), dtype)
            return
        if irnd or frnd or ftz:
            raise PtxUnsupported(f"'{ins.name}'")
        if sat:
            e.write(d, _ptx("cvt_int_sat", loc, value, targs=f"{dtype.cpp}, {atype.cpp}"), dtype)
        else:
            e.write(d, ir.Cast(dtype.cpp, value, "static", loc=loc), dtype)
        return
    # to a floating-point type
    if irnd is not None:
        if atype.ptx != dtype.ptx or dtype.kind != "f":
            raise PtxUnsupported(f"'{ins.name}': .{irnd} between different types")
        result = _ptx("round_integral", loc, value, _lit(str(_INTEGER_ROUNDING[irnd]), loc), targs=dtype.cpp)
        e.write(d, _float_out(e, result, dtype, ftz, sat), dtype)
        return
    if frnd not in (None, "rn"):
        raise PtxUnsupported(f"'{ins.name}': the rounding .{frnd} (round to nearest is translated)")
    if dtype.kind == "f":
        result = ir.Cast(dtype.cpp, value, "static", loc=loc) if value_type != dtype.cpp else value
        e.write(d, _float_out(e, result, dtype, ftz, sat), dtype)
        return
    # to .f16 / .bf16 bits
    if sat or ftz:
        raise PtxUnsupported(f"'{ins.name}': .sat or .ftz to a 16-bit float")
    variant = str(_half_variant(dtype))
    if value_type == "float":
        result = _ptx("f2h", loc, value, targs=variant)
    else:
        # an integer or a double: rounded once (through float rounded to odd)
        wide = value if value_type == "double" else ir.Cast("double", value, "static", loc=loc)
        result = _ptx("d2h", loc, wide, targs=variant)
    if relu:
        result = _ptx("h_relu", loc, result, targs=variant)
    e.write(d, result, dtype)


def _cvt_pack(e, ins: Instruction, dtype: ScalarType, atype: ScalarType, frnd: str | None, other) -> None:
    """``cvt.rn.f16x2.f32 d, a, b``: d's high half from a, its low half from b."""
    if atype.ptx != "f32" or frnd not in (None, "rn") or other:
        raise PtxUnsupported(f"'{ins.name}'")
    d, a, b = _operands(ins, 3)
    variant = str(_half_variant(dtype))
    high = _ptx("f2h", e.loc, e.read(a, F32), targs=variant)
    low = _ptx("f2h", e.loc, e.read(b, F32), targs=variant)
    e.write(d, _ptx("halves", e.loc, low, high), U32)


_STATE_SPACES = ("shared", "shared::cta", "global", "local", "const", "param", "shared::cluster")


@handles("cvta")
def _cvta(e, ins: Instruction, m: Modifiers) -> None:
    to = m.has("to")
    space = m.take(*_STATE_SPACES)
    t, d, a = _typed(ins, m, 2)
    if space is None or space in ("param", "shared::cluster") or t.ptx not in ("u32", "u64"):
        raise PtxUnsupported(f"'{ins.name}'")
    loc = e.loc
    if space == "global":
        e.write(d, e.read(a, t), t)
    elif to:
        pointer = ir.Cast("const void *", e.read(a, U64), "reinterpret", loc=loc)
        e.write(d, _ptx("window_address", loc, pointer), U32)
    else:
        e.write(d, ir.Cast("unsigned long long", _ptx("window_pointer", loc, e.read(a, t)), "reinterpret", loc=loc), U64)


# ---------------------------------------------------------------------------------- memory

_ORDERS = {"relaxed": "__NV_ATOMIC_RELAXED", "acquire": "__NV_ATOMIC_ACQUIRE", "release": "__NV_ATOMIC_RELEASE",
           "acq_rel": "__NV_ATOMIC_ACQ_REL", "volatile": "__NV_ATOMIC_RELAXED"}
_SCOPES = ("cta", "cluster", "gpu", "sys")


def _memory_order(m: Modifiers, allowed: tuple[str, ...]) -> str | None:
    """The memory semantics of an ld/st/atom: None for a weak access; each scope is the whole
    program on a CPU."""
    m.take("weak")
    sem = m.take(*allowed)
    scope = m.take(*_SCOPES)
    if scope is not None and sem in (None, "volatile"):
        raise PtxUnsupported(f"'{m.ins.name}': a scope without memory semantics")
    if m.take("mmio"):
        raise PtxUnsupported(f"'{m.ins.name}': .mmio")
    return sem


def _space(m: Modifiers) -> str:
    space = m.take(*_STATE_SPACES)
    if space in ("param", "shared::cluster"):
        raise PtxUnsupported(f"'{m.ins.name}': the state space .{space}")
    return "shared" if space == "shared::cta" else (space or "generic")


def _vector_count(m: Modifiers) -> int:
    vec = m.take("v2", "v4", "v8")
    return int(vec[1:]) if vec else 1


def _trailing_policy(ins: Instruction, m: Modifiers, count: int) -> tuple:
    """The operands, without the cache policy ``.L2::cache_hint`` adds last."""
    operands = ins.operands
    if m.cache_hint:
        if len(operands) != count + 1:
            raise PtxUnsupported(f"'{ins.name}' with {len(operands)} operands")
        return operands[:-1]
    if len(operands) != count:
        raise PtxUnsupported(f"'{ins.name}' with {len(operands)} operands")
    return operands


def _vector_access(ins: Instruction, m: Modifiers, semantics: tuple[str, ...], address_first: bool):
    """The parts of an ld or st: memory semantics, state space, the instruction's type, the C++
    type of the memory (16-bit floats as their bits), the address and the registers (one per
    element of a ``.v2``/``.v4`` vector; for a load, sinks among them)."""
    sem = _memory_order(m, semantics)
    space = _space(m)
    m.cache_hints()
    count = _vector_count(m)
    (t,) = m.types(1)
    m.done()
    first, second = _trailing_policy(ins, m, 2)
    address, registers = (first, second) if address_first else (second, first)
    if not isinstance(address, Address) or t.kind == "p":
        raise PtxUnsupported(f"'{ins.name}'")
    elements = registers.elements if isinstance(registers, Vector) else (registers,)
    if len(elements) != count:
        raise PtxUnsupported(f"'{ins.name}': {len(elements)} registers for .v{count}")
    memory = integer_type(t.bits, t.kind == "s") if t.kind in ("u", "s", "h", "h2") else t
    return sem, space, t, memory, address, elements


def _element(e, pointer: ir.Expr, k: int) -> ir.Expr:
    return ir.Binary("+", pointer, _lit(str(k), e.loc), loc=e.loc) if k else pointer


@handles("ld", "ldu")
def _ld(e, ins: Instruction, m: Modifiers) -> None:
    sem, space, t, memory, address, dests = _vector_access(ins, m, ("volatile", "relaxed", "acquire"), False)
    pointer = e.temp_pointer(memory.cpp, e.address(address, space, memory.cpp))
    for k, element in enumerate(dests):
        if isinstance(element, Sink):
            continue
        at = _element(e, pointer, k)
        if sem is None:
            value = ir.Unary("*", at, loc=e.loc)
        else:
            value = _call("__nv_atomic_load_n", at, _lit(_ORDERS[sem], e.loc), loc=e.loc)
        e.write(element, value, memory)


@handles("st")
def _st(e, ins: Instruction, m: Modifiers) -> None:
    sem, space, t, memory, address, sources = _vector_access(ins, m, ("volatile", "relaxed", "release"), True)
    values = [e.read(s, t) for s in sources]
    pointer = e.temp_pointer(memory.cpp, e.address(address, space, memory.cpp))
    for k, value in enumerate(values):
        at = _element(e, pointer, k)
        if sem is None:
            e.emit(ir.ExprStmt(ir.Assign("=", ir.Unary("*", at, loc=e.loc), value, loc=e.loc), loc=e.loc))
        else:
            e.emit(ir.ExprStmt(_call("__nv_atomic_store_n", at, value, _lit(_ORDERS[sem], e.loc), loc=e.loc),
                               loc=e.loc))


#: atom/red operations: CUDA's atomic function, and the types PTX allows it (b types are unsigned).
_ATOMIC_OPS = {
    "add": ("atomicAdd", ("u32", "s32", "u64", "f32", "f64")),
    "exch": ("atomicExch", ("b32", "b64")),
    "cas": ("atomicCAS", ("b32", "b64")),
    "and": ("atomicAnd", ("b32", "b64")), "or": ("atomicOr", ("b32", "b64")), "xor": ("atomicXor", ("b32", "b64")),
    "min": ("atomicMin", ("u32", "s32", "u64", "s64")), "max": ("atomicMax", ("u32", "s32", "u64", "s64")),
    "inc": ("atomicInc", ("u32",)), "dec": ("atomicDec", ("u32",)),
}


@handles("atom", "red")
def _atom(e, ins: Instruction, m: Modifiers) -> None:
    sem = _memory_order(m, ("relaxed", "acquire", "release", "acq_rel"))
    space = _space(m)
    if space not in ("global", "shared", "generic"):
        raise PtxUnsupported(f"'{ins.name}': the state space .{space}")
    op = m.take(*_ATOMIC_OPS)
    m.cache_hints()
    (t,) = m.types(1)
    m.done()
    if op is None or t.ptx not in _ATOMIC_OPS[op][1] or (ins.opcode == "red" and op in ("exch", "cas")):
        raise PtxUnsupported(f"'{ins.name}'")
    result = ins.opcode == "atom"
    count = (3 if op != "cas" else 4) if result else 2
    operands = _trailing_policy(ins, m, count)
    dest = operands[0] if result else None
    address, *values = operands[1:] if result else operands
    if not isinstance(address, Address):
        raise PtxUnsupported(f"'{ins.name}'")
    function, _ = _ATOMIC_OPS[op]
    args = [e.read(v, t) for v in values]
    pointer = e.temp_pointer(t.cpp, e.address(address, space, t.cpp))
    if sem in ("release", "acq_rel"):
        e.emit(ir.ExprStmt(_call("__atomic_thread_fence", _lit("__ATOMIC_RELEASE", e.loc), loc=e.loc), loc=e.loc))
    call = _call(function, pointer, *args, loc=e.loc)
    if result:
        old = e.temp(t, call)
    else:
        e.emit(ir.ExprStmt(call, loc=e.loc))
    if sem in ("acquire", "acq_rel"):
        e.emit(ir.ExprStmt(_call("__atomic_thread_fence", _lit("__ATOMIC_ACQUIRE", e.loc), loc=e.loc), loc=e.loc))
    if result:
        e.write(dest, old, t)


@handles("cp")
def _cp(e, ins: Instruction, m: Modifiers) -> None:
    if not m.has("async") or m.take("bulk", "mbarrier", "reduce"):
        raise PtxUnsupported(f"'{ins.name}' (cp.async of 4, 8 or 16 bytes and its groups are translated)")
    if m.take("commit_group", "wait_all"):
        m.done()
        _operands(ins, 0)
        return  # the copies are complete: nothing to wait for
    if m.has("wait_group"):
        m.done()
        _operands(ins, 1)
        return
    m.take("ca", "cg")
    dst_space, src_space = m.take("shared", "shared::cta"), m.take("global")
    m.cache_hints()
    m.done()
    if dst_space is None or src_space is None:
        raise PtxUnsupported(f"'{ins.name}' (from .global to .shared)")
    operands = ins.operands[:-1] if m.cache_hint else ins.operands
    if len(operands) not in (3, 4) or not all(isinstance(o, Address) for o in operands[:2]):
        raise PtxUnsupported(f"'{ins.name}' with {len(ins.operands)} operands")
    dst, src, size = operands[:3]
    copy_size = e.read(size, U32)
    if len(operands) == 4 and e.is_predicate(operands[3]):
        # ignore-src: copy nothing (zeros) where it holds
        source_size = ir.Conditional(e.read(operands[3], PRED), _lit("0u", e.loc), copy_size, loc=e.loc)
    elif len(operands) == 4:
        source_size = e.read(operands[3], U32)
    else:
        source_size = copy_size
    e.emit(ir.ExprStmt(_ptx("copy", e.loc, e.address(dst, "shared", "unsigned char"),
                            e.address(src, "global", "const unsigned char"), copy_size, source_size), loc=e.loc))


@handles("prefetch", "prefetchu", "discard", "applypriority")
def _cache_only(e, ins: Instruction, m: Modifiers) -> None:
    """Cache management: no effect on what any thread reads (``discard`` leaves the data
    unspecified, which keeping it is)."""
    m.take(*_STATE_SPACES)
    m.take("tensormap")
    m.cache_hints()
    m.take("L1", "L2")
    m.done()


@handles("createpolicy")
def _createpolicy(e, ins: Instruction, m: Modifiers) -> None:
    """A cache policy for ``.L2::cache_hint``, which the translation drops: any value does."""
    m.left.clear()
    e.write(ins.operands[0], _lit("0ull", e.loc), U64)


# -------------------------------------------------------------------- warp and block level

FULL_MASK = "0xffffffffu"
_SHUFFLES = {"up": "shfl_up", "down": "shfl_down", "bfly": "shfl_xor", "idx": "shfl"}


@handles("shfl")
def _shfl(e, ins: Instruction, m: Modifiers) -> None:
    if not m.has("sync"):
        raise PtxUnsupported(f"'{ins.name}': shfl without .sync (pre-Volta; use shfl.sync)")
    mode = m.take(*_SHUFFLES)
    t, d, a, b, c, mask = _typed(ins, m, 5)
    if mode is None or t.bits != 32:
        raise PtxUnsupported(f"'{ins.name}'")
    if isinstance(d, Pair):
        raise PtxUnsupported(f"'{ins.name}' with a predicate result (d|p)")
    width = e.shuffle_width(c, clamp_all=(mode != "up"))
    collective = ir.WarpCollective(_SHUFFLES[mode], e.read(mask, U32), e.read(a, U32), e.read(b, U32), width,
                                   "unsigned int", loc=e.loc)
    e.write(d, e.temp(U32, collective), U32)


@handles("vote")
def _vote(e, ins: Instruction, m: Modifiers) -> None:
    if not m.has("sync"):
        raise PtxUnsupported(f"'{ins.name}': vote without .sync (pre-Volta; use vote.sync)")
    mode = m.take("all", "any", "uni", "ballot")
    t, d, a, mask = _typed(ins, m, 3)
    if mode is None or (mode == "ballot") != (t.ptx == "b32") or (mode != "ballot" and t.kind != "p"):
        raise PtxUnsupported(f"'{ins.name}'")
    predicate = e.read(a, PRED)
    member = e.read(mask, U32)
    width = _lit("32", e.loc)

    def vote(op: str) -> ir.Expr:
        return e.temp(S32, ir.WarpCollective(op, member, predicate, None, width, "int", loc=e.loc))

    if mode == "ballot":
        e.write(d, ir.Cast("unsigned int", vote("ballot"), "static", loc=e.loc), U32)
    elif mode == "uni":
        every, some = vote("all"), vote("any")
        e.write(d, ir.Binary("||", ir.Binary("!=", every, _lit("0", e.loc), loc=e.loc),
                             ir.Binary("==", some, _lit("0", e.loc), loc=e.loc), loc=e.loc), PRED)
    else:
        e.write(d, ir.Binary("!=", vote(mode), _lit("0", e.loc), loc=e.loc), PRED)


@handles("activemask")
def _activemask(e, ins: Instruction, m: Modifiers) -> None:
    (t,) = m.types(1)
    m.done()
    (d,) = _operands(ins, 1)
    collective = ir.WarpCollective("activemask", _lit(FULL_MASK, e.loc), None, None, _lit("32", e.loc), "int",
                                   loc=e.loc)
    e.write(d, ir.Cast("unsigned int", e.temp(S32, collective), "static", loc=e.loc), U32)


@handles("match")
def _match(e, ins: Instruction, m: Modifiers) -> None:
    mode = m.take("any", "all")
    if not m.has("sync"):
        raise PtxUnsupported(f"'{ins.name}'")
    t, d, a, mask = _typed(ins, m, 3)
    if mode is None or t.ptx not in ("b32", "b64"):
        raise PtxUnsupported(f"'{ins.name}'")
    member = e.read(mask, U32)
    width = _lit("32", e.loc)
    if mode == "any":
        if isinstance(d, Pair):
            raise PtxUnsupported(f"'{ins.name}' with a predicate result")
        e.write(d, e.temp(U32, ir.WarpCollective("match_any", member, e.read(a, t), None, width, t.cpp, loc=e.loc)),
                U32)
        return
    flag = e.temp(S32, _lit("0", e.loc))
    result = e.temp(U32, ir.WarpCollective("match_all", member, e.read(a, t), ir.Unary("&", flag, loc=e.loc), width,
                                           t.cpp, loc=e.loc))
    first, second = (d.first, d.second) if isinstance(d, Pair) else (d, None)
    e.write(first, result, U32)
    if second is not None:
        e.write(second, ir.Binary("!=", flag, _lit("0", e.loc), loc=e.loc), PRED)


_REDUCTIONS = {"add": ("u32", "s32"), "min": ("u32", "s32"), "max": ("u32", "s32"), "and": ("b32",),
               "or": ("b32",), "xor": ("b32",)}


@handles("redux")
def _redux(e, ins: Instruction, m: Modifiers) -> None:
    if not m.has("sync"):
        raise PtxUnsupported(f"'{ins.name}'")
    op = m.take(*_REDUCTIONS)
    t, d, a, mask = _typed(ins, m, 3)
    if op is None or t.ptx not in _REDUCTIONS[op]:
        raise PtxUnsupported(f"'{ins.name}'")
    collective = ir.WarpCollective("reduce", e.read(mask, U32), e.read(a, t), None, _lit("32", e.loc), t.cpp, op,
                                   loc=e.loc)
    e.write(d, e.temp(t, collective), t)


@handles("bar", "barrier")
def _bar(e, ins: Instruction, m: Modifiers) -> None:
    m.take("cta")
    if m.has("warp"):
        if not m.has("sync"):
            raise PtxUnsupported(f"'{ins.name}'")
        m.done()
        (mask,) = _operands(ins, 1)
        e.emit(ir.ExprStmt(ir.WarpCollective("syncwarp", e.read(mask, U32), None, None, _lit("32", e.loc), "int",
                                             loc=e.loc), loc=e.loc))
        return
    if m.has("red"):
        _bar_red(e, ins, m)
        return
    kind = m.take("sync", "arrive")
    if ins.opcode == "bar" and kind is None:
        kind = "sync"  # bar 0 is bar.sync 0
    m.take("aligned")
    m.done()
    if kind != "sync":
        raise PtxUnsupported(f"'{ins.name}' (bar.sync and barrier.sync without a thread count are translated)")
    if len(ins.operands) != 1:
        raise PtxUnsupported(f"'{ins.name}' with a thread count (only all of the block's threads are translated)")
    e.read(ins.operands[0], U32)  # the barrier's number: every number waits for the whole block here
    e.emit(ir.Barrier(loc=e.loc))


_BLOCK_REDUCTIONS = {"popc": "count", "and": "and", "or": "or"}


def _bar_red(e, ins: Instruction, m: Modifiers) -> None:
    op = m.take(*_BLOCK_REDUCTIONS)
    m.take("sync")
    m.take("aligned")
    (t,) = m.types(1)
    m.done()
    if op is None or len(ins.operands) != 3:
        raise PtxUnsupported(f"'{ins.name}' (bar.red without a thread count is translated)")
    d, _, c = ins.operands
    collective = ir.WarpCollective(_BLOCK_REDUCTIONS[op], None, e.read(c, PRED), None, _lit("32", e.loc), "int",
                                   scope="block", loc=e.loc)
    result = e.temp(S32, collective)
    if op == "popc":
        e.write(d, ir.Cast("unsigned int", result, "static", loc=e.loc), U32)
    else:
        e.write(d, ir.Binary("!=", result, _lit("0", e.loc), loc=e.loc), PRED)


_FENCES = {"cta": "__threadfence_block", "gl": "__threadfence", "gpu": "__threadfence", "cluster": "__threadfence",
           "sys": "__threadfence_system"}


@handles("membar", "fence")
def _fence(e, ins: Instruction, m: Modifiers) -> None:
    if m.take("proxy", "mbarrier_init", "op_restrict"):
        raise PtxUnsupported(f"'{ins.name}' (proxy fences)")
    m.take("sc", "acq_rel", "acquire", "release")
    scope = m.take(*_FENCES)
    m.done()
    _operands(ins, 0)
    if scope is None:
        raise PtxUnsupported(f"'{ins.name}' without a scope")
    e.emit(ir.ExprStmt(_call(_FENCES[scope], loc=e.loc), loc=e.loc))


@handles("nanosleep")
def _nanosleep(e, ins: Instruction, m: Modifiers) -> None:
    m.types(1)
    m.done()
    (t,) = _operands(ins, 1)
    e.emit(ir.ExprStmt(_call("__nanosleep", e.read(t, U32), loc=e.loc), loc=e.loc))


@handles("trap")
def _trap(e, ins: Instruction, m: Modifiers) -> None:
    m.done()
    _operands(ins, 0)
    e.emit(ir.ExprStmt(_call("__trap", loc=e.loc), loc=e.loc))


# --------------------------------------------------------------------- special registers

#: Special registers that read builtin vectors: name -> (builtin variable, component).
SPECIAL_VECTORS = {f"%{name}.{c}": (var, c) for name, var in (("tid", "threadIdx"), ("ntid", "blockDim"),
                                                              ("ctaid", "blockIdx"), ("nctaid", "gridDim"))
                   for c in "xyz"}
#: Special registers computed from the thread's rank in its block.
LANE_REGISTERS = frozenset({"%laneid", "%warpid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
                            "%lanemask_gt"})
CLOCK_REGISTERS = {"%clock": U32, "%clock64": U64, "%clock_hi": U32}


def special_register(name: str, loc) -> tuple[ir.Expr, ScalarType]:
    """The value of a special register, and its type; PtxUnsupported for one not translated."""
    if name in SPECIAL_VECTORS:
        var, component = SPECIAL_VECTORS[name]
        return ir.Builtin(var, component, loc=loc), U32
    if name in LANE_REGISTERS:
        flat = ir.flat_thread_index(loc)
        lane = ir.Binary("%", flat, _lit("32u", loc), loc=loc)
        if name == "%laneid":
            return lane, U32
        if name == "%warpid":
            return ir.Binary("/", flat, _lit("32u", loc), loc=loc), U32
        bit = ir.Binary("<<", _lit("1u", loc), lane, loc=loc)
        below = ir.Binary("-", bit, _lit("1u", loc), loc=loc)
        upto = ir.Binary("-", ir.Binary("<<", _lit("2u", loc), lane, loc=loc), _lit("1u", loc), loc=loc)
        value = {"%lanemask_eq": bit, "%lanemask_lt": below, "%lanemask_le": upto,
                 "%lanemask_gt": ir.Unary("~", upto, loc=loc), "%lanemask_ge": ir.Unary("~", below, loc=loc)}[name]
        return ir.Cast("unsigned int", value, "static", loc=loc), U32
    if name in CLOCK_REGISTERS:
        ticks = ir.Call(ir.DEVICE_CLOCK, (), loc=loc)
        if name == "%clock_hi":
            ticks = ir.Binary(">>", ir.Cast("unsigned long long", ticks, "static", loc=loc), _lit("32", loc), loc=loc)
        return ir.Cast(CLOCK_REGISTERS[name].cpp, ticks, "static", loc=loc), CLOCK_REGISTERS[name]
    raise PtxUnsupported(f"the special register {name}")


def special_register_builtins(name: str) -> set[str]:
    """The builtin vectors a special register reads."""
    if name in SPECIAL_VECTORS:
        return {SPECIAL_VECTORS[name][0]}
    if name in LANE_REGISTERS:
        return {"threadIdx", "blockDim"}
    return set()


#: Opcodes whose instructions synchronize threads (a function with one is inlined).
SYNCHRONIZING = frozenset({"shfl", "vote", "activemask", "match", "redux", "bar", "barrier"})
