"""Inline PTX in device code as C++: an ``asm`` statement becomes a block of IR.

The statement's operands are bound to registers by their constraints (``h``: 16 bits, ``r``: 32,
``l``: 64, ``f``: float, ``d``: double, each a C++ local; ``n``/``i``: an immediate, the
expression itself; ``=`` written, ``+`` read and written, a digit: the input starts as that
output).  The template is parsed (``cuda_front/ptx_syntax.py``), ``.reg`` declarations become
locals of their ``{ }`` scope, and each instruction is emitted by its handler
(``cuda_front/ptx_instructions.py``), under an ``if`` where it has a guard.  Outputs are written
back at the end.  Warp-level instructions become the IR's warp collectives and ``bar.sync`` a
barrier, so the barrier lowering splits there as at ``__shfl_xor_sync``/``__syncthreads()``.
An instruction outside the translated subset is a located error naming it; every such
instruction of the statement is reported.

Before::

    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));

After (printed)::

    float y;
    {
        float ptx_1 = x;
        float ptx_0 = 0;
        ptx_0 = moccuda::__ptx_ftz(exp2f(moccuda::__ptx_ftz(ptx_1)));
        y = ptx_0;
    }
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import clang.cindex as ci

from cuda_front import clang_ext, ptx_instructions
from cuda_front.clang_ext import location
from cuda_front.ptx_instructions import (PRED, TYPES, U32, U64, Modifiers, PtxUnsupported, ScalarType,
                                         special_register, special_register_builtins)
from cuda_front.ptx_syntax import (Address, Imm, Instruction, Not, Pair, PtxSyntaxError, Ref, Reg, RegisterDecl, ScopeClose,
                                   ScopeOpen, Sink, Statement, Vector, immediate_integer, is_integer_literal,
                                   parse_ptx)
from foundation import ir
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc

K = ci.CursorKind

#: Register constraints: the PTX register type each binds.
CONSTRAINT_TYPES = {"h": TYPES["u16"], "r": TYPES["u32"], "l": TYPES["u64"], "f": TYPES["f32"], "d": TYPES["f64"]}
IMMEDIATE_CONSTRAINTS = frozenset("ni")

ADVICE = ("cuda2cpu translates a subset of PTX (docs/COVERAGE.md, 'Inline PTX'); write what the instruction "
          "computes in C++ (CUDA's intrinsics, such as __shfl_xor_sync, __popc, __brev or the atomics, are supported)")


# ------------------------------------------------------------------------ the asm statement


@dataclass(frozen=True)
class AsmOperand:
    constraint: str  # as written: "=r", "+f", "l", "n", "0"
    name: str  # the symbolic name of ``[name] "r"(x)``, or ""
    cursor: ci.Cursor = field(compare=False, repr=False)


@dataclass(frozen=True)
class AsmStatement:
    template: str
    outputs: tuple[AsmOperand, ...]
    inputs: tuple[AsmOperand, ...]
    clobbers: tuple[str, ...]
    loc: SourceLoc
    #: Where each piece of the template is written: (offset in the template, location of its
    #: first character, offsets of its characters in the source text or None for a macro).
    pieces: tuple = field(default=(), compare=False, repr=False)

    @property
    def operands(self) -> tuple[AsmOperand, ...]:
        return self.outputs + self.inputs

    def location_of(self, at: int) -> SourceLoc:
        """The source location of the template's character ``at`` (best effort: a string
        literal's character, or the macro that spells the template)."""
        found = self.loc
        for start, loc, columns in self.pieces:
            if start > at:
                break
            found = loc if columns is None or at - start >= len(columns) else SourceLoc(loc.file, loc.line,
                                                                                          loc.column + columns[at - start])
        return found


class _AsmError(Exception):
    pass


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0", "a": "\a", "v": "\v",
            "f": "\f", "?": "?", "b": "\b"}


