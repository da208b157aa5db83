"""Pass ``uniform-kept``: a kept value that every thread assigns the same block-invariant value
becomes one variable of the block, assigned once before the thread loop.

Requires: ``guard-folding`` (thread loops have their final bounds).  ``barrier-split`` keeps a
variable that lives across a split in per-thread storage, ``v_per_thread[thread]``.  Where each
change of it is ``v = e;``, ``v op= e;`` or ``v++;`` at the top of a thread loop with ``e`` the
same for every thread (arithmetic on parameters, ``blockIdx``, ``blockDim``, ``gridDim``,
literals and block-level variables the loop does not change; no memory read, no call, no
division), every thread holds the same value at every point, so one variable of the block holds
it: the change runs once, just before the loop, and the loops read the variable itself (a
uniform loop counter across barriers, Rodinia backprop's ``for (i = 1; ...; i++)``, is one).  A read of per-thread storage in a
vectorized thread loop is a load per lane; a read of the block's variable is a broadcast that gcc
keeps in a register (Rodinia kmeans' ``c_clusters[cluster_base_index + j]`` was a gather of equal
addresses).

The value is the same in every thread that reads it, so the results are the same.  A variable
qualifies only when

* each of its changes is such a top-level statement that no earlier statement of its loop
  mentions ``v`` (a thread would otherwise read the value a previous thread just assigned), and
  nothing else changes it or takes its address;
* it is a scalar of arithmetic type, and no parameter, block-level declaration or other
  variable of the kernel has its name;
* every thread that reads it assigned it: the loops that assign it run every thread (no folded
  bounds), or every loop that mentions it has the same folded bounds, computed from parameters
  the kernel never assigns, builtins and literals (a thread outside them neither assigns nor
  reads it); no loop that mentions it returns or skips threads.  A loop's guard-free version for
  full blocks (``guard-folding``) must assign it the same way.

Before::

    int cluster_base_index_per_thread[1024];
    for (int i = 0; i < nclusters; i++) {
        ThreadLoop(kept cluster_base_index) { cluster_base_index = i * nfeatures; ans = 0.0; }
        ThreadLoop(kept cluster_base_index) { ... clusters[cluster_base_index + j] ... }
    }

After::

    int cluster_base_index;
    for (int i = 0; i < nclusters; i++) {
        cluster_base_index = i * nfeatures;
        ThreadLoop { ans = 0.0; }
        ThreadLoop { ... clusters[cluster_base_index + j] ... }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import assigned_symbols
from foundation import ir
from foundation.passes import PassContext, map_kernels, register
from foundation.scalar_types import scalar_kind

_ARITHMETIC_OPS = frozenset("+ - * << >> & | ^".split())
_ASSIGN_OPS = frozenset("= += -= *= <<= >>= &= |= ^=".split())


@register
@dataclass(frozen=True)
class UniformKept:
    name: str = "uniform-kept"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _kernel(k, ctx.symbols, ctx.device_bodies))


def _kernel(kernel: ir.Kernel, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction]) -> ir.Kernel:
    grid = ir.grid_loop(kernel)
    if grid is None:
        return kernel
    loops = [n for n in grid.body.walk() if isinstance(n, ir.ThreadLoop)]
    kept = {kv.sym: kv for loop in loops for kv in loop.kept}
    # Names the block-level declaration could hide from code after it.
    taken = {n.name for n in _block_level_decls(grid.body)} | {
        symbol.name for symbol in symbols.values() if symbol.kind == "param"}
    named = {}
    for n in grid.body.walk():
        if isinstance(n, ir.Name):
            named.setdefault(n.name, set()).add(n.sym)
    # Loops that are statements of a block: the assignment can go before them.
    in_blocks = {id(s) for b in grid.body.walk() if isinstance(b, ir.Block) for s in b.stmts
                 if isinstance(s, ir.ThreadLoop)}
    fixed_names = {sym for sym, symbol in symbols.items() if symbol.kind == "param"} - assigned_symbols(kernel, bodies)
    facts = _LoopFacts(loops, bodies)
    uniform = {sym: kv for sym, kv in kept.items()
               if _scalar(kv.type) and kv.name not in taken and named.get(kv.name, {sym}) == {sym}
               and _qualifies(sym, facts, in_blocks, fixed_names, symbols)}
    if not uniform:
        return kernel

    def rewrite(node: ir.Node) -> ir.Node:
        if not isinstance(node, ir.Block):
            return node
        stmts: list[ir.Stmt] = []
        for s in node.stmts:
            if isinstance(s, ir.ThreadLoop) and any(kv.sym in uniform for kv in s.kept):
                stmts.extend(t for t in s.body.stmts if _assigned_uniform(t) in uniform)
                s = replace(s, body=_without_assignments(s.body, uniform),
                            fast_body=None if s.fast_body is None else _without_assignments(s.fast_body, uniform),
                            kept=tuple(kv for kv in s.kept if kv.sym not in uniform))
            stmts.append(s)
        return replace(node, stmts=tuple(stmts))

    body = ir.transform(grid.body, rewrite)
    storage = {kv.storage for kv in uniform.values()}
    declarations = tuple(ir.VarDecl(sym, kv.name, _plain(kv.type), loc=kv.loc) for sym, kv in uniform.items())
    remaining = tuple(s for s in body.stmts if not (isinstance(s, ir.VarDecl) and s.name in storage))
    return ir.replace_grid_loop(kernel, replace(grid, body=replace(body, stmts=declarations + remaining)))


def _without_assignments(body: ir.Block, uniform: dict) -> ir.Block:
    return replace(body, stmts=tuple(t for t in body.stmts if _assigned_uniform(t) not in uniform))


def _block_level_decls(node: ir.Node):
    """Declarations outside the thread loops (block-level code)."""
    if isinstance(node, ir.ThreadLoop):
        return
    if isinstance(node, ir.VarDecl):
        yield node
    for child in node.children():
        yield from _block_level_decls(child)


def _scalar(type_: str) -> bool:
    return scalar_kind(type_) in ("integer", "floating")


def _plain(type_: str) -> str:
    return " ".join(w for w in type_.split() if w not in ("const", "volatile"))


def _assigned_uniform(stmt: ir.Stmt) -> int | None:
    """The variable ``stmt`` changes when it is ``v = e;``, ``v op= e;`` (no division) or
    ``v++;`` / ``v--;``."""
    if not isinstance(stmt, ir.ExprStmt):
        return None
    e = stmt.expr
    if isinstance(e, ir.Assign) and e.op in _ASSIGN_OPS and isinstance(e.target, ir.Name):
        return e.target.sym
    if isinstance(e, ir.Unary) and e.op in ("++", "--") and isinstance(e.operand, ir.Name):
        return e.operand.sym
    return None


def _assigned_value(stmt: ir.ExprStmt) -> ir.Expr:
    """What ``stmt`` (as :func:`_assigned_uniform` reads it) combines with the variable."""
    return stmt.expr.value if isinstance(stmt.expr, ir.Assign) else ir.Literal("1")


class _LoopFacts:
    """What the candidates ask of each thread loop, found once per loop (or per statement) and
    not once per candidate: a kernel with hundreds of split points has hundreds of loops and of
    kept values."""

    def __init__(self, loops: list[ir.ThreadLoop], bodies: dict[str, ir.DeviceFunction]):
        self.loops = loops
        self.bodies = bodies
        #: the loops whose body names each variable, in the order of ``loops``
        self.mentioning: dict[int, list[ir.ThreadLoop]] = {}
        for loop in loops:
            for sym in {n.sym for n in loop.body.walk() if isinstance(n, ir.Name)}:
                self.mentioning.setdefault(sym, []).append(loop)
        self._statement: dict[int, tuple[set[int], set[int]]] = {}
        self._loop: dict[int, tuple[set[int], set[int]]] = {}

    def statement(self, stmt: ir.Stmt) -> tuple[set[int], set[int]]:
        """The variables ``stmt`` may change and those it names."""
        found = self._statement.get(id(stmt))
        if found is None:
            found = self._statement[id(stmt)] = (
                assigned_symbols(stmt, self.bodies), {n.sym for n in stmt.walk() if isinstance(n, ir.Name)})
        return found

    def changed_and_declared(self, loop: ir.ThreadLoop) -> tuple[set[int], set[int]]:
        """The variables ``loop``'s body may change and those it declares."""
        found = self._loop.get(id(loop))
        if found is None:
            found = self._loop[id(loop)] = (
                assigned_symbols(loop.body, self.bodies),
                {n.sym for n in loop.body.walk() if isinstance(n, ir.VarDecl)})
        return found


