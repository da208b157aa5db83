"""Pass ``barrier-interchange``: remove every barrier by splitting thread loops and moving control
flow that contains barriers out of them (paper Sec. III-B, Fig. 7 and 8).

Requires: ``parallel-loops`` (and ``inline-device``, so barriers of called functions are in the
kernel).  Guarantees: no thread loop contains a barrier.  Each thread loop becomes a sequence of
block-level statements:

* a barrier at the top of a thread loop splits it into consecutive thread loops: all threads
  finish the first before any starts the second, which is the order ``__syncthreads()`` promises;
* a statement that contains a barrier deeper down (``for``, ``while``, ``do``, ``if``, a braced
  block) is surrounded by splits and runs at block level, once per block, with its body lowered
  the same way (the thread loop is interchanged inward).  CUDA requires every thread of a block to
  reach each barrier, so the construct's conditions are the same for all threads of the block:

  - a condition that reads only block-level values (parameters never assigned, ``blockIdx``,
    ``blockDim``, ``gridDim``, ``__shared__`` memory, block-level loop variables) is evaluated at
    block level, so ``for (int s = blockDim.x / 2; s > 0; s >>= 1)`` stays a plain ``for``;
  - any other condition is computed by the threads into a per-block helper (the paper's Fig. 8),
    and the block-level loop tests the helper;
  - an ``if`` around warp collectives only may differ between the warps of a block: its thread
    loops are guarded by the condition, recorded per thread where the branch can change what it
    reads, tested again in each loop where it cannot (``threadIdx.y == 0``, which
    ``guard-folding`` then makes the loops' bound);
  - before anything is lowered, :mod:`barrier.uniformity` checks that every barrier is reached
    by all threads of a block or by none: control that differs between threads (a condition
    computed from ``threadIdx`` or an atomic's result, through locals, calls and per-thread
    memory; a ``break`` some threads take) is a located error, undefined behaviour in CUDA that
    names ``--lowering=fallback``; control the analysis cannot decide (a load from a per-thread
    address, a call it cannot see into) is not lowered here (``--lowering=auto`` takes the
    fallback);
* ``break``/``continue`` of a moved loop, from inside a thread loop, set a per-block flag and end
  the thread's part of the loop; the block level then leaves the loop or skips to the next
  iteration.  A statement ``if (c) break;`` directly in the moved loop's body, ``c`` a
  block-level condition, runs at block level between the thread loops before and after it (every
  thread would take the same branch there): Rodinia hotspot's and pathfinder's
  ``if (i == iteration - 1) break;`` no longer puts a flag and a jump in the thread loop after it.

Values that cross the new thread-loop boundaries are handled by ``barrier-split``.

Before::

    ThreadLoop {
        int t = threadIdx.x;
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (t < s) sm[t] += sm[t + s];
            Barrier;
        }
        out[blockIdx.x] = sm[0];
    }

After::

    ThreadLoop { int t = threadIdx.x; }
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        ThreadLoop { if (t < s) sm[t] += sm[t + s]; }
    }
    ThreadLoop { out[blockIdx.x] = sm[0]; }
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from barrier import uniformity
from barrier.accesses import reads_memory_or_changes_state
from barrier.liveness import assigned_symbols, assigned_variable, fresh_name
from barrier.uniformity import Level
from foundation import ir
from foundation.diagnostics import CompileError, error
from foundation.integer_types import integer_kind
from foundation.passes import KernelReport, PassContext, map_kernels, register, split_unsupported

LOOPS = (ir.For, ir.While, ir.DoWhile)
SYNC_POINTS = (ir.Barrier, ir.WarpSync)


def synchronizes(node: ir.Node) -> bool:
    """Does ``node`` contain a barrier or a warp-scope synchronization point?"""
    return any(isinstance(n, SYNC_POINTS) for n in node.walk())


def warp_only(node: ir.Node) -> bool:
    """Does ``node`` synchronize only at warp scope?  Then the conditions around it need only be
    uniform per warp, and those that may not be uniform per block are predicated per thread."""
    return not ir.contains(node, ir.Barrier) and ir.contains(node, ir.WarpSync)


def guard_thread_loops(stmts: list[ir.Stmt], guard: ir.Expr) -> list[ir.Stmt]:
    """Only the threads meeting ``guard`` run the bodies of the thread loops in ``stmts``."""
    def wrap(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.ThreadLoop):
            return replace(n, body=ir.Block((ir.If(guard, n.body, loc=n.loc),), loc=n.loc))
        return n
    return [ir.transform(s, wrap) for s in stmts]


def per_thread(name: str, sym: int, loc) -> ir.Expr:
    """``name[flat thread id]``: this thread's element of a per-block array."""
    return ir.Index(ir.Name(name, sym, loc=loc), ir.flat_thread_index(loc), loc=loc)


