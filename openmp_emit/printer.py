"""The statement printer: IR statements to C++ text (expressions print through
:mod:`foundation.expression_printer`, which analyses use too).

The lowered loop nodes (:class:`~foundation.ir.GridLoop`, :class:`~foundation.ir.ThreadLoop`)
print as the OpenMP block loop and the serial thread loop; the names they introduce come from a
:class:`LoopNames` chosen to avoid every identifier of the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from barrier.liveness import fresh_name
from foundation import ir
from foundation.expression_printer import for_init_text, print_condition, print_expr, var_decl_text


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
    thread_begin: tuple[str, str, str] = ("tx_begin", "ty_begin", "tz_begin")
    thread_counter: tuple[str, str, str] = ("tx_int", "ty_int", "tz_int")
    thread_step: tuple[str, str, str] = ("tx_step", "ty_step", "tz_step")
    thread_first: tuple[str, str, str] = ("tx_first", "ty_first", "tz_first")

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
            thread_begin=tuple(fresh_name(n, used) for n in ("tx_begin", "ty_begin", "tz_begin")),
            thread_counter=tuple(fresh_name(n, used) for n in ("tx_int", "ty_int", "tz_int")),
            thread_step=tuple(fresh_name(n, used) for n in ("tx_step", "ty_step", "tz_step")),
            thread_first=tuple(fresh_name(n, used) for n in ("tx_first", "ty_first", "tz_first")),
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
        self.emit(f"if {'constexpr ' if s.constexpr else ''}({print_condition(s.cond)}) {{")
        self.body(s.then)
        other = s.otherwise
        while isinstance(other, ir.If):
            self.emit(f"}} else if {'constexpr ' if other.constexpr else ''}({print_condition(other.cond)}) {{")
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

    def stmt_SimdReduction(self, s: ir.SimdReduction) -> None:
        self.emit(f"#pragma omp simd reduction({s.op}:{s.variable.name})")
        self.stmt_For(s.loop)

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