def _string_literal(spelling: str) -> tuple[str, list[int]]:
    """The characters of a C string literal token, and the column offset of each in the token."""
    m = re.fullmatch(r'(?:u8|u|U|L)?"(.*)"', spelling, re.S)
    if m is None:
        raise _AsmError(f"'{spelling}' where the asm template's string literal should be")
    body, base = m.group(1), m.start(1)
    text, columns, i = [], [], 0
    while i < len(body):
        start = i
        if body[i] == "\\" and i + 1 < len(body):
            c = body[i + 1]
            if c == "x":
                digits = re.match(r"[0-9a-fA-F]+", body[i + 2:])
                text.append(chr(int(digits.group(), 16)) if digits else "x")
                i += 2 + (len(digits.group()) if digits else 0)
            elif c in "01234567":
                digits = re.match(r"[0-7]{1,3}", body[i + 1:]).group()
                text.append(chr(int(digits, 8)))
                i += 1 + len(digits)
            else:
                text.append(_ESCAPES.get(c, c))
                i += 2
        else:
            text.append(body[i])
            i += 1
        columns.append(base + start)
    return "".join(text), columns


def _macro_strings(cursor: ci.Cursor, name: str, depth: int = 0) -> list[str] | None:
    """The string literals an object-like macro's body spells (through other such macros), or
    None when it is anything else."""
    if depth > 16:
        return None
    definition = _macro_definition(cursor.translation_unit, name)
    if definition is None:
        return None
    if definition.is_macro_function_like():
        return None
    tokens = [t.spelling for t in definition.get_tokens()][1:]
    found = []
    for token in tokens:
        if token.startswith('"') or re.match(r'(?:u8|u|U|L)"', token):
            found.append(token)
        elif re.fullmatch(r"[A-Za-z_]\w*", token):
            inner = _macro_strings(cursor, token, depth + 1)
            if inner is None:
                return None
            found.extend(inner)
        else:
            return None
    return found


#: The macro definitions of the translation unit last asked about, by name.
_macro_definitions: tuple[ci.TranslationUnit | None, dict[str, ci.Cursor]] = (None, {})


def _macro_definition(tu: ci.TranslationUnit, name: str) -> ci.Cursor | None:
    global _macro_definitions
    if _macro_definitions[0] is not tu:
        _macro_definitions = (tu, {c.spelling: c for c in tu.cursor.get_children() if c.kind == K.MACRO_DEFINITION})
    return _macro_definitions[1].get(name)


def _split_top_level(tokens: list, separator: str) -> list[list]:
    parts, current, depth = [], [], 0
    for tok in tokens:
        text = tok.spelling
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        if text == separator and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(tok)
    parts.append(current)
    return parts


def read_asm(cursor: ci.Cursor) -> AsmStatement:
    """The parts of a GCC-style ``asm`` statement, from its tokens."""
    loc = location(cursor)
    tokens = clang_ext.written_tokens(cursor)
    if tokens is None:
        raise CompileError([_error(loc, "inline assembly written in a macro's body is not supported")])
    try:
        return _read_asm(cursor, tokens, loc)
    except _AsmError as e:
        raise CompileError([_error(loc, f"this inline assembly statement is not supported: {e}")]) from None