def thread_dependent_symbols(kernel: ir.Kernel) -> set[int]:
    """Locals whose value is computed from ``threadIdx`` by arithmetic, written in the kernel
    (not through calls or memory), by a flow-insensitive fixpoint over every definition and
    assignment.  A syntactic heuristic for ``race-check``'s warnings only: whether barriers are
    reached by every thread, which the lowering's correctness rests on, is
    :mod:`barrier.uniformity`'s answer."""
    defs: list[tuple[int, ir.Expr]] = []
    for n in kernel.walk():
        if isinstance(n, ir.VarDecl) and n.init is not None:
            defs.append((n.sym, n.init))
        elif isinstance(n, ir.Assign) and assigned_variable(n) is not None:
            defs.append((assigned_variable(n), n.value))
    dependent: set[int] = set()
    changed = True
    while changed:
        changed = False
        for sym, value in defs:
            if sym not in dependent and varies_with_thread(value, dependent):
                dependent.add(sym)
                changed = True
    return dependent


def varies_with_thread(e: ir.Node, dependent: set[int]) -> bool:
    """Does ``e`` compute with the thread id (outside of memory addresses and calls)?"""
    if isinstance(e, ir.Builtin) and e.var == "threadIdx":
        return True
    if isinstance(e, ir.BuiltinVector) and e.var == "threadIdx":
        return True
    if isinstance(e, ir.Name):
        return e.sym in dependent
    if isinstance(e, (ir.Index, ir.Call, ir.IndirectCall)) or (isinstance(e, ir.Unary) and e.op == "*"):
        return False
    if isinstance(e, ir.Member) and e.arrow:
        return False
    return any(varies_with_thread(c, dependent) for c in e.children())


def _arithmetic(type_: str) -> bool:
    """An integer, floating or ``bool`` type, ``const`` or not: a value, not a way to memory."""
    plain = " ".join(w for w in type_.split() if w not in ("const", "volatile"))
    return integer_kind(plain) is not None or plain in ("bool", "float", "double")


def _construct_name(s: ir.Stmt) -> str:
    return {ir.For: "for", ir.While: "while", ir.DoWhile: "do/while", ir.If: "if", ir.Block: "block",
            ir.Switch: "switch"}.get(
        type(s), type(s).__name__)


