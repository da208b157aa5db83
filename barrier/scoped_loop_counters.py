"""Pass ``scoped-loop-counters``: a local used only as the counter of loops that set it first gets
one variable per loop, declared by the loop.

Requires: ``parallel-loops``; runs before the barrier analyses.  C-style GPU code declares its
counters once at the top (``int i;``) and reuses them for several loops.  One variable for all of
them ties the loops together: a counter that is the same in every thread in one loop
(``for (i = 2; i <= 512; i = 2 * i) { ...; __syncthreads(); }``) and per thread in another
(``for (i = first; i < last; i++)`` under ``if (tx == df - 1)``) is kept per thread everywhere, in
an array across every barrier, and a block-level loop's condition is computed by every thread.
Declared by each loop, the uniform one stays a block-level loop with its own counter.

A local ``v`` qualifies when

* it is an ordinary (``auto``) scalar, declared without an initializer or with one that has no
  effect (it is then never read: the declaration goes);
* every mention of it is inside a ``for`` whose init is ``v = e;`` with ``e`` not reading ``v``
  (its *loops*), and no such loop holds another;
* nothing takes its address or passes it bare to a call (a reference parameter would bind it),
  and nothing jumps into its loops (no ``goto`` in the kernel, no ``case`` label of a ``switch``
  outside the loop).

Every read of ``v`` then sees a value its own loop gave it, after the loop's init: the loops share
nothing through it, and each may declare its own.

Before::

    int i;
    for (i = 2; i <= 512; i = 2 * i) { if ((tx + 1) % i == 0) s[tx] += s[tx - i / 2]; __syncthreads(); }
    if (tx == last) for (i = first; i < n; i++) s[tx] += g[i];

After::

    for (int i = 2; i <= 512; i = 2 * i) { if ((tx + 1) % i == 0) s[tx] += s[tx - i / 2]; __syncthreads(); }
    if (tx == last) for (int i_2 = first; i_2 < n; i_2++) s[tx] += g[i_2];
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import fresh_name
from foundation import ir
from foundation.passes import PassContext, map_kernels, register
from foundation.scalar_types import scalar_kind


@register
@dataclass(frozen=True)
class ScopedLoopCounters:
    name: str = "scoped-loop-counters"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _kernel(k, ctx))


def _kernel(kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
    if any(isinstance(n, (ir.Goto, ir.Label, ir.FiberLoop)) for n in kernel.walk()):
        return kernel
    decls = {n.sym: n for n in kernel.walk() if isinstance(n, ir.VarDecl) and n.storage == "auto"
             and _scalar(n.type) and (n.init is None or _effect_free(n.init))}
    if not decls:
        return kernel
    loops = _counter_loops(kernel, set(decls))
    scoped = {sym: found for sym, found in loops.items() if _only_in(kernel, sym, found)}
    if not scoped:
        return kernel
    used_names = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
    used_names |= {s.name for s in ctx.symbols.values()}
    # Each loop's new counter: the first keeps the local's name and symbol where that clashes with
    # nothing the loop names otherwise.
    counters: dict[int, ir.VarDecl] = {}  # id(loop) -> the declaration its init becomes
    renames: dict[int, ir.Name] = {}  # id(loop) -> the name its mentions of the counter become
    for sym, found in scoped.items():
        decl = decls[sym]
        for k, loop in enumerate(found):
            if k == 0 and not _names_other_than(loop, decl.name, sym):
                name, new_sym = decl.name, sym
            else:
                name = fresh_name(f"{decl.name}_{k + 1}", used_names)
                new_sym = ctx.fresh_sym(name, decl.type, "local", decl.loc)
            init = loop.init.expr
            counters[id(loop)] = ir.VarDecl(new_sym, name, decl.type, init.value, loc=loop.init.loc)
            renames[id(loop)] = ir.Name(name, new_sym, loc=decl.loc)
    owner = {id(loop): sym for sym, found in scoped.items() for loop in found}
    removed = {id(decls[sym]) for sym in scoped}

    def scope(node: ir.Node, env: dict[int, ir.Name]) -> ir.Node:
        # Top-down over the original nodes (their ids name the loops): inside a counter loop,
        # the counter's mentions read the loop's own variable.
        if isinstance(node, ir.Name) and node.sym in env:
            return replace(env[node.sym], loc=node.loc)
        if isinstance(node, ir.For) and id(node) in counters:
            env = {**env, owner[id(node)]: renames[id(node)]}
            cond, step, body = (None if x is None else scope(x, env) for x in (node.cond, node.step, node.body))
            return replace(node, init=counters[id(node)], cond=cond, step=step, body=body)
        if isinstance(node, ir.Block) and any(id(s) in removed for s in node.stmts):
            node = replace(node, stmts=tuple(s for s in node.stmts if id(s) not in removed))
        return ir.map_children(node, lambda child: scope(child, env))

    return scope(kernel, {})


def _counter_loops(kernel: ir.Kernel, candidates: set[int]) -> dict[int, list[ir.For]]:
    """Per candidate, the ``for`` loops whose init is ``v = e;`` with ``e`` not reading ``v``."""
    found: dict[int, list[ir.For]] = {}
    for n in kernel.walk():
        if not isinstance(n, ir.For):
            continue
        a = n.init.expr if isinstance(n.init, ir.ExprStmt) else None
        if not (isinstance(a, ir.Assign) and a.op == "=" and isinstance(a.target, ir.Name) and a.target.sym in candidates):
            continue
        sym = a.target.sym
        if any(isinstance(m, ir.Name) and m.sym == sym for m in a.value.walk()):
            continue
        found.setdefault(sym, []).append(n)
    return found


def _only_in(kernel: ir.Kernel, sym: int, loops: list[ir.For]) -> bool:
    """Every mention of ``sym`` lies in one of ``loops``, none of which holds another, nothing
    takes its address or binds it to a reference, and no ``case`` label jumps into a loop."""
    inside = set()
    for loop in loops:
        below = [n for n in loop.walk() if n is not loop]
        if any(isinstance(n, ir.For) and any(n is other for other in loops) for n in below):
            return False
        if _case_from_outside(loop):
            return False
        inside.update(id(n) for n in loop.walk() if isinstance(n, ir.Name) and n.sym == sym)
        if any(_binds(n, sym) for n in below):
            return False
    mentions = [n for n in kernel.walk() if isinstance(n, ir.Name) and n.sym == sym]
    return bool(mentions) and all(id(n) in inside for n in mentions)


def _binds(n: ir.Node, sym: int) -> bool:
    """``n`` takes the address of ``sym``'s variable or may bind a reference to it."""
    operands: list[ir.Expr] = []
    if isinstance(n, ir.Unary) and n.op == "&":
        operands = [n.operand]
    elif isinstance(n, (ir.Call, ir.IndirectCall, ir.Construct)):
        operands = list(n.args)
    elif isinstance(n, ir.VarDecl) and "&" in n.type and n.init is not None:
        operands = [n.init]
    for e in operands:
        while isinstance(e, ir.Cast):
            e = e.operand
        if isinstance(e, ir.Name) and e.sym == sym:
            return True
    return False