def _read_asm(cursor: ci.Cursor, tokens: list, loc: SourceLoc) -> AsmStatement:
    words = [t.spelling for t in tokens]
    i = 1
    while i < len(words) and words[i] in ("volatile", "__volatile__", "__volatile", "inline", "__inline__"):
        i += 1
    if i < len(words) and words[i] == "goto":
        raise _AsmError("asm goto")
    if i >= len(words) or words[i] != "(" or words[-1] != ")":
        raise _AsmError("an asm statement that is not 'asm [volatile] (\"template\" : outputs : inputs : clobbers)'")
    inner = tokens[i + 1:-1]
    # '::' is two colons here
    sections, current = [], []
    for tok in inner:
        if tok.spelling in (":", "::") and not _inside_parentheses(current):
            for _ in range(len(tok.spelling)):
                sections.append(current)
                current = []
        else:
            current.append(tok)
    sections.append(current)
    if len(sections) > 4:
        raise _AsmError("more than three ':' sections")
    template_tokens = sections[0]
    text, pieces = "", []
    for tok in template_tokens:
        spelling = tok.spelling
        if re.fullmatch(r"[A-Za-z_]\w*", spelling):
            strings = _macro_strings(cursor, spelling)
            if strings is None:
                raise _AsmError(f"the template is spelled with '{spelling}', which is not a macro of string literals")
            for s in strings:
                decoded, _ = _string_literal(s)
                pieces.append((len(text), _token_loc(tok, loc), None))
                text += decoded
            continue
        decoded, columns = _string_literal(spelling)
        pieces.append((len(text), _token_loc(tok, loc), columns))
        text += decoded
    outputs = _operand_list(sections[1] if len(sections) > 1 else [], "output")
    inputs = _operand_list(sections[2] if len(sections) > 2 else [], "input")
    clobbers = tuple(_string_literal(t.spelling)[0] for t in (sections[3] if len(sections) > 3 else [])
                     if t.spelling != ",")
    children = list(cursor.get_children())
    if len(children) != len(outputs) + len(inputs):
        raise _AsmError(f"{len(outputs) + len(inputs)} operands, but clang read {len(children)} expressions")
    bound = [AsmOperand(c, n, cursor=child) for (c, n), child in zip(outputs + inputs, children)]
    return AsmStatement(text, tuple(bound[:len(outputs)]), tuple(bound[len(outputs):]), clobbers, loc, tuple(pieces))


def _token_loc(tok, fallback: SourceLoc) -> SourceLoc:
    where = tok.location
    return SourceLoc(where.file.name if where.file is not None else fallback.file, where.line, where.column)


def _inside_parentheses(tokens: list) -> bool:
    depth = 0
    for tok in tokens:
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(tok.spelling, 0)
    return depth > 0


def _operand_list(tokens: list, what: str) -> list[tuple[str, str]]:
    if not tokens:
        return []
    found = []
    for part in _split_top_level(tokens, ","):
        words = [t.spelling for t in part]
        name = ""
        if words[:1] == ["["]:
            if len(words) < 3 or words[2] != "]":
                raise _AsmError(f"an {what} operand's symbolic name")
            name, words = words[1], words[3:]
        if len(words) < 3 or not words[0].startswith('"') or words[1] != "(" or words[-1] != ")":
            raise _AsmError(f"an {what} operand that is not '\"constraint\"(expression)'")
        found.append((_string_literal(words[0])[0], name))
    return found


# ------------------------------------------------------------------------------- registers


@dataclass(frozen=True)
class Register:
    """A C++ local holding a PTX register."""

    name: str
    sym: int
    type: ScalarType

    def expr(self, loc) -> ir.Name:
        return ir.Name(self.name, self.sym, loc=loc)


@dataclass(frozen=True)
class Immediate:
    """An ``n``/``i`` operand: the C++ expression, and its value where clang can compute it."""

    expr: ir.Expr
    value: int | None


def _error(loc: SourceLoc, message: str) -> Diagnostic:
    return Diagnostic("error", loc, message, notes=(Diagnostic("note", loc, ADVICE),))


def _c_type_class(type_: ci.Type) -> tuple[str, int]:
    """The class of an operand's C++ type (int, enum, float, pointer, record, dependent) and its
    size in bytes (-1 when unknown)."""
    canonical = type_.get_canonical()
    kind = canonical.kind
    T = ci.TypeKind
    size = canonical.get_size()
    if kind in (T.BOOL, T.CHAR_U, T.UCHAR, T.CHAR16, T.CHAR32, T.USHORT, T.UINT, T.ULONG, T.ULONGLONG, T.UINT128,
                T.CHAR_S, T.SCHAR, T.WCHAR, T.SHORT, T.INT, T.LONG, T.LONGLONG, T.INT128):
        return "int", size
    if kind == T.ENUM:
        return "enum", size
    if kind in (T.FLOAT, T.DOUBLE, T.LONGDOUBLE, T.HALF):
        return "float", size
    if kind == T.POINTER:
        return "pointer", 8
    if kind == T.RECORD and size > 0:
        return "record", size
    return "dependent", -1


