"""The one C++ printer: IR expressions and statements to text, parentheses from one table.

Parentheses are placed by precedence (``PRECEDENCE``), plus a few the C++ compiler would ask for
under ``-Wall -Wparentheses`` (``&&`` inside ``||``, arithmetic inside shifts and bitwise
operators, an assignment used as a condition), so the generated code compiles without warnings.
A shift whose count may reach the operand's width prints as MocCUDA's GPU shift (``GPU_SHIFTS``).

The lowered loop nodes (:class:`~transpiler.ir.GridLoop`, :class:`~transpiler.ir.ThreadLoop`)
print as the OpenMP block loop and the serial thread loop; the names they introduce come from a
:class:`LoopNames` chosen to avoid every identifier of the kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from barrier.effects import int_literal
from barrier.liveness import declarator_group, fresh_name
from transpiler import ir
from transpiler.diagnostics import CompileError, error

# Higher binds tighter.
PRECEDENCE = {
    ",": 1,
    "=": 3, "+=": 3, "-=": 3, "*=": 3, "/=": 3, "%=": 3, "<<=": 3, ">>=": 3, "&=": 3, "|=": 3, "^=": 3,
    "?:": 3,
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8,
    "==": 9, "!=": 9,
    "<": 10, "<=": 10, ">": 10, ">=": 10,
    "<<": 11, ">>": 11,
    "+": 12, "-": 12,
    "*": 13, "/": 13, "%": 13,
}
PREFIX = 15
POSTFIX = 16
PRIMARY = 17

_BITWISE = {"&", "|", "^"}
_SHIFT = {"<<", ">>"}
_ARITH = {"+", "-", "*", "/", "%"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


#: Shifts whose count may reach the operand's width print as MocCUDA's GPU shifts
#: (``cuda2cpu_device.h``): a GPU shifts every bit out (0, or -1 for ``>>`` of a negative value)
#: where x86 masks the count.
GPU_SHIFTS = {"<<": "moccuda::shl", ">>": "moccuda::shr", "<<=": "moccuda::shl_assign", ">>=": "moccuda::shr_assign"}


def count_below_width(count: ir.Expr) -> bool:
    """Whether the shift count ``count`` is provably below the width of any (promoted) integer
    operand, 32 bits at least: a literal below 32, or ``n & K`` with a literal ``K`` below 32."""
    if isinstance(count, ir.Binary) and count.op == "&":
        return count_below_width(count.rhs) or count_below_width(count.lhs)
    value = int_literal(count.text) if isinstance(count, ir.Literal) else None
    return value is not None and 0 <= value < 32


def is_gpu_shift(e: ir.Node) -> bool:
    """Whether ``e`` is a shift the printer writes as a GPU shift (its count may reach the width)."""
    if isinstance(e, ir.Binary):
        return e.op in GPU_SHIFTS and not count_below_width(e.rhs)
    return isinstance(e, ir.Assign) and e.op in GPU_SHIFTS and not count_below_width(e.value)


def precedence(e: ir.Expr) -> int:
    if is_gpu_shift(e):
        return POSTFIX
    if isinstance(e, ir.Binary):
        return PRECEDENCE[e.op]
    if isinstance(e, (ir.Assign, ir.Conditional)):
        return 3
    if isinstance(e, ir.Cast) and (e.style == "c" or _written_as_c_cast(e)):
        return PREFIX
    if isinstance(e, ir.Construct) and not is_simple_type(_TOP_CV.sub("", e.type.strip())):
        return PREFIX
    if isinstance(e, ir.Unary):
        return POSTFIX if e.postfix else PREFIX
    if isinstance(e, (ir.Index, ir.Member, ir.Call, ir.IndirectCall, ir.Builtin)):
        return POSTFIX
    if isinstance(e, ir.Literal) and e.text.startswith("-"):
        return PREFIX
    return PRIMARY


def _needs_clarity(parent: str, child: ir.Expr) -> bool:
    """Parentheses gcc's -Wparentheses asks for, though precedence does not need them."""
    if parent in _BITWISE and isinstance(child, ir.Unary) and child.op == "!":
        return True
    if not isinstance(child, ir.Binary) or is_gpu_shift(child):
        return False
    if parent in _COMPARE and child.op in _COMPARE:
        return True
    if child.op == parent:
        return False
    if parent == "||" and child.op == "&&":
        return True
    if parent in _SHIFT and child.op in _ARITH:
        return True
    if parent in _BITWISE and (child.op in _ARITH or child.op in _COMPARE or child.op in _BITWISE or child.op in _SHIFT):
        return True
    if parent in _COMPARE and child.op in _COMPARE:
        return True
    return False