@dataclass
class Lowering:
    """State of the interchange of one kernel."""

    kernel: ir.Kernel
    ctx: PassContext
    report: KernelReport
    used_names: set[str]
    #: locals declared inside thread loops (their values are per thread)
    thread_locals: set[int]
    #: parameters assigned somewhere (each thread has its own copy)
    assigned_params: set[int]
    block_decls: list[ir.Stmt] = field(default_factory=list)
    _aliased: set[int] | None = None

    def fresh(self, base: str, type_: str, loc) -> tuple[str, int]:
        name = fresh_name(base, self.used_names)
        return name, self.ctx.fresh_sym(name, type_, "local", loc)

    # ------------------------------------------------------------------------------- checks

    def block_level(self, e: ir.Expr | None, loop_var: int | None = None) -> bool:
        """Can ``e`` be evaluated once per block, outside the thread loops?  (``loop_var``: the
        block-level loop variable ``e`` may update, in a ``for`` step.)"""
        if e is None:
            return True
        for n in e.walk():
            if loop_var is not None and assigned_variable(n) == loop_var:
                continue
            if isinstance(n, (ir.Builtin, ir.BuiltinVector)) and n.var == "threadIdx":
                return False
            if isinstance(n, ir.Name) and (n.sym in self.thread_locals or n.sym in self.assigned_params):
                return False
            if isinstance(n, (ir.Assign, ir.IndirectCall)) or (isinstance(n, ir.Unary) and n.op in ("++", "--")):
                return False
            if isinstance(n, ir.Call) and n.sym:
                return False  # a call to a function of the unit may read builtins or per-thread state
        return True

    # ----------------------------------------------------------------------------- lowering

    def lower(self, stmts: tuple[ir.Stmt, ...], loop: "LoopFlags | None", via: tuple[str, ...],
              loc) -> list[ir.Stmt]:
        """Lower a statement list run by every thread into block-level statements."""
        out: list[ir.Stmt] = []
        segment: list[ir.Stmt] = []
        start = loc

        def flush(next_start):
            nonlocal segment, start
            if segment:
                body = tuple(_exit_loop(s, loop) if loop else s for s in segment)
                out.append(ir.ThreadLoop(ir.Block(body, loc=segment[0].loc), loc=start))
                if loop is not None and loop.per_thread:
                    pass  # the loop's per-thread flags (done, skip) guard its later thread loops
                elif loop is not None and loop.breaks_in(segment):
                    out.append(ir.If(ir.Name(loop.break_flag, loop.break_sym), ir.Break(), loc=start))
                if loop is not None and not loop.per_thread and loop.continues_in(segment):
                    out.append(ir.If(ir.Name(loop.continue_flag, loop.continue_sym),
                                     ir.Goto(loop.continue_label), loc=start))
            segment = []
            start = next_start

        for s in stmts:
            if isinstance(s, ir.Barrier):
                flush(s.loc)
                self.report.barriers.append({"line": s.loc.line, "column": s.loc.column, "action": "kept",
                                             "reason": _reason(via)})
            elif isinstance(s, ir.WarpSync):
                # A warp-scope split: the block's threads finish the loop before, hence so do the
                # warp's.  The counter then moves on: the next collective gets a new stamp.
                flush(s.loc)
                epoch = ir.Name(s.epoch, s.epoch_sym, loc=s.loc)
                out.append(ir.ExprStmt(ir.Unary("++", epoch, loc=s.loc), loc=s.loc))
                self.report.barriers.append({"line": s.loc.line, "column": s.loc.column, "action": "kept",
                                             "reason": "warp collective or __syncwarp: "
                                                       + _reason(via).replace("lowered by", "split at warp scope by", 1)})
            elif loop is not None and id(s) in loop.lifted:
                flush(s.loc)
                out.append(s)  # if (c) break; with c the same in every thread
                start = s.loc
            elif not synchronizes(s):
                segment.append(s)
            else:
                flush(s.loc)
                out.extend(self.construct(s, loop, via))
                start = s.loc
        flush(start)
        return out

    def construct(self, s: ir.Stmt, loop: "LoopFlags | None", via: tuple[str, ...]) -> list[ir.Stmt]:
        here = via + (f"{_construct_name(s)} (line {s.loc.line})",)
        if isinstance(s, ir.Block):
            return [ir.Block(tuple(self.lower(s.stmts, loop, via, s.loc)), loc=s.loc)]
        if isinstance(s, ir.If) and warp_only(s) and not self.block_level(s.cond):
            return self.predicated_if(s, loop, via + (f"if (line {s.loc.line}, predicated per thread)",))
        if isinstance(s, LOOPS) and warp_only(s):
            return self.warp_loop(s, here)
        if isinstance(s, ir.If):
            cond, pre = self.block_value(s.cond, "bool", "cond", s)
            then = ir.Block(tuple(self.lower(ir.as_block(s.then).stmts, loop, here, s.loc)), loc=s.loc)
            other = None
            if s.otherwise is not None:
                other = ir.Block(tuple(self.lower(ir.as_block(s.otherwise).stmts, loop, here, s.loc)), loc=s.loc)
            # `if constexpr` stays one when its condition does (a template's constant).
            return pre + [ir.If(cond, then, other, loc=s.loc, constexpr=s.constexpr and cond is s.cond and not pre)]
        if isinstance(s, LOOPS):
            return self.loop(s, here)
        if isinstance(s, ir.Switch):
            raise split_unsupported(s.loc, "__syncthreads() inside a switch")
        barrier = next(n for n in s.walk() if isinstance(n, SYNC_POINTS))
        raise split_unsupported(barrier.loc, f"__syncthreads() inside a {type(s).__name__}")

    # --------------------------------------------------------------- warp-scope constructs

    def per_thread_array(self, base: str, s: ir.Stmt) -> tuple[str, int]:
        name, sym = self.fresh(f"{base}_{s.loc.line}", "bool[1024]", s.loc)
        self.block_decls.append(ir.VarDecl(sym, name, "bool[1024]", loc=s.loc))
        return name, sym

    def predicated_if(self, s: ir.If, loop: "LoopFlags | None", via: tuple[str, ...]) -> list[ir.Stmt]:
        """An ``if`` around warp collectives whose condition may differ between threads: each thread
        records its condition in a per-thread predicate, and both branches run at block level with
        every thread loop guarded by it.  (CUDA requires the lanes a collective names to reach it;
        a condition uniform per warp, ``if (warp == 0)``, is then exactly right.)"""
        loc = s.loc
        out: list[ir.Stmt] = []
        if self.recomputable(s.cond, s):
            # The condition has the same value wherever the thread tests it inside the ``if``
            # (``threadIdx.y == 0``): each thread loop tests it itself, a guard that
            # ``guard-folding`` can make the loop's bound, where a recorded predicate would
            # have every thread of the block read its flag.
            taken = s.cond
        else:
            name, sym = self.per_thread_array("pred", s)
            taken = per_thread(name, sym, loc)
            record = ir.ExprStmt(ir.Assign("=", taken, s.cond, loc=loc), loc=loc)
            out.append(ir.ThreadLoop(ir.Block((record,), loc=loc), loc=loc))
        out += guard_thread_loops(self.lower(ir.as_block(s.then).stmts, loop, via, loc), taken)
        if s.otherwise is not None:
            other = self.lower(ir.as_block(s.otherwise).stmts, loop, via, loc)
            out += guard_thread_loops(other, ir.Unary("!", taken, loc=loc))
        return out

    def recomputable(self, cond: ir.Expr, s: ir.Stmt) -> bool:
        """Does ``cond`` give each thread the same value anywhere inside ``s`` as at its start?
        It reads no memory and calls only pure functions, and the variables it reads are
        arithmetic locals or parameters that ``s`` does not assign and that nothing in the
        kernel can change behind their names (through an address, a reference or a call)."""
        symbols = self.ctx.symbols
        changed = assigned_symbols(s, self.ctx.device_bodies) | self.aliased_symbols()
        for n in cond.walk():
            if reads_memory_or_changes_state(n):
                return False
            if isinstance(n, ir.Name):
                symbol = symbols.get(n.sym)
                if (symbol is None or symbol.kind not in ("local", "param") or n.sym in changed
                        or n.sym in self.assigned_params or not _arithmetic(symbol.type)):
                    return False
        return True

    def aliased_symbols(self) -> set[int]:
        """Variables some statement of the kernel may change other than by assigning them by
        name: their address is taken, a reference is bound to them, or a call receives them
        (a parameter of reference type)."""
        if self._aliased is None:
            aliased: set[int] = set()
            for n in self.kernel.walk():
                if isinstance(n, ir.Unary) and n.op == "&":
                    aliased |= {m.sym for m in n.operand.walk() if isinstance(m, ir.Name)}
                elif isinstance(n, ir.VarDecl) and n.storage != "auto":
                    aliased.add(n.sym)  # a static local: the block's threads share it
                elif isinstance(n, ir.VarDecl) and "&" in n.type and n.init is not None:
                    aliased |= {m.sym for m in n.init.walk() if isinstance(m, ir.Name)}
                elif isinstance(n, (ir.Call, ir.IndirectCall, ir.Construct)):
                    aliased |= {m.sym for arg in n.children() for m in arg.walk() if isinstance(m, ir.Name)}
            self._aliased = aliased
        return self._aliased

    def warp_loop(self, s: ir.Stmt, via: tuple[str, ...]) -> list[ir.Stmt]:
        """A loop around warp collectives.  With a block-level header and no ``break``/``continue``
        leaving it from a thread, it is an ordinary block-level loop.  Otherwise each thread keeps
        its own state in per-thread flags (``done``: it left the loop, ``skip``: it continued this
        iteration) and the block loops while any thread is still in: a warp whose lanes agree runs
        exactly its own iterations (a warp-strided ``for (i = warp; i < n; i += warps)``)."""
        jumps = _thread_level_jumps(ir.as_block(s.body))
        if not jumps and (isinstance(s, ir.While) and self.block_level(s.cond)
                          or isinstance(s, ir.For) and self.native_for_header(s)):
            return self.loop(s, via)
        loc = s.loc
        via = via[:-1] + (f"{via[-1]} with per-thread loop state",)
        flags = LoopFlags(per_thread=True)
        flags.break_flag, flags.break_sym = self.per_thread_array("done", s)
        if any(isinstance(j, ir.Continue) for j in jumps):
            flags.continue_flag, flags.continue_sym = self.per_thread_array("skip", s)
        done = per_thread(flags.break_flag, flags.break_sym, loc)
        active = ir.Unary("!", done, loc=loc)
        any_name, any_sym = self.fresh(f"any_{loc.line}", "bool", loc)
        self.block_decls.append(ir.VarDecl(any_sym, any_name, "bool", loc=loc))
        any_var = ir.Name(any_name, any_sym, loc=loc)

        def assign(target: ir.Expr, value: str) -> ir.Stmt:
            return ir.ExprStmt(ir.Assign("=", target, ir.Literal(value, loc=loc), loc=loc), loc=loc)

        init = [s.init] if isinstance(s, ir.For) and s.init is not None else []
        out: list[ir.Stmt] = [ir.ThreadLoop(ir.Block(tuple(init) + (assign(done, "false"),), loc=loc), loc=loc)]
        enter: list[ir.Stmt] = []
        if flags.continue_flag:
            enter.append(assign(per_thread(flags.continue_flag, flags.continue_sym, loc), "false"))
        cond = None if isinstance(s, ir.DoWhile) else s.cond
        if cond is None:
            enter.append(assign(any_var, "true"))
        else:
            enter.append(ir.If(cond, assign(any_var, "true"), assign(done, "true"), loc=loc))
        body: list[ir.Stmt] = [assign(any_var, "false"),
                               ir.ThreadLoop(ir.Block((ir.If(active, ir.Block(tuple(enter), loc=loc), loc=loc),),
                                                      loc=loc), loc=loc),
                               ir.If(ir.Unary("!", any_var, loc=loc), ir.Break(loc=loc), loc=loc)]
        guard = active
        if flags.continue_flag:
            guard = ir.Binary("&&", active, ir.Unary("!", per_thread(flags.continue_flag, flags.continue_sym, loc),
                                                     loc=loc), loc=loc)
        body += guard_thread_loops(self.lower(ir.as_block(s.body).stmts, flags, via, loc), guard)
        if isinstance(s, ir.For) and s.step is not None:
            step = ir.ExprStmt(s.step, loc=loc)
            body.append(ir.ThreadLoop(ir.Block((ir.If(active, step, loc=loc),), loc=loc), loc=loc))
        if isinstance(s, ir.DoWhile):
            leave = ir.If(ir.Unary("!", s.cond, loc=loc), assign(done, "true"), loc=loc)
            body.append(ir.ThreadLoop(ir.Block((ir.If(active, leave, loc=loc),), loc=loc), loc=loc))
        out.append(ir.While(ir.Literal("true", loc=loc), ir.Block(tuple(body), loc=loc), loc=loc))
        return out

    def native_for_header(self, s: ir.For) -> bool:
        """Can the header of ``for`` run at block level?  Its init declares the loop variable (or
        is absent), and every part reads only block-level values and the loop variable.  The loop
        variable must not be assigned in the body (then each thread would own a copy)."""
        var = s.init.sym if isinstance(s.init, ir.VarDecl) else None
        if s.init is not None and not (isinstance(s.init, ir.VarDecl) and s.init.storage == "auto"
                                       and self.block_level(s.init.init)):
            return False
        if var is not None and var in assigned_symbols(s.body, self.ctx.device_bodies):
            return False
        saved = set(self.thread_locals)
        self.thread_locals.discard(var)
        try:
            return self.block_level(s.cond) and self.block_level(s.step, var)
        finally:
            self.thread_locals = saved

    def block_value(self, e: ir.Expr, type_: str, base: str, s: ir.Stmt) -> tuple[ir.Expr, list[ir.Stmt]]:
        """``e`` as a block-level expression: itself, or a helper the threads compute it into."""
        if self.block_level(e):
            return e, []
        name, sym = self.fresh(f"{base}_{s.loc.line}", type_, s.loc)
        self.block_decls.append(ir.VarDecl(sym, name, type_, loc=s.loc))
        assign = ir.ExprStmt(ir.Assign("=", ir.Name(name, sym, loc=e.loc), e, loc=e.loc), loc=e.loc)
        # Reset first: when every thread of the block has returned, no thread computes the helper,
        # and a stale true (or an uninitialized value) would keep a block-level loop going forever.
        reset = ir.ExprStmt(ir.Assign("=", ir.Name(name, sym, loc=e.loc), ir.Literal("false"), loc=e.loc), loc=e.loc)
        return ir.Name(name, sym, loc=e.loc), [reset, ir.ThreadLoop(ir.Block((assign,), loc=e.loc), loc=e.loc)]

    def loop(self, s: ir.Stmt, via: tuple[str, ...]) -> list[ir.Stmt]:
        early = next((n for n in s.body.walk() if isinstance(n, ir.Return)), None)
        if early is not None:
            # The block-level loop would go on after every thread has returned (a while (true)
            # that only a return ends would never end): the fiber fallback lowers this.
            raise split_unsupported(early.loc, "a return inside a loop that contains __syncthreads()")
        native_for = isinstance(s, ir.For) and self.native_for_header(s)
        if native_for and isinstance(s.init, ir.VarDecl):
            self.thread_locals.discard(s.init.sym)  # a block-level loop variable
        flags = LoopFlags.for_loop(self, s)
        lowered = self.lower(ir.as_block(s.body).stmts, flags, via, s.loc)
        out: list[ir.Stmt] = []
        if flags.break_flag:
            out.append(ir.VarDecl(flags.break_sym, flags.break_flag, "bool", ir.Literal("false"), loc=s.loc))
        inner: list[ir.Stmt] = []
        if flags.continue_flag:
            inner.append(ir.ExprStmt(ir.Assign("=", ir.Name(flags.continue_flag, flags.continue_sym),
                                               ir.Literal("false")), loc=s.loc))
        inner.append(ir.Block(tuple(lowered), loc=s.loc))
        if flags.continue_label:
            inner.append(ir.Label(flags.continue_label, loc=s.loc))

        if isinstance(s, ir.For):
            if native_for:
                out.append(ir.For(s.init, s.cond, s.step, ir.Block(tuple(inner), loc=s.loc), loc=s.loc))
                return out
            # General form: the threads run the header parts, a helper carries the condition.
            init = [ir.ThreadLoop(ir.as_block(s.init), loc=s.loc)] if s.init is not None else []
            step = [ir.ThreadLoop(ir.Block((ir.ExprStmt(s.step, loc=s.loc),), loc=s.loc), loc=s.loc)] \
                if s.step is not None else []
            test: list[ir.Stmt] = []
            if s.cond is not None:
                cond, pre = self.block_value(s.cond, "bool", "loop_cond", s)
                test = pre + [ir.If(ir.Unary("!", cond), ir.Break(), loc=s.loc)]
            body = test + inner + step
            return init + out + [ir.While(ir.Literal("true"), ir.Block(tuple(body), loc=s.loc), loc=s.loc)]
        if isinstance(s, ir.While):
            cond, pre = self.block_value(s.cond, "bool", "loop_cond", s)
            if not pre:
                out.append(ir.While(cond, ir.Block(tuple(inner), loc=s.loc), loc=s.loc))
                return out
            body = pre + [ir.If(ir.Unary("!", cond), ir.Break(), loc=s.loc)] + inner
            out.append(ir.While(ir.Literal("true"), ir.Block(tuple(body), loc=s.loc), loc=s.loc))
            return out
        assert isinstance(s, ir.DoWhile)
        cond, pre = self.block_value(s.cond, "bool", "loop_cond", s)
        body = inner + pre + [ir.If(ir.Unary("!", cond), ir.Break(), loc=s.loc)]
        out.append(ir.While(ir.Literal("true"), ir.Block(tuple(body), loc=s.loc), loc=s.loc))
        return out