# ------------------------------------------------------------------------------ translation


class Translation:
    """One asm statement's translation: the emitter the instruction handlers write through."""

    def __init__(self, conv, asm: AsmStatement) -> None:
        self.conv = conv
        self.asm = asm
        self.loc = asm.loc
        self.stmts: list[ir.Stmt] = []
        self.scopes: list[dict[str, Register]] = [{}]
        self.bound: list[Register | Immediate] = []
        self.errors: list[Diagnostic] = []
        self.outer_scopes: list[list[ir.Stmt]] = []  # the statements of the scopes around a { }
        # The block's locals must hide nothing the operands' expressions name: every name the
        # function spells is taken (another asm statement's locals are in a block of their own).
        function = conv.function
        self.taken = {n.spelling for n in function.walk_preorder()} if function is not None else set()

    # ---------------------------------------------------------------- locals

    def fresh(self, base: str, type_: str) -> tuple[str, int]:
        name, n = base, 1
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        sym = self.conv.next_made_sym
        self.conv.next_made_sym += 1
        self.conv.symbols[sym] = ir.Symbol(sym, name, type_, "local", self.loc)
        return name, sym

    def declare(self, base: str, t: ScalarType, init: ir.Expr | None) -> Register:
        name, sym = self.fresh(base, t.cpp)
        self.stmts.append(ir.VarDecl(sym, name, t.cpp, init, loc=self.loc))
        return Register(name, sym, t)

    def temp(self, t: ScalarType, value: ir.Expr) -> ir.Name:
        """A new local of type ``t`` holding ``value``."""
        return self.declare("ptx_t", t, value).expr(self.loc)

    def temp_pointer(self, element: str, value: ir.Expr) -> ir.Name:
        name, sym = self.fresh("ptx_address", f"{element} *")
        self.stmts.append(ir.VarDecl(sym, name, f"{element} *", value, loc=self.loc))
        return ir.Name(name, sym, loc=self.loc)

    def emit(self, stmt: ir.Stmt) -> None:
        self.stmts.append(stmt)

    # ---------------------------------------------------------------- operands

    def register(self, op, writing: bool = False) -> Register | Immediate | tuple[ir.Expr, ScalarType]:
        """What an operand names: a register, an immediate operand, or a special register's
        value and type."""
        if isinstance(op, Ref):
            if op.index >= len(self.bound):
                raise PtxUnsupported(f"the operand %{op.index}: the asm statement has {len(self.bound)}")
            return self.bound[op.index]
        if isinstance(op, Reg):
            for scope in reversed(self.scopes):
                if op.name in scope:
                    return scope[op.name]
            if op.name.startswith("%") and not writing:
                return special_register(op.name, self.loc)
            raise PtxUnsupported(f"the register '{op.name}', which no .reg declares")
        raise PtxUnsupported("this operand where a register should be")

    def is_predicate(self, op) -> bool:
        if isinstance(op, Not):
            return True
        if isinstance(op, (Ref, Reg)):
            found = self.register(op)
            return isinstance(found, Register) and found.type.kind == "p"
        return False

    def read(self, op, t: ScalarType) -> ir.Expr:
        """The operand's value as a ``t``."""
        loc = self.loc
        if isinstance(op, Not):
            if t.kind != "p":
                raise PtxUnsupported("a negated operand ('!p') where no predicate is read")
            return ir.Unary("!", self.read(op.operand, t), loc=loc)
        if isinstance(op, Imm):
            return self.immediate(op.text, t)
        if isinstance(op, (Sink, Vector, Address, Pair)) or op is None:
            raise PtxUnsupported("this operand where a value should be")
        found = self.register(op)
        if isinstance(found, Immediate):
            if t.kind == "p":
                raise PtxUnsupported("an immediate operand where a predicate should be")
            return ir.Cast(t.cpp, found.expr, "static", loc=loc)
        if isinstance(found, tuple):
            value, held = found
            return self.convert(value, held, t)
        return self.convert(found.expr(loc), found.type, t)

    def immediate(self, text: str, t: ScalarType) -> ir.Expr:
        loc = self.loc
        if t.kind == "p":
            raise PtxUnsupported("an immediate where a predicate should be")
        if re.fullmatch(r"-?0[fFdD][0-9a-fA-F]+", text):
            negative = text.startswith("-")
            digits = text.lstrip("-")
            bits_type = "float" if digits[1] in "fF" else "double"
            literal = f"0x{digits[2:]}{'u' if bits_type == 'float' else 'ull'}"
            value = ir.Call(f"moccuda::__ptx_bits<{bits_type}>", (ir.Literal(literal, loc=loc),), loc=loc)
            if negative:
                value = ir.Unary("-", value, loc=loc)
            return value if t.cpp == bits_type else ir.Cast(t.cpp, value, "static", loc=loc)
        if is_integer_literal(text):
            value = immediate_integer(text)
            literal = str(value) if abs(value) < 2 ** 31 else hex(value & (2 ** 64 - 1)) + "ull"
            return ir.Cast(t.cpp, ir.Literal(literal, loc=loc), "static", loc=loc)
        return ir.Cast(t.cpp, ir.Literal(text.rstrip("uU"), loc=loc), "static", loc=loc)

    def convert(self, value: ir.Expr, held: ScalarType, t: ScalarType) -> ir.Expr:
        """A register's value of type ``held`` read as ``t`` (PTX: a wider integer register is
        truncated, one of the same size but another type is reinterpreted)."""
        loc = self.loc
        if held.cpp == t.cpp and (held.kind == "p") == (t.kind == "p"):
            return value
        if held.kind == "p" or t.kind == "p":
            raise PtxUnsupported(f"a .{held.ptx} register where a .{t.ptx} operand should be")
        integral = ("u", "s", "h", "h2")
        if held.kind in integral and t.kind in integral and held.bits >= t.bits:
            return ir.Cast(t.cpp, value, "static", loc=loc)
        if held.bits == t.bits:
            return ir.Call(f"moccuda::__ptx_bits<{t.cpp}>", (value,), loc=loc)
        raise PtxUnsupported(f"a {held.bits}-bit register where a .{t.ptx} operand should be")

    def write(self, op, value: ir.Expr, t: ScalarType) -> None:
        """``op`` (a register) takes ``value``, of type ``t`` (PTX: a wider integer register takes
        it zero- or sign-extended)."""
        loc = self.loc
        if isinstance(op, Sink):
            return
        if not isinstance(op, (Ref, Reg)):
            raise PtxUnsupported("this operand where a register to write should be")
        found = self.register(op, writing=True)
        if not isinstance(found, Register):
            raise PtxUnsupported("an immediate operand written to")
        reg = found.type
        if reg.cpp == t.cpp and (reg.kind == "p") == (t.kind == "p"):
            converted = value
        elif reg.kind == "p" or t.kind == "p":
            raise PtxUnsupported(f"a .{t.ptx} result in a .{reg.ptx} register")
        elif reg.kind in ("u", "s", "h", "h2") and t.kind in ("u", "s", "h", "h2") and reg.bits >= t.bits:
            converted = ir.Cast(reg.cpp, value, "static", loc=loc)
        elif reg.bits == t.bits:
            converted = ir.Call(f"moccuda::__ptx_bits<{reg.cpp}>", (value,), loc=loc)
        else:
            raise PtxUnsupported(f"a .{t.ptx} result in a {reg.bits}-bit register")
        self.stmts.append(ir.ExprStmt(ir.Assign("=", found.expr(loc), converted, loc=loc), loc=loc))

    def address(self, op: Address, space: str, element: str) -> ir.Expr:
        """A pointer to ``element`` at the address ``op`` of state space ``space`` (.shared,
        .local and .const addresses are window addresses; .global and generic ones pointers)."""
        loc = self.loc
        base = self.register(op.base)
        held = base.type if isinstance(base, Register) else (U64 if isinstance(base, Immediate) else base[1])
        if held.kind not in ("u", "s"):
            raise PtxUnsupported("an address in a register that holds no integer")
        value = self.read(op.base, held)
        if op.offset:
            value = ir.Binary("+", value, ir.Literal(str(op.offset), loc=loc), loc=loc)
        if space in ("shared", "local", "const"):
            pointer = ir.Call("moccuda::__ptx_window_pointer", (value,), loc=loc)
            return ir.Cast(f"{element} *", pointer, "static", loc=loc)
        if held.bits != 64:
            raise PtxUnsupported(f"a {held.bits}-bit register as a {space} address (generic and .global addresses "
                                 "are 64 bits)")
        return ir.Cast(f"{element} *", value, "reinterpret", loc=loc)

    def shuffle_width(self, c, clamp_all: bool) -> ir.Expr:
        """The segment width a shuffle's ``c`` operand packs: ``((32 - width) << 8) | clamp``, the
        clamp 31 (0 for ``.up``) in the segment's lanes, as CUDA's ``__shfl*_sync`` write it."""
        value = None
        if isinstance(c, Imm) and is_integer_literal(c.text):
            value = immediate_integer(c.text)
        elif isinstance(c, Ref) and c.index < len(self.bound) and isinstance(self.bound[c.index], Immediate):
            value = self.bound[c.index].value
        if value is None:
            raise PtxUnsupported("a shfl.sync whose c operand is not a constant (its segment width must be known)")
        segment_mask, clamp = (value >> 8) & 31, value & 31
        width = 32 - segment_mask
        if width & (width - 1) or segment_mask != 32 - width or (clamp & (width - 1)) != (width - 1 if clamp_all else 0):
            raise PtxUnsupported(f"a shfl.sync whose c operand ({value:#x}) is not one CUDA's __shfl*_sync write")
        return ir.Literal(str(width), loc=self.loc)

    # ---------------------------------------------------------------- statements

    def translate(self) -> ir.Block:
        asm = self.asm
        names = {o.name: i for i, o in enumerate(asm.operands) if o.name}
        try:
            statements = parse_ptx(asm.template, names)
        except PtxSyntaxError as e:
            raise CompileError([_error(asm.location_of(e.at), f"inline PTX: {e}")]) from None
        self.bind_operands()
        if "memory" in asm.clobbers:
            # The asm may read and write any memory: no value stays in a register across it.
            self.emit(ir.ExprStmt(ir.Call("__atomic_signal_fence", (ir.Literal("__ATOMIC_SEQ_CST", loc=self.loc),),
                                          loc=self.loc), loc=self.loc))
        for statement in statements:
            self.statement(statement)
        if self.errors:
            raise CompileError(self.errors)
        self.write_back()
        return ir.Block(tuple(self.stmts), loc=self.loc)

    def statement(self, statement: Statement) -> None:
        if isinstance(statement, ScopeOpen):
            self.scopes.append({})
            self.outer_scopes.append(self.stmts)
            self.stmts = []
        elif isinstance(statement, ScopeClose):
            self.scopes.pop()
            inner = ir.Block(tuple(self.stmts), loc=self.loc)
            self.stmts = self.outer_scopes.pop()
            self.stmts.append(inner)
        elif isinstance(statement, RegisterDecl):
            if statement.type not in TYPES:
                self.errors.append(_error(self.asm.location_of(statement.at),
                                          f"inline PTX: a register of type .{statement.type} is not supported"))
                return
            t = TYPES[statement.type]
            for name in statement.names:
                self.scopes[-1][name] = self.declare("ptx_" + re.sub(r"\W", "", name), t,
                                                     ir.Literal("false" if t.kind == "p" else "0", loc=self.loc))
        else:
            self.instruction(statement)

    def instruction(self, ins: Instruction) -> None:
        handler = ptx_instructions.HANDLERS.get(ins.opcode)
        where = self.asm.location_of(ins.at)
        if handler is None:
            self.errors.append(_error(where, f"the PTX instruction '{ins.name}' in inline assembly is not supported"))
            return
        outer, self.stmts = self.stmts, []
        try:
            handler(self, ins, Modifiers(ins))
        except PtxUnsupported as e:
            self.stmts = outer
            detail = str(e).replace(f"'{ins.name}'", "").strip(" :")
            self.errors.append(_error(where, f"the PTX instruction '{ins.name}' in inline assembly is not supported"
                                             + (f": {detail}" if detail else "")))
            return
        body, self.stmts = self.stmts, outer
        if ins.guard is None:
            self.stmts.extend(body)
            return
        try:
            condition = self.read(ins.guard.operand, PRED)
        except PtxUnsupported as e:
            self.errors.append(_error(where, f"the guard of '{ins.name}': {e}"))
            return
        if ins.guard.negated:
            condition = ir.Unary("!", condition, loc=self.loc)
        self.stmts.append(ir.If(condition, ir.Block(tuple(body), loc=self.loc), loc=self.loc))

    # ---------------------------------------------------------------- binding

    def bind_operands(self) -> None:
        """A register (or immediate) per operand: inputs hold their values; outputs start at
        zero, or at their value (``+``), or at a tied input's (a digit)."""
        asm, loc = self.asm, self.loc
        tied: dict[int, AsmOperand] = {}
        for operand in asm.inputs:
            letters = operand.constraint.strip()
            if letters.isdigit():
                tied[int(letters)] = operand
        for index, operand in enumerate(asm.operands):
            constraint = operand.constraint
            letters = constraint.lstrip("=+&").replace("&", "")
            if index >= len(asm.outputs) and letters.isdigit():
                target = int(letters)
                if target >= len(asm.outputs):
                    raise self.operand_error(operand, f"the constraint \"{constraint}\" ties to no output")
                self.bound.append(self.bound[target])  # the same register
                continue
            if letters in IMMEDIATE_CONSTRAINTS:
                if index < len(asm.outputs):
                    raise self.operand_error(operand, f"the constraint \"{constraint}\" on an output")
                self.bound.append(Immediate(self.conv.expr(operand.cursor), clang_ext.evaluate(operand.cursor)))
                continue
            if letters not in CONSTRAINT_TYPES:
                raise self.operand_error(operand, f"the constraint \"{constraint}\" (h, r, l, f, d, n and i are "
                                                  "translated)")
            t = CONSTRAINT_TYPES[letters]
            init: ir.Expr = ir.Literal("0", loc=loc)
            if index >= len(asm.outputs) or constraint.startswith("+"):
                init = self.to_register(operand, t)
            elif index in tied:
                init = self.to_register(tied[index], t)
            self.bound.append(self.declare(f"ptx_{index}", t, init))

    def operand_error(self, operand: AsmOperand, message: str) -> CompileError:
        return CompileError([_error(location(operand.cursor), f"inline PTX: {message}")])

    def to_register(self, operand: AsmOperand, t: ScalarType) -> ir.Expr:
        """The operand's C++ value in a register of type ``t``: converted as a value where both
        are arithmetic, else its bits reinterpreted (a pointer in an ``l`` register, a ``__half``
        in an ``h`` one)."""
        loc = self.loc
        value = self.conv.expr(operand.cursor)
        kind, size = _c_type_class(operand.cursor.type)
        if kind == "pointer":
            if t.bits != 64 or t.kind == "f":
                raise self.operand_error(operand, f"a pointer in a \"{operand.constraint}\" operand (pointers go "
                                                  "in \"l\")")
            return ir.Cast(t.cpp, value, "reinterpret", loc=loc)
        if kind == "float" and t.kind != "f":
            if size * 8 != t.bits:
                raise self.operand_error(operand, f"a {size * 8}-bit floating-point value in a \"{operand.constraint}\""
                                                  " operand")
            return ir.Call(f"moccuda::__ptx_bits<{t.cpp}>", (value,), loc=loc)
        if kind == "record":
            if size * 8 != t.bits:
                raise self.operand_error(operand, f"a {size}-byte value in a \"{operand.constraint}\" operand")
            return ir.Call(f"moccuda::__ptx_bits<{t.cpp}>", (value,), loc=loc)
        if kind == "dependent":  # a template parameter's type: the same rules, when g++ knows it
            return ir.Call(f"moccuda::__ptx_register<{t.cpp}>", (value,), loc=loc)
        return ir.Cast(t.cpp, value, "static", loc=loc)

    def write_back(self) -> None:
        """Each output operand takes its register's value, converted to the operand's type as
        :meth:`to_register` converts inputs."""
        loc = self.loc
        for index, operand in enumerate(self.asm.outputs):
            reg = self.bound[index]
            target = self.conv.expr(operand.cursor)
            kind, size = _c_type_class(operand.cursor.type)
            spelled = re.sub(r"^(const |volatile )+", "", self.conv.type_text(operand.cursor.type.spelling))
            value: ir.Expr = reg.expr(loc)
            if kind == "pointer":
                value = ir.Cast(spelled, value, "reinterpret", loc=loc)
            elif (kind in ("int", "enum") and reg.type.kind == "f") or (kind == "float" and reg.type.kind != "f") \
                    or kind == "record":
                if size * 8 != reg.type.bits:
                    raise self.operand_error(operand, f"a {size}-byte output in a \"{operand.constraint}\" operand")
                value = ir.Call(f"moccuda::__ptx_bits<{spelled}>", (value,), loc=loc)
            elif kind == "enum":
                value = ir.Cast(spelled, value, "static", loc=loc)
            self.stmts.append(ir.ExprStmt(ir.Assign("=", target, value, loc=loc), loc=loc))