def declare(type_spelling: str, name: str) -> str:
    """A declarator: ``declare('float[16][17]', 's')`` is ``float s[16][17]``, and
    ``declare('float (*[8])[4]', 'p')`` is ``float (*p[8])[4]``."""
    group = declarator_group(type_spelling)
    if group is not None:
        return f"{type_spelling[:group]}{name}{type_spelling[group:]}"
    if type_spelling.endswith("]") and "[" in type_spelling:
        i = type_spelling.index("[")
        return f"{type_spelling[:i].rstrip()} {name}{type_spelling[i:]}"
    sep = "" if type_spelling.endswith(("*", "&")) else " "
    return f"{type_spelling}{sep}{name}"


def print_expr(e: ir.Expr, ctx: int = 0) -> str:
    text = _expr(e)
    return f"({text})" if precedence(e) < ctx else text


def _operand(child: ir.Expr, ctx: int, parent_op: str) -> str:
    text = _expr(child)
    if precedence(child) < ctx or _needs_clarity(parent_op, child):
        return f"({text})"
    return text


def _expr(e: ir.Expr) -> str:
    if isinstance(e, ir.Literal):
        return e.text
    if isinstance(e, ir.Name):
        return e.name
    if isinstance(e, ir.Builtin):
        if e.var == "warpSize":
            return "32"  # a constant of the CUDA model (lanes of the lowered warp collectives)
        return e.var if not e.dim else f"{e.var}.{e.dim}"
    if isinstance(e, ir.BuiltinVector):
        return e.var
    if is_gpu_shift(e):
        operands = (e.lhs, e.rhs) if isinstance(e, ir.Binary) else (e.target, e.value)
        return f"{GPU_SHIFTS[e.op]}({print_expr(operands[0], 2)}, {print_expr(operands[1], 2)})"
    if isinstance(e, ir.Binary):
        p = PRECEDENCE[e.op]
        sep = ", " if e.op == "," else f" {e.op} "
        return _operand(e.lhs, p, e.op) + sep + _operand(e.rhs, p + 1, e.op)
    if isinstance(e, ir.Assign):
        return f"{print_expr(e.target, 4)} {e.op} {print_expr(e.value, 3)}"
    if isinstance(e, ir.Conditional):
        return f"{print_expr(e.cond, 4)} ? {print_expr(e.then, 3)} : {print_expr(e.otherwise, 3)}"
    if isinstance(e, ir.Unary):
        if e.postfix:
            return print_expr(e.operand, POSTFIX) + e.op
        inner = print_expr(e.operand, PREFIX)
        if inner[:1] in ("+", "-", "&") and inner[:1] == e.op[-1:]:
            inner = f"({inner})"
        return e.op + inner
    if isinstance(e, ir.Call):
        return f"{e.func}({', '.join(print_expr(a, 2) for a in e.args)})"
    if isinstance(e, ir.IndirectCall):
        return f"{print_expr(e.callee, POSTFIX)}({', '.join(print_expr(a, 2) for a in e.args)})"
    if isinstance(e, ir.Index):
        return f"{print_expr(e.base, POSTFIX)}[{print_expr(e.index)}]"
    if isinstance(e, ir.Member):
        return f"{print_expr(e.base, POSTFIX)}{'->' if e.arrow else '.'}{e.member}"
    if isinstance(e, ir.Cast):
        if e.style == "c" or _written_as_c_cast(e):
            return f"({e.type}){print_expr(e.operand, PREFIX)}"
        if e.style == "functional":
            return f"{e.type}({print_expr(e.operand)})"
        return f"{e.style}_cast<{e.type}>({print_expr(e.operand)})"
    if isinstance(e, ir.Construct):
        return _construct(e)
    if isinstance(e, ir.InitList):
        return "{" + ", ".join(print_expr(a, 2) for a in e.elements) + "}"
    if isinstance(e, ir.SizeOf):
        if e.type is not None:
            return f"{e.op}({e.type})"
        return f"{e.op}({print_expr(e.operand)})"
    raise TypeError(f"cannot print {type(e).__name__}")