@dataclass
class LoopFlags:
    """Per-block flags for ``break``/``continue`` of a loop moved to block level."""

    break_flag: str = ""
    break_sym: int = 0
    continue_flag: str = ""
    continue_sym: int = 0
    continue_label: str = ""
    #: the flags are per-thread arrays (a loop around warp collectives), not per-block values
    per_thread: bool = False
    #: ids of the body's ``if (c) break;`` statements that run at block level (``c`` block-level)
    lifted: frozenset[int] = frozenset()

    @staticmethod
    def for_loop(lowering: Lowering, s: ir.Stmt) -> "LoopFlags":
        flags = LoopFlags()
        body = ir.as_block(s.body).stmts
        flags.lifted = frozenset(id(st) for st in body if _uniform_break(st, lowering))
        segments = [j for st in body if id(st) not in flags.lifted for j in _thread_level_jumps(st)]
        if any(isinstance(j, ir.Break) for j in segments):
            flags.break_flag, flags.break_sym = lowering.fresh(f"break_{s.loc.line}", "bool", s.loc)
        if any(isinstance(j, ir.Continue) for j in segments):
            flags.continue_flag, flags.continue_sym = lowering.fresh(f"continue_{s.loc.line}", "bool", s.loc)
            lowering.block_decls.append(ir.VarDecl(flags.continue_sym, flags.continue_flag, "bool",
                                                   ir.Literal("false"), loc=s.loc))
            flags.continue_label, _ = lowering.fresh(f"next_iteration_{s.loc.line}", "", s.loc)
        return flags

    def breaks_in(self, segment: list[ir.Stmt]) -> bool:
        return bool(self.break_flag) and any(isinstance(j, ir.Break) for j in _thread_level_jumps(ir.Block(tuple(segment))))

    def continues_in(self, segment: list[ir.Stmt]) -> bool:
        return bool(self.continue_flag) and any(
            isinstance(j, ir.Continue) for j in _thread_level_jumps(ir.Block(tuple(segment))))