def translate(conv, cursor: ci.Cursor) -> ir.Block:
    """The IR of an ``asm`` statement in device code (``conv``: the converter of its function);
    a CompileError with every construct that cannot be translated."""
    if cursor.kind == K.MS_ASM_STMT:
        raise CompileError([_error(location(cursor), "Microsoft-style inline assembly (__asm { }) in device code is "
                                                     "not supported")])
    return Translation(conv, read_asm(cursor)).translate()


# ------------------------------------------------------------------------ questions of the driver


def _statements(cursor: ci.Cursor) -> tuple[Statement, ...]:
    try:
        asm = read_asm(cursor)
        return parse_ptx(asm.template, {o.name: i for i, o in enumerate(asm.operands) if o.name})
    except (CompileError, PtxSyntaxError):
        return ()


def builtins_read(cursor: ci.Cursor) -> set[str]:
    """The builtin vectors (``threadIdx`` ...) an asm statement's special registers read."""
    found: set[str] = set()
    for statement in _statements(cursor):
        if not isinstance(statement, Instruction):
            continue
        for op in statement.operands:
            for reg in _registers(op):
                found |= special_register_builtins(reg)
    return found


def _registers(op) -> list[str]:
    if isinstance(op, Reg):
        return [op.name]
    if isinstance(op, (Not,)):
        return _registers(op.operand)
    if isinstance(op, Pair):
        return _registers(op.first) + _registers(op.second)
    if isinstance(op, Vector):
        return [r for e in op.elements for r in _registers(e)]
    if isinstance(op, Address):
        return _registers(op.base)
    return []


def synchronizes(cursor: ci.Cursor) -> bool:
    """Whether an asm statement holds a warp- or block-level instruction (a function with one is
    inlined into the kernels, as one calling ``__shfl_xor_sync`` is)."""
    return any(isinstance(s, Instruction) and s.opcode in ptx_instructions.SYNCHRONIZING for s in _statements(cursor))


def asm_statements(function: ci.Cursor) -> list[ci.Cursor]:
    return [n for n in function.walk_preorder() if n.kind in (K.ASM_STMT, K.MS_ASM_STMT)]