#: A type that functional notation ``T(x)`` / ``T{x}`` accepts: one (possibly qualified, possibly
#: templated) name.  ``unsigned int(n)``, ``const float4(p)`` and ``float *(q)`` are not C++.
_SIMPLE_TYPE = re.compile(r"(?:::)?\w+(?:<.*>)?(?:::\w+(?:<.*>)?)*")
_TOP_CV = re.compile(r"^(?:(?:const|volatile)\s+)+|(?:\s+(?:const|volatile))+$")


def is_simple_type(type_spelling: str) -> bool:
    return _SIMPLE_TYPE.fullmatch(type_spelling.strip()) is not None


def _written_as_c_cast(e: ir.Expr) -> bool:
    """A functional cast to a type functional notation cannot spell: printed ``(T)(x)``."""
    return isinstance(e, ir.Cast) and e.style == "functional" and not is_simple_type(e.type)


def _construct(e: ir.Construct) -> str:
    """``T(args)`` or ``T{args}``.  A top-level const/volatile is dropped (the value is a prvalue
    either way); a type functional notation still cannot spell takes its one argument as a cast."""
    args = ", ".join(print_expr(a, 2) for a in e.args)
    type_spelling = _TOP_CV.sub("", e.type.strip())
    if not is_simple_type(type_spelling):
        if len(e.args) == 1:
            return f"({type_spelling})({args})"
        if not e.args:  # `unsigned int()`, `T *()`: a value-initialized scalar
            return f"({type_spelling})0"
        raise CompileError([error(e.loc, f"constructing a '{e.type}' from {len(e.args)} values is not supported")])
    return f"{type_spelling}{{{args}}}" if e.braces else f"{type_spelling}({args})"


def print_condition(e: ir.Expr) -> str:
    text = print_expr(e)
    return f"({text})" if isinstance(e, ir.Assign) else text


@dataclass(frozen=True)
class LoopNames:
    """Identifiers the lowered loops introduce, chosen not to collide with the kernel's own."""

    block: tuple[str, str, str] = ("bx", "by", "bz")
    thread: tuple[str, str, str] = ("tx", "ty", "tz")
    thread_end: tuple[str, str, str] = ("tx_end", "ty_end", "tz_end")
    flat_thread: str = "thread"
    exit_label: str = "next_thread"
    block_end: str = "block_done"
    dynamic_shared: str = "dynamic_shared"
    chunk: str = "tx_chunk"
    teams: str = "teams"

    @staticmethod
    def avoiding(used: set[str]) -> "LoopNames":
        return LoopNames(
            block=tuple(fresh_name(n, used) for n in ("bx", "by", "bz")),
            thread=tuple(fresh_name(n, used) for n in ("tx", "ty", "tz")),
            thread_end=tuple(fresh_name(n, used) for n in ("tx_end", "ty_end", "tz_end")),
            flat_thread=fresh_name("thread", used),
            exit_label=fresh_name("next_thread", used),
            block_end=fresh_name("block_done", used),
            dynamic_shared=fresh_name("dynamic_shared", used),
            chunk=fresh_name("tx_chunk", used),
            teams=fresh_name("teams", used),
        )