def _qualifies(sym: int, facts: _LoopFacts, in_blocks: set[int], fixed_names: set[int],
               symbols: dict[int, ir.Symbol]) -> bool:
    mentioning = facts.mentioning.get(sym, [])
    assigning = []
    for loop in mentioning:
        if loop.marks_exit or loop.skip_exited or id(loop) not in in_blocks:
            return False
        kept_here = {kv.sym for kv in loop.kept}
        assignments = _uniform_assignments(sym, loop.body, loop, kept_here, symbols, facts)
        if assignments is None:
            return False
        if loop.fast_body is not None:  # the full-block version: the same assignments
            if _uniform_assignments(sym, loop.fast_body, loop, kept_here, symbols, facts) != assignments:
                return False
        if assignments:
            assigning.append(loop)
    if not assigning or any(loop.stride is not None for loop in mentioning):
        return False  # (a strided loop runs only some threads)
    if all(not loop.bounds for loop in assigning):
        return True  # every thread assigns it; any thread may read it
    bounds = assigning[0].bounds
    if not all(_fixed(b, fixed_names) for b in bounds):
        return False
    return all(loop.bounds == bounds for loop in mentioning)  # nodes compare without locations


def _uniform_assignments(sym: int, body: ir.Block, loop: ir.ThreadLoop, kept_here: set[int],
                         symbols: dict[int, ir.Symbol], facts: _LoopFacts) -> list[ir.Stmt] | None:
    """The top-level ``v = e;`` (``v += e;``, ``v++;``, ...) of ``body`` with ``e`` block-invariant,
    where they are the only changes of ``v`` and no statement before them mentions it; None where
    that is not so."""
    assignments: list[ir.Stmt] = []
    seen = False  # an earlier statement mentions the variable
    for stmt in body.stmts:
        if _assigned_uniform(stmt) == sym:
            if seen or not _block_invariant(_assigned_value(stmt), loop, kept_here, symbols, facts):
                return None
            assignments.append(stmt)
            continue
        changed, named = facts.statement(stmt)
        if sym in changed:  # f(v) with f(int &) too
            return None  # changed some other way: v /= e, &v, inside an expression or a condition
        seen = seen or sym in named
    return assignments


