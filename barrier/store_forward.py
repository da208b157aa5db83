"""Pass ``store-forward``: forward stored values across barriers, then drop dead stores (Sec. IV-B).

Requires: ``parallel-loops``.  Works on the top-level statements of each thread loop.

**Forwarding.**  A store ``L = v;`` whose location ``L`` has affine indices (so it names the same
location wherever it is written, see :mod:`barrier.effects`) forwards its value to later reads
of ``L`` by the same thread, across barriers, while

* the thread itself writes nothing that may alias ``L`` in between (the statement that stores
  to it again may still read the forwarded value: its right-hand side is evaluated first), and
* no *other* thread may write ``L``'s location anywhere in the segments, delimited by top-level
  barriers, from the store's to the last forwarded read's (writes of the form ``L`` itself by
  other threads are at other locations when ``L`` is injective in the thread index).

The value goes to a new local (``T L_fwd = v; L = L_fwd;``) with ``L``'s element type, so
conversions happen exactly as the store made them.

**Dead stores.**  A store ``L = ...`` is dead when the same thread stores to ``L`` again later
(an unconditional top-level store, with no ``return`` between), and nobody may read ``L``'s
location in between: not the thread itself (no read of memory that may alias ``L``) and no other
thread (no conflicting read in the segments from the first store's to the second's).  A store to
a ``__shared__`` array that no one reads again before the block ends is dead too.

Before (paper Fig. 9, after ``barrier-elim``)::

    weights[ty][tx] = hidden[index];
    __syncthreads();
    weights[ty][tx] = weights[ty][tx] * node[ty];

After::

    float weights_fwd = hidden[index];
    __syncthreads();
    weights[ty][tx] = weights_fwd * node[ty];

Each rewrite replaces a memory read by a local or deletes a statement, so the rewriting stops.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.accesses import GLOBAL, PARAM, SHARED, Access
from barrier.conflicts import conflict
from barrier.kernel_facts import KernelFacts, kernel_facts
from barrier.liveness import fresh_name, without_unused_decls
from foundation import ir
from foundation.expression_printer import print_expr
from foundation.passes import PassContext, map_kernels, register


def element_type(facts: KernelFacts, obj: tuple[str, int]) -> str | None:
    """The C++ type of one element of a memory object, or None when it cannot be spelled."""
    if obj[0] == SHARED:
        t = facts.shared[obj[1]].type
        if "[" not in t:
            return None
        t = t[:t.index("[")].strip()
    elif obj[0] == PARAM:
        t = facts.params[obj[1]].type
        if "(*)" in t or t.count("*") != 1:
            return None
        t = t[:t.index("*")].strip()
    elif obj[0] == GLOBAL:
        t = facts.symbols[obj[1]].type
        if "[" not in t:
            return None
        t = t[:t.index("[")].strip()
    else:
        return None
    words = t.split()
    if "volatile" in words or "__restrict" in words or not words:
        return None
    return " ".join(w for w in words if w != "const")


def store_of(s: ir.Stmt, facts: KernelFacts) -> Access | None:
    """The write access of ``s`` when it is a plain store ``L = v;`` to a location with affine
    indices and no memory read in computing the address; else None."""
    if not (isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and s.expr.op == "="):
        return None
    target = s.expr.target
    if not isinstance(target, ir.Index) and not (isinstance(target, ir.Unary) and target.op == "*"):
        return None
    found = facts.target_accesses(target)
    if len(found) != 1:
        return None
    access = found[0]
    if access.kind != "write" or access.index is None or access.obj[0] not in (SHARED, PARAM, GLOBAL):
        return None
    return access


def replace_reads(node: ir.Node, target: ir.Expr, value: ir.Expr) -> ir.Node:
    """``node`` with every read of the location ``target`` replaced by ``value``."""
    if isinstance(node, ir.Expr) and node == target:
        return value
    if isinstance(node, ir.Assign) and node.target == target:
        new = replace_reads(node.value, target, value)
        return node if new is node.value else replace(node, value=new)
    if isinstance(node, ir.Unary) and node.op in ("++", "--", "&") and node.operand == target:
        return node
    return ir.map_children(node, lambda child: replace_reads(child, target, value))


def _has_store(s: ir.Stmt) -> bool:
    """Is ``s`` a thread loop with a top-level store to memory (what the pass starts from)?"""
    return isinstance(s, ir.ThreadLoop) and any(
        isinstance(t, ir.ExprStmt) and isinstance(t.expr, ir.Assign)
        and isinstance(t.expr.target, (ir.Index, ir.Unary)) for t in s.body.stmts)


def _top_barriers(stmts) -> list[int]:
    return [i for i, s in enumerate(stmts) if isinstance(s, ir.Barrier)]


def _window(stmts, first: int, last: int) -> range:
    """Statements from the top-level barrier before ``first`` to the one after ``last``."""
    marks = _top_barriers(stmts)
    start = max([m + 1 for m in marks if m < first], default=0)
    end = min([m for m in marks if m > last], default=len(stmts))
    return range(start, end)


def _writes(facts: KernelFacts, s: ir.Stmt, obj) -> list[Access]:
    return [a for a in facts.deep_accesses(s) if a.kind == "write" and facts.may_alias(a.obj, obj)]


def _reads(facts: KernelFacts, s: ir.Stmt, obj) -> list[Access]:
    return [a for a in facts.deep_accesses(s) if a.kind == "read" and facts.may_alias(a.obj, obj)]


@register
@dataclass(frozen=True)
class StoreForward:
    name = "store-forward"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or not any(_has_store(s) for s in grid.body.stmts):
            return kernel
        facts = kernel_facts(kernel, ctx)
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        forwarded = ir.map_thread_loops(kernel, lambda loop: self.thread_loop(loop, facts, ctx, used))
        return forwarded if forwarded is kernel else _without_unused_shared(forwarded)

    def thread_loop(self, loop: ir.ThreadLoop, facts: KernelFacts, ctx: PassContext, used: set[str]) -> ir.ThreadLoop:
        stmts = list(loop.body.stmts)
        while True:
            changed = self.forward_one(stmts, facts, ctx, used) or self.remove_dead_store(stmts, facts)
            if not changed:
                break
        if len(stmts) == len(loop.body.stmts) and all(a is b for a, b in zip(stmts, loop.body.stmts)):
            return loop
        return replace(loop, body=replace(loop.body, stmts=tuple(stmts)))

    # -------------------------------------------------------------------------- forwarding

    def forward_one(self, stmts: list[ir.Stmt], facts: KernelFacts, ctx: PassContext, used: set[str]) -> bool:
        for i, s in enumerate(stmts):
            store = store_of(s, facts)
            if store is None:
                continue
            elem = element_type(facts, store.obj)
            if elem is None:
                continue
            target = s.expr.target
            probe = ir.Name("\0probe", 0)
            rewritten = self._rewrite_reads(stmts, i, target, probe, store, facts)
            if not rewritten:
                continue
            last = max(rewritten)
            window = _window(stmts, i, last)
            if any(conflict(w, store, facts) for j in window for w in _writes(facts, stmts[j], store.obj)):
                continue
            name = fresh_name(f"{_base_name(target)}_fwd", used)
            sym = ctx.fresh_sym(name, elem, "local", s.loc)
            tmp = ir.Name(name, sym, loc=s.loc)
            for j, new in rewritten.items():
                stmts[j] = ir.transform(new, lambda n: tmp if n == probe else n)
            decl = ir.VarDecl(sym, name, elem, s.expr.value, loc=s.loc)
            stmts[i:i + 1] = [decl, ir.ExprStmt(ir.Assign("=", target, tmp, loc=s.expr.loc), loc=s.loc)]
            return True
        return False

    @staticmethod
    def _rewrite_reads(stmts, i: int, target: ir.Expr, probe: ir.Expr, store: Access,
                       facts: KernelFacts) -> dict[int, ir.Stmt]:
        """Indices of the later statements where reads of ``target`` can take the stored value."""
        found: dict[int, ir.Stmt] = {}
        for j in range(i + 1, len(stmts)):
            t = stmts[j]
            if isinstance(t, ir.Barrier):
                continue
            new = _expand_compound(t, target)
            new = replace_reads(new, target, probe)
            writes = _writes(facts, new, store.obj)
            own_store = (isinstance(new, ir.ExprStmt) and isinstance(new.expr, ir.Assign) and new.expr.op == "="
                         and len(writes) == 1 and writes[0].text == _text(new.expr.target))
            if writes and not own_store:
                break
            if new is not t:
                found[j] = new
            if writes:
                break
        return found

    # ------------------------------------------------------------------------- dead stores

    def remove_dead_store(self, stmts: list[ir.Stmt], facts: KernelFacts) -> bool:
        for i, s in enumerate(stmts):
            store = store_of(s, facts)
            if store is None:
                continue
            if self._dead(stmts, i, s.expr.target, store, facts):
                del stmts[i]
                return True
        return False

    @staticmethod
    def _dead(stmts, i: int, target: ir.Expr, store: Access, facts: KernelFacts) -> bool:
        overwrite = None
        for k in range(i + 1, len(stmts)):
            t = stmts[k]
            if (isinstance(t, ir.ExprStmt) and isinstance(t.expr, ir.Assign) and t.expr.op == "="
                    and t.expr.target == target and not _reads(facts, t, store.obj)):
                overwrite = k
                break
            if _reads(facts, t, store.obj) or ir.contains(t, ir.Return):
                return False
        if overwrite is None:
            if store.obj[0] != SHARED:
                return False
            last = len(stmts) - 1
        else:
            last = overwrite
        return not any(conflict(r, store, facts) for j in _window(stmts, i, last)
                       for r in _reads(facts, stmts[j], store.obj))


_COMPOUND = {"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}


def _without_unused_shared(kernel: ir.Kernel) -> ir.Kernel:
    """Drop the ``__shared__`` arrays that forwarding left without a use (every store to one was
    forwarded and removed): g++ would warn about them, and a reader would look for their use."""
    grid = ir.grid_loop(kernel)
    shared = {s.sym for s in grid.body.stmts if isinstance(s, ir.VarDecl) and s.storage == "shared"}
    stmts = without_unused_decls(grid.body.stmts, shared)
    if stmts is grid.body.stmts:
        return kernel
    return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=stmts)))


def _expand_compound(s: ir.Stmt, target: ir.Expr) -> ir.Stmt:
    """``L op= v;`` becomes ``L = L op v;`` (the same for a location whose address is pure), so
    the read of ``L`` it makes can be forwarded."""
    if not (isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and s.expr.op in _COMPOUND
            and s.expr.target == target):
        return s
    e = s.expr
    value = ir.Binary(e.op[:-1], e.target, e.value, loc=e.loc)
    return replace(s, expr=ir.Assign("=", e.target, value, loc=e.loc))


def _text(e: ir.Expr) -> str:
    return print_expr(e)


def _base_name(e: ir.Expr) -> str:
    while isinstance(e, (ir.Index, ir.Unary, ir.Cast)):
        e = e.base if isinstance(e, ir.Index) else e.operand
    return e.name if isinstance(e, ir.Name) else "stored"