@dataclass
class StmtPrinter:
    """Prints statements with 4-space indentation.  Inside a thread loop a ``return`` ends only
    the current thread: it prints as ``continue`` (or a jump to the loop's end when nested in a
    user loop or switch), after marking the thread exited when a later thread loop must skip it."""

    names: LoopNames = field(default_factory=LoopNames)
    lines: list[str] = field(default_factory=list)
    indent: int = 0
    in_thread_loop: bool = False
    breakable_depth: int = 0  # user loops/switches enclosing the current point in a thread loop
    exit_flag: str = ""

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text if text else "")

    def text(self) -> str:
        return "\n".join(self.lines)

    # ---------------------------------------------------------------------------- statements

    def stmt(self, s: ir.Stmt) -> None:
        method = getattr(self, "stmt_" + type(s).__name__)
        method(s)

    def body(self, s: ir.Stmt) -> None:
        """A braced body at one deeper indentation (braces always, for readability)."""
        self.emit_block_contents(ir.as_block(s))

    def emit_block_contents(self, block: ir.Block) -> None:
        self.indent += 1
        for child in block.stmts:
            self.stmt(child)
        self.indent -= 1

    def stmt_Block(self, s: ir.Block) -> None:
        self.emit("{")
        self.emit_block_contents(s)
        self.emit("}")

    def stmt_Empty(self, s: ir.Empty) -> None:
        self.emit(";")

    def stmt_VarDecl(self, s: ir.VarDecl) -> None:
        self.emit(var_decl_text(s) + ";")

    def stmt_ExprStmt(self, s: ir.ExprStmt) -> None:
        self.emit(print_expr(s.expr) + ";")

    def stmt_If(self, s: ir.If) -> None:
        self.emit(f"if ({print_condition(s.cond)}) {{")
        self.body(s.then)
        other = s.otherwise
        while isinstance(other, ir.If):
            self.emit(f"}} else if ({print_condition(other.cond)}) {{")
            self.body(other.then)
            other = other.otherwise
        if other is not None:
            self.emit("} else {")
            self.body(other)
        self.emit("}")

    def _loop_body(self, body: ir.Stmt) -> None:
        self.breakable_depth += 1
        self.body(body)
        self.breakable_depth -= 1

    def stmt_For(self, s: ir.For) -> None:
        init = for_init_text(s.init)
        cond = print_expr(s.cond) if s.cond is not None else ""
        step = print_expr(s.step) if s.step is not None else ""
        self.emit(f"for ({init}; {cond}; {step}) {{".replace("; ;", ";;").replace("( ;", "(;"))
        self._loop_body(s.body)
        self.emit("}")

    def stmt_While(self, s: ir.While) -> None:
        self.emit(f"while ({print_condition(s.cond)}) {{")
        self._loop_body(s.body)
        self.emit("}")

    def stmt_DoWhile(self, s: ir.DoWhile) -> None:
        self.emit("do {")
        self._loop_body(s.body)
        self.emit(f"}} while ({print_condition(s.cond)});")

    def stmt_Switch(self, s: ir.Switch) -> None:
        self.emit(f"switch ({print_expr(s.cond)}) {{")
        self.breakable_depth += 1
        for child in ir.as_block(s.body).stmts:
            self.stmt(child)
        self.breakable_depth -= 1
        self.emit("}")

    def stmt_Case(self, s: ir.Case) -> None:
        self.emit("default:" if s.value is None else f"case {print_expr(s.value)}:")
        self.indent += 1
        self.stmt(s.body)
        self.indent -= 1

    def stmt_Break(self, s: ir.Break) -> None:
        self.emit("break;")

    def stmt_Continue(self, s: ir.Continue) -> None:
        self.emit("continue;")

    def stmt_Return(self, s: ir.Return) -> None:
        if not self.in_thread_loop:
            self.emit("return;" if s.value is None else f"return {print_expr(s.value)};")
            return
        if self.exit_flag:
            self.emit(f"{self.exit_flag}[{self.names.flat_thread}] = true;")
        self.emit("continue;" if self.breakable_depth == 0 else f"goto {self.names.exit_label};")

    def stmt_NextThread(self, s: ir.NextThread) -> None:
        self.emit("continue;" if self.breakable_depth == 0 else f"goto {self.names.exit_label};")

    def stmt_Goto(self, s: ir.Goto) -> None:
        self.emit(f"goto {s.label};")

    def stmt_Label(self, s: ir.Label) -> None:
        self.emit(f"{s.name}:;")

    def stmt_Barrier(self, s: ir.Barrier) -> None:
        raise AssertionError("a barrier reached the emitter; the barrier lowering must remove it")


def var_decl_text(s: ir.VarDecl) -> str:
    text = declare(s.type, s.name)
    if s.init is not None:
        text += " = " + print_expr(s.init, 2)
    return text


def for_init_text(init: ir.Stmt | None) -> str:
    if init is None:
        return ""
    if isinstance(init, ir.ExprStmt):
        return print_expr(init.expr)
    if isinstance(init, ir.VarDecl):
        return var_decl_text(init)
    if isinstance(init, ir.Block) and all(isinstance(d, ir.VarDecl) for d in init.stmts):
        decls = list(init.stmts)
        base = decls[0].type
        parts = [var_decl_text(decls[0])]
        for d in decls[1:]:
            if d.type != base or "[" in base or base.endswith(("*", "&")):
                raise ValueError("for-init declarations of different types")
            parts.append(d.name + (" = " + print_expr(d.init, 2) if d.init is not None else ""))
        return ", ".join(parts)
    raise ValueError(f"unexpected for-init {type(init).__name__}")