def _uniform_break(s: ir.Stmt, lowering: Lowering) -> bool:
    """``s`` is ``if (c) break;`` with ``c`` a block-level condition: every thread of the block takes
    the same branch, so the test can run once, at block level."""
    if not isinstance(s, ir.If) or s.otherwise is not None or synchronizes(s):
        return False
    then = s.then
    if isinstance(then, ir.Block) and len(then.stmts) == 1:
        then = then.stmts[0]
    return isinstance(then, ir.Break) and lowering.block_level(s.cond)


def _thread_level_jumps(node: ir.Node, in_loop: bool = False, in_switch: bool = False) -> list[ir.Stmt]:
    """``break``/``continue`` statements of ``node`` that leave the enclosing (moved) loop."""
    if isinstance(node, ir.Break):
        return [] if in_loop or in_switch else [node]
    if isinstance(node, ir.Continue):
        return [] if in_loop else [node]
    if isinstance(node, ir.Expr):
        return []
    loop = in_loop or isinstance(node, LOOPS)
    switch = in_switch or isinstance(node, ir.Switch)
    found = []
    for c in node.children():
        found.extend(_thread_level_jumps(c, loop, switch))
    return found


def _exit_loop(s: ir.Stmt, flags: LoopFlags, in_loop: bool = False, in_switch: bool = False) -> ir.Stmt:
    """Rewrite the jumps of ``s`` out of the moved loop into flag assignments that end the thread's
    part of the loop."""
    if isinstance(s, ir.Break) and not (in_loop or in_switch):
        return ir.Block((_set(flags.break_flag, flags.break_sym, s.loc, flags.per_thread), ir.NextThread(loc=s.loc)),
                        loc=s.loc)
    if isinstance(s, ir.Continue) and not in_loop:
        return ir.Block((_set(flags.continue_flag, flags.continue_sym, s.loc, flags.per_thread),
                         ir.NextThread(loc=s.loc)), loc=s.loc)
    if isinstance(s, ir.Expr):
        return s
    loop = in_loop or isinstance(s, LOOPS)
    switch = in_switch or isinstance(s, ir.Switch)
    return ir.map_children(s, lambda c: _exit_loop(c, flags, loop, switch) if isinstance(c, ir.Stmt) else c)