def _case_from_outside(loop: ir.For) -> bool:
    """A ``case`` label in ``loop`` belongs to a ``switch`` outside it (a jump into the loop)."""
    cases = {id(n) for n in loop.walk() if isinstance(n, ir.Case)}
    for n in loop.walk():
        if isinstance(n, ir.Switch):
            cases -= {id(m) for m in n.walk() if isinstance(m, ir.Case)}
    return bool(cases)


def _names_other_than(loop: ir.For, name: str, sym: int) -> bool:
    """``loop`` names something else ``name`` (declaring the counter so would hide or clash)."""
    for n in loop.walk():
        if isinstance(n, ir.Name) and n.name == name and n.sym != sym:
            return True
        if isinstance(n, ir.VarDecl) and n.name == name:
            return True
    return False


def _scalar(type_: str) -> bool:
    """A non-const arithmetic or pointer type: a counter the loop assigns."""
    if "const" in type_.replace("*", " * ").split():
        return False
    return scalar_kind(type_) in ("integer", "floating", "pointer")


def _effect_free(e: ir.Expr) -> bool:
    return all(isinstance(n, (ir.Literal, ir.Name, ir.Binary, ir.Cast, ir.Builtin))
               or (isinstance(n, ir.Unary) and n.op in ("-", "+", "~", "!")) for n in e.walk())