def _block_invariant(e: ir.Expr, loop: ir.ThreadLoop, kept_here: set[int], symbols: dict[int, ir.Symbol],
                     facts: _LoopFacts) -> bool:
    """The same in every thread of ``loop`` and computable before it: arithmetic on values the
    loop does not change, without memory reads, calls or a division that could fault."""
    changed, declared = facts.changed_and_declared(loop)
    for n in e.walk():
        if isinstance(n, ir.Name):
            symbol = symbols.get(n.sym)
            if (symbol is None or symbol.kind not in ("local", "param") or n.sym in changed or n.sym in declared
                    or n.sym in kept_here):
                return False
        elif isinstance(n, ir.Builtin):
            if n.var == "threadIdx":
                return False
        elif isinstance(n, ir.Binary):
            if n.op not in _ARITHMETIC_OPS:
                return False
        elif isinstance(n, ir.Unary):
            if n.op not in ("+", "-", "~"):
                return False
        elif not isinstance(n, (ir.Literal, ir.Cast)):
            return False
    return True


def _fixed(bound: ir.ThreadBound, fixed_names: set[int]) -> bool:
    """A bound computed from parameters the kernel never assigns, builtins and literals only: the
    same in every loop."""
    for e in (bound.first, bound.limit):
        for n in e.walk():
            if isinstance(n, ir.Name):
                if n.sym not in fixed_names:
                    return False
                continue
            if isinstance(n, ir.Builtin) and n.var == "threadIdx":
                return False
            if not isinstance(n, (ir.Literal, ir.Cast, ir.Builtin, ir.Binary, ir.Unary)):
                return False
    return True