def _set(flag: str, sym: int, loc, each_thread: bool = False) -> ir.Stmt:
    target = per_thread(flag, sym, loc) if each_thread else ir.Name(flag, sym, loc=loc)
    return ir.ExprStmt(ir.Assign("=", target, ir.Literal("true"), loc=loc), loc=loc)


def check_barriers_reached(kernel: ir.Kernel, ctx: PassContext) -> None:
    """Every barrier must be reached by all threads of a block or by none: the block-level control
    flow of this lowering assumes it.  Where :mod:`barrier.uniformity` finds a condition that
    differs between threads, that is a located error (undefined behaviour in CUDA); where it
    cannot decide, the split lowering is not used (``--lowering=auto`` takes the fallback)."""
    found = uniformity.for_kernel(kernel, ctx)
    barriers = sorted((n for n in kernel.walk() if isinstance(n, ir.Barrier)), key=lambda b: (b.loc.line, b.loc.column))
    for b in barriers:
        d = found.at(b)
        if d.level == Level.VARYING:
            raise CompileError([error(*_divergence_text(d, b))])
    for b in barriers:
        d = found.at(b)
        if d.level == Level.UNKNOWN:
            loc, what = _divergence_text(d, b, decided=False)
            raise split_unsupported(loc, what)


def _divergence_text(d, barrier: ir.Barrier, decided: bool = True):
    """Where and how to say that ``barrier`` is under control ``d`` that differs between threads
    (``decided``) or may differ (not decided: the text names what the split lowering cannot
    express)."""
    node = d.node if d.node is not None else barrier
    cond = getattr(node, "cond", None)
    loc = cond.loc if isinstance(cond, ir.Expr) and cond.loc.line else node.loc
    if not isinstance(node, (ir.If, ir.Switch, ir.Break, ir.Continue, ir.Return) + LOOPS):
        return node.loc, f"__syncthreads() where the control flow is not analysed ({d.why})"
    if isinstance(node, (ir.Break, ir.Continue, ir.Return)):
        keyword = {ir.Break: "break", ir.Continue: "continue", ir.Return: "return"}[type(node)]
        subject = f"this '{keyword}' is taken by some threads only (its condition depends on {d.why})"
        where = "the loop it leaves contains __syncthreads()"
    else:
        subject = f"the condition of this '{_construct_name(node)}' depends on {d.why}"
        where = "the construct contains __syncthreads()"
    if decided:
        return loc, (f"{subject}, but {where}: all threads of a block must reach the same barriers (undefined "
                     "behaviour in CUDA); --lowering=fallback runs the threads as fibers, where the threads "
                     "that skip a barrier do not hold the others up")
    if isinstance(node, (ir.Break, ir.Continue, ir.Return)):
        return loc, f"a '{keyword}' out of a loop with __syncthreads() that may be taken by some threads only ({d.why})"
    return loc, (f"__syncthreads() inside this '{_construct_name(node)}', whose condition may differ between the threads "
                 f"of a block ({d.why})")


