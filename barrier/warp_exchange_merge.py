"""Pass ``warp-exchange-merge``: warp collectives whose operands do not depend on each other's
results exchange at one warp sync point.

Requires: ``warp-collectives`` (each collective of the split lowering is its phase A, the
statements that write its operand to the exchange, then a :class:`~foundation.ir.WarpSync` whose
``phase_a`` counts them, then the statement that reads the result).  Guarantees: the program
computes what it computed; a collective's phase A may stand before an earlier collective's sync
point, and its own sync point is gone.

Every sync point splits the thread loop (a loop over the block's threads up to it, one after it,
each binding the per-thread values it touches), so a kernel of many shuffles is as many thread
loops: an exchange of N keys and their values in a bitonic network is 2N shuffles.  Where a
later collective's operand is computed from values that nothing between the two changes, it can
be written at the earlier one's sync point: all operands are written, one sync, all results read.

A collective's phase A moves back over the statements of its own statement list, past earlier
sync points of collectives, to the earliest of them such that

* its operand is pure arithmetic on the thread's own variables (locals whose address is never
  taken, whose name is not bound to a reference or passed to one, and parameters), builtins and
  literals: no memory read, no call of a function that is not pure;
* no statement it moves over assigns or declares what the operand reads, or contains a sync
  point of another kind (``__syncwarp``, a barrier), a ``return``, ``goto``, label, case label or
  a ``break``/``continue`` out of it (every lane that wrote the operand then reaches the
  collective, and no other: the lanes taking part are the same);
* the statements between its sync point and the sync point before it (the two thread loops that
  become one) touch no memory other than the thread's own variables (reading earlier
  collectives' results aside): lanes running them one after another then see what lanes running
  the two loops in turn see.

Its sync point is then dropped.  Stamps and exchange slots are per collective, and a lane takes
part when it carries the caller's own stamp, so a collective whose operand was written at an
earlier sync point reads the same lanes.

Before (``e1 = shfl_xor(k1, m); f1 = shfl_xor(v1, m);``, both operands the thread's own)::

    T shfl_xor_6_value = k1; shfl_xor_6[flat] = shfl_xor_6_value; WarpSync(2);
    e1 = moccuda::warp::shfl_xor(shfl_xor_6, ...);
    int shfl_xor_8_value = v1; shfl_xor_8[flat] = shfl_xor_8_value; WarpSync(2);
    f1 = moccuda::warp::shfl_xor(shfl_xor_8, ...);

After::

    T shfl_xor_6_value = k1; shfl_xor_6[flat] = shfl_xor_6_value;
    int shfl_xor_8_value = v1; shfl_xor_8[flat] = shfl_xor_8_value; WarpSync(4);
    e1 = moccuda::warp::shfl_xor(shfl_xor_6, ...);
    f1 = moccuda::warp::shfl_xor(shfl_xor_8, ...);
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.accesses import by_reference_arguments, is_pure_function
from barrier.liveness import assigned_symbols
from foundation import ir
from foundation.passes import PassContext, map_kernels, register

#: The runtime's reads of an exchange (phase B): they read only the exchange slots and stamps of
#: collectives whose sync point has passed, which no statement between two sync points writes.
EXCHANGE_READ = "moccuda::warp::"


@dataclass(frozen=True)
class _Facts:
    """What the merge asks of a statement it moves a phase A over."""

    #: the variables it assigns, takes the address of, passes to a reference, or declares
    changed: frozenset[int]
    #: it contains a sync point that is not a collective's own, or control that enters or leaves
    #: it other than by falling through
    stops: bool
    #: it touches memory other than the thread's own variables (or reads an exchange)
    memory: bool


class _Kernel:
    """One kernel's variables and the facts of its statements (each statement's found once)."""

    def __init__(self, kernel: ir.Kernel, grid: ir.GridLoop, ctx: PassContext):
        self.bodies = ctx.device_bodies
        block_level = {s.sym for s in grid.body.stmts if isinstance(s, ir.VarDecl)}
        locals_ = {n.sym for n in grid.body.walk() if isinstance(n, ir.VarDecl) and n.storage == "auto"
                   and "&" not in n.type and n.sym not in block_level}
        #: the thread's own variables: its locals and the kernel's parameters (the same in every
        #: thread, never assigned after ``parallel-loops``), less those other code may reach
        self.own = frozenset((locals_ | {p.sym for p in kernel.params}) - _escaping(grid.body, locals_, self.bodies))
        self.arrays = frozenset(n.sym for n in grid.body.walk() if isinstance(n, ir.VarDecl) and "[" in n.type)
        #: the block-level variables a phase A may read besides the thread's own (the arrival counter)
        self.block_level = frozenset(block_level)
        #: enumerators (values, not variables) and functions (named, not called: not memory)
        self.constants = frozenset(sym for sym, symbol in ctx.symbols.items() if symbol.kind == "constant")
        self.functions = frozenset(sym for sym, symbol in ctx.symbols.items() if symbol.kind == "function")
        self._facts: dict[int, tuple[ir.Stmt, _Facts]] = {}

    # ----------------------------------------------------------------------- expressions

    def pure_reads(self, e: ir.Expr) -> set[int] | None:
        """The thread's own variables ``e`` reads, when evaluating it reads nothing else and
        changes nothing; else None."""
        reads: set[int] = set()
        for n in e.walk():
            if isinstance(n, ir.Name):
                if n.sym in self.constants:
                    continue
                if n.sym not in self.own:
                    return None
                reads.add(n.sym)
            elif isinstance(n, ir.Index):
                if not (isinstance(n.base, ir.Name) and n.base.sym in self.arrays):
                    return None  # an element of the thread's own array (the base is checked as a name)
            elif isinstance(n, ir.Unary):
                if n.op in ("*", "&", "++", "--"):
                    return None
            elif isinstance(n, ir.Member):
                if n.arrow:
                    return None
            elif isinstance(n, ir.Call):
                if not is_pure_function(n.func):
                    return None
            elif not isinstance(n, (ir.Literal, ir.Builtin, ir.BuiltinVector, ir.Binary, ir.Conditional, ir.Cast,
                                    ir.SizeOf)):
                return None
        return reads

    def movable(self, phase_a: list[ir.Stmt]) -> set[int] | None:
        """The thread's own variables a collective's phase A reads, when it can be evaluated
        earlier: its operand is pure, and it stores only to the exchange (a block-level array, at
        an index and of a value read from the thread's own variables, builtins and the block's
        arrival counter); else None."""
        reads: set[int] = set()
        for s in phase_a:
            if isinstance(s, ir.VarDecl) and s.storage == "auto" and s.init is not None:
                found = self.pure_reads(s.init)
            elif (isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and s.expr.op == "="
                  and isinstance(s.expr.target, ir.Index) and isinstance(s.expr.target.base, ir.Name)
                  and s.expr.target.base.sym in self.block_level):
                found = self.slot_reads(s.expr.target.index, s.expr.value)
            else:
                return None
            if found is None:
                return None
            reads |= found
        return reads

    def slot_reads(self, *parts: ir.Expr) -> set[int] | None:
        """The thread's own variables an exchange store's index and value read (the arrival
        counter is the block's: the same for every lane that writes in one thread loop)."""
        reads: set[int] = set()
        for part in parts:
            for n in part.walk():
                if isinstance(n, ir.Name) and n.sym in self.block_level and n.sym not in self.arrays:
                    continue
                found = self.pure_reads(n) if isinstance(n, ir.Name) else None
                if isinstance(n, ir.Name):
                    if found is None:
                        return None
                    reads |= found
                elif not isinstance(n, (ir.Literal, ir.Builtin, ir.BuiltinVector, ir.Binary, ir.Cast)):
                    return None
        return reads

    # ------------------------------------------------------------------------ statements

    def facts(self, s: ir.Stmt) -> _Facts:
        found = self._facts.get(id(s))
        if found is None:  # the statement is kept with its facts: its id is not reused
            changed = assigned_symbols(s, self.bodies) | {n.sym for n in s.walk() if isinstance(n, ir.VarDecl)}
            found = self._facts[id(s)] = (s, _Facts(frozenset(changed), _stops(s), self.touches_memory(s)))
        return found[1]

    def touches_memory(self, node: ir.Node) -> bool:
        """Does ``node`` read or write memory other than the thread's own variables?  An
        exchange's read of its slots and stamps aside (its first two arguments, and the caller's
        own slot, ``xchg[slot]``, as the caller's value): its other arguments are looked at."""
        if isinstance(node, ir.Call) and node.func.startswith(EXCHANGE_READ):
            exchange = {n.sym for a in node.args[:2] for n in a.walk() if isinstance(n, ir.Name)}
            for a in node.args[2:]:
                if isinstance(a, ir.Index) and isinstance(a.base, ir.Name) and a.base.sym in exchange:
                    a = a.index
                if self.touches_memory(a):
                    return True
            return False
        if isinstance(node, ir.Name):  # a shared or global variable, or one other code may reach
            return node.sym not in self.own and node.sym not in self.constants and node.sym not in self.functions
        if isinstance(node, ir.Index):
            if not (isinstance(node.base, ir.Name) and node.base.sym in self.arrays and node.base.sym in self.own):
                return True
        elif isinstance(node, ir.Unary) and node.op == "*":
            return True
        elif isinstance(node, ir.Member) and node.arrow:
            return True
        elif isinstance(node, ir.Call) and not is_pure_function(node.func):
            return True
        elif isinstance(node, (ir.IndirectCall, ir.WarpCollective)):
            return True
        return any(self.touches_memory(c) for c in node.children())

    # ------------------------------------------------------------------------- the merge

    def merged(self, block: ir.Block) -> ir.Block:
        if not any(isinstance(s, ir.WarpSync) and s.phase_a is not None for s in block.stmts):
            return block
        out: list[ir.Stmt] = []
        for s in block.stmts:
            if not (isinstance(s, ir.WarpSync) and s.phase_a is not None and s.phase_a <= len(out)):
                out.append(s)
                continue
            start = len(out) - s.phase_a
            phase_a = out[start:]
            reads = self.movable(phase_a)
            target = None if reads is None else self.target(out[:start], reads)
            if target is None:
                out.append(s)
                continue
            del out[start:]
            sync = out[target]
            out[target:target + 1] = [*phase_a, replace(sync, phase_a=sync.phase_a + len(phase_a))]
        if len(out) == len(block.stmts):
            return block
        return replace(block, stmts=tuple(out))

    def target(self, before: list[ir.Stmt], reads: set[int]) -> int | None:
        """Where in ``before`` (the statements up to a collective's phase A) the earliest sync
        point of a collective is that the phase A can move to; None if there is none."""
        target = None
        closing = True  # among the statements of the thread loop the collective's sync point closes
        for i in range(len(before) - 1, -1, -1):
            s = before[i]
            if isinstance(s, ir.WarpSync) and s.phase_a is not None:
                target, closing = i, False
                continue
            facts = self.facts(s)
            if facts.stops or (closing and facts.memory):
                break
            if reads & facts.changed:
                break
        if closing:
            return None
        return target


def _stops(s: ir.Stmt) -> bool:
    """Does ``s`` contain a sync point (of any kind: a collective's own inside it are not at the
    level of the list), or control that enters or leaves it other than by falling through?"""
    if isinstance(s, (ir.Case, ir.Label)):
        return True
    for n in s.walk():
        if isinstance(n, (ir.WarpSync, ir.Barrier, ir.FiberBarrier, ir.Return, ir.Goto, ir.Label, ir.NextThread,
                          ir.WarpCollective, ir.Case)):
            return True
        if isinstance(n, ir.Call) and n.func.startswith("moccuda::cooperative::"):
            return True
    return _jumps_out(s, 0)


def _jumps_out(node: ir.Node, depth: int) -> bool:
    """A ``break`` or ``continue`` of ``node`` that leaves it (not of a loop or switch inside)."""
    if isinstance(node, (ir.Break, ir.Continue)):
        return depth == 0
    if isinstance(node, ir.Expr):
        return False
    inner = depth + 1 if isinstance(node, (ir.For, ir.While, ir.DoWhile, ir.Switch)) else depth
    return any(_jumps_out(c, inner) for c in node.children())


def _escaping(body: ir.Node, locals_: set[int], bodies: dict[str, ir.DeviceFunction]) -> set[int]:
    """The locals other code may reach: whose address is taken (``&v``, ``&v.m``, ``&v[i]``), that a
    reference is bound to, that are passed to a parameter that may be a reference or are the
    object of a member call, and arrays named other than by a subscript (decaying to a pointer)."""
    found: set[int] = set()
    subscripted: set[int] = set()

    def root(e: ir.Expr) -> int | None:
        while isinstance(e, ir.Index) or (isinstance(e, ir.Member) and not e.arrow):
            e = e.base
        return e.sym if isinstance(e, ir.Name) else None

    for n in body.walk():
        if isinstance(n, ir.Unary) and n.op == "&":
            found.add(root(n.operand))
        elif isinstance(n, ir.VarDecl) and "&" in n.type and n.init is not None:
            found.add(root(n.init))
        elif isinstance(n, (ir.Call, ir.IndirectCall)):
            found.update(by_reference_arguments(n, bodies))
            if isinstance(n, ir.IndirectCall) and isinstance(n.callee, ir.Member):
                found.add(root(n.callee.base) if not n.callee.arrow else None)
        if isinstance(n, ir.Index) and isinstance(n.base, ir.Name):
            subscripted.add(id(n.base))
    arrays = {n.sym for n in body.walk() if isinstance(n, ir.VarDecl) and "[" in n.type}
    found |= {n.sym for n in body.walk() if isinstance(n, ir.Name) and n.sym in arrays and id(n) not in subscripted}
    return {sym for sym in found if sym is not None}


@register
@dataclass(frozen=True)
class WarpExchangeMerge:
    name = "warp-exchange-merge"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or not any(isinstance(n, ir.WarpSync) and n.phase_a is not None for n in grid.walk()):
            return kernel
        facts = _Kernel(kernel, grid, ctx)
        body = ir.transform(grid.body, lambda n: facts.merged(n) if isinstance(n, ir.Block) else n)
        if body is grid.body:
            return kernel
        return ir.replace_grid_loop(kernel, replace(grid, body=body))