def _reason(via: tuple[str, ...]) -> str:
    if not via:
        return "lowered by splitting the thread loop"
    return "lowered by splitting the thread loop, interchanged through " + ", ".join(via)


@register
@dataclass(frozen=True)
class BarrierInterchange:
    name = "barrier-interchange"
    required = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        assert grid is not None, "barrier-interchange runs after parallel-loops"
        if not synchronizes(grid):
            return kernel
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        params = {p.sym for p in kernel.params}
        thread_locals = set()
        for s in grid.body.stmts:
            if isinstance(s, ir.ThreadLoop):
                thread_locals |= {n.sym for n in s.walk() if isinstance(n, ir.VarDecl) and n.storage == "auto"}
        assigned = assigned_symbols(kernel.body, ctx.device_bodies) & params
        check_barriers_reached(kernel, ctx)
        lowering = Lowering(kernel, ctx, ctx.report(kernel), used, thread_locals, assigned)
        new_stmts: list[ir.Stmt] = []
        for s in grid.body.stmts:
            if isinstance(s, ir.ThreadLoop) and synchronizes(s):
                lowered = lowering.lower(s.body.stmts, None, (), s.loc)
                new_stmts.extend(lowered)
            else:
                new_stmts.append(s)
        stmts = tuple(lowering.block_decls) + tuple(new_stmts)
        return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=stmts)))
