"""Pass ``single-assignment``: a local assigned in straight-line code becomes one declaration per value.

Requires: ``parallel-loops``; runs before ``barrier-interchange``.  ``barrier-split`` recomputes
(``min-cut``) only *values*: locals declared with an initializer and never assigned.  GPU code
often declares first and assigns later (``float r; r = 1 / R;``) or clamps an index in place
(``int N = ty - 1; N = (N < lo) ? lo : N;``); each such local, though computed from parameters
and thread indices alone, was kept per thread in an array across every barrier after it, and
read back with a gather.  This pass gives each value of such a local its own declaration, so the
split can recompute what is cheap.

A local qualifies when

* it is an ordinary (``auto``) scalar: an arithmetic type or a pointer, not ``volatile``;
* every change to it is a statement ``v = e;`` or ``v op= e;`` directly in the block that
  declares it (no assignment, ``++``/``--`` or ``&v`` anywhere else, no bare ``v`` passed to a
  call, which could bind a reference);
* a declaration without initializer is not read before its first assignment;
* the block has no ``case`` labels and the kernel no ``goto``/labels (nothing jumps between the
  statements).

Every statement between two assignments then reads the value of the first: the earlier values get
fresh names (``N_v1``), the last keeps the local's own name and symbol.  ``v op= e`` becomes
``T v = v_v1 op (e)``, which converts as the compound assignment does.  The result is the same
C++ program up to names, evaluated in the same order.

Before::

    float r;
    int N = ty - 1;
    r = 1 / R;
    N = (N < lo) ? lo : N;
    __syncthreads();
    out[i] = s[N][tx] * r;

After::

    int N_v1 = ty - 1;
    float r = 1 / R;
    int N = (N_v1 < lo) ? lo : N_v1;
    __syncthreads();
    out[i] = s[N][tx] * r;       (barrier-split: N and r recomputed, nothing kept)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import fresh_name, used_symbols
from foundation import ir
from foundation.passes import PassContext, map_kernels, register
from foundation.scalar_types import scalar_kind

_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>",
             "&=": "&", "|=": "|", "^=": "^"}


@register
@dataclass(frozen=True)
class SingleAssignment:
    name: str = "single-assignment"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _kernel(k, ctx))


def _kernel(kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
    if any(isinstance(n, (ir.Goto, ir.Label)) for n in kernel.walk()):
        return kernel
    changes = _changes(kernel)
    used_names = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
    used_names |= {s.name for s in ctx.symbols.values()}

    def rewrite(node: ir.Node) -> ir.Node:
        if not isinstance(node, ir.Block):
            return node
        return _renamed_block(node, changes, used_names, ctx)

    return ir.transform(kernel, rewrite)


def _changes(kernel: ir.Kernel) -> dict[int, list[ir.Node]]:
    """Every node that changes (or may change) a variable, by variable: assignments, ``++``/``--``,
    ``&v``, and a bare ``v`` passed to a call or constructor (a reference parameter may bind it)."""
    found: dict[int, list[ir.Node]] = {}
    for n in kernel.walk():
        targets: list[ir.Expr] = []
        if isinstance(n, ir.Assign):
            targets = [n.target]
        elif isinstance(n, ir.Unary) and n.op in ("++", "--", "&"):
            targets = [n.operand]
        elif isinstance(n, (ir.Call, ir.IndirectCall, ir.Construct)):
            targets = list(n.args)
        elif isinstance(n, ir.VarDecl) and "&" in n.type and n.init is not None:
            targets = [n.init]
        for target in targets:
            while isinstance(target, (ir.Member, ir.Cast)) and not getattr(target, "arrow", False):
                target = target.base if isinstance(target, ir.Member) else target.operand
            if isinstance(target, ir.Name) and target.sym:
                found.setdefault(target.sym, []).append(n)
    return found


def _assignment_of(stmt: ir.Stmt, sym: int) -> ir.Assign | None:
    """``stmt`` when it is the statement ``v = e;`` or ``v op= e;`` for the variable ``sym``."""
    if not isinstance(stmt, ir.ExprStmt) or not isinstance(stmt.expr, ir.Assign):
        return None
    a = stmt.expr
    if not isinstance(a.target, ir.Name) or a.target.sym != sym:
        return None
    return a if a.op == "=" or a.op in _COMPOUND else None


def _candidates(block: ir.Block, changes: dict[int, list[ir.Node]]) -> dict[int, int]:
    """The block's qualifying locals: symbol -> index of its declaration in ``block.stmts``."""
    if any(isinstance(s, ir.Case) for s in block.stmts):
        return {}
    found: dict[int, int] = {}
    for i, s in enumerate(block.stmts):
        if not isinstance(s, ir.VarDecl) or s.storage != "auto" or scalar_kind(s.type) is None:
            continue
        nodes = changes.get(s.sym, [])
        if not nodes:
            continue
        at_top = [j for j, t in enumerate(block.stmts) if j > i and _assignment_of(t, s.sym) is not None]
        if len(at_top) != len(nodes) or any(block.stmts[j].expr not in nodes for j in at_top):
            continue
        if s.init is None:
            first = at_top[0]
            between = block.stmts[i + 1:first] + (block.stmts[first].expr.value,)
            if block.stmts[first].expr.op != "=" or any(s.sym in used_symbols(t) for t in between):
                continue
        found[s.sym] = i
    return found


def _renamed_block(block: ir.Block, changes: dict[int, list[ir.Node]], used_names: set[str],
                   ctx: PassContext) -> ir.Block:
    candidates = _candidates(block, changes)
    if not candidates:
        return block
    stmts = list(block.stmts)
    for sym, decl_at in candidates.items():
        stmts = _renamed(stmts, decl_at, sym, used_names, ctx)
    return replace(block, stmts=tuple(s for s in stmts if s is not None))


def _renamed(stmts: list[ir.Stmt | None], decl_at: int, sym: int, used_names: set[str],
             ctx: PassContext) -> list[ir.Stmt | None]:
    """``stmts`` with each value of ``sym`` declared on its own (a removed statement is None, so
    the other candidates' positions stay)."""
    decl = stmts[decl_at]
    assert isinstance(decl, ir.VarDecl)
    at = [j for j in range(decl_at + 1, len(stmts)) if stmts[j] is not None and _assignment_of(stmts[j], sym)]
    type_ = decl.type  # each value's type (a const local is never assigned, so it is no candidate)
    out = list(stmts)
    current: ir.Name | None = None  # the value reads see until the next assignment
    versions = [decl_at] + at
    for k, j in enumerate(versions):
        last = k == len(versions) - 1
        if k == 0 and decl.init is None:
            out[j] = None  # never read before the first assignment (a candidate's condition)
            continue
        if last:
            name, new_sym = decl.name, sym
        else:
            name = fresh_name(f"{decl.name}_v{k + 1}", used_names)
            new_sym = ctx.fresh_sym(name, type_, "local", decl.loc)
        if k == 0:
            init = decl.init
        else:
            a = stmts[j].expr
            value = _reads_renamed(a.value, sym, current)
            init = value if a.op == "=" else ir.Binary(_COMPOUND[a.op], current, value, loc=a.loc)
        out[j] = ir.VarDecl(new_sym, name, type_, init, loc=decl.loc if k == 0 else stmts[j].loc)
        current = ir.Name(name, new_sym, loc=decl.loc)
        if last:
            break
        for m in range(j + 1, versions[k + 1]):
            if out[m] is not None:
                out[m] = _reads_renamed(out[m], sym, current)
    return out


def _reads_renamed(node: ir.Node, sym: int, to: ir.Name | None) -> ir.Node:
    if to is None or to.sym == sym:
        return node

    def rename(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Name) and n.sym == sym:
            return replace(to, loc=n.loc)
        return n

    return ir.transform(node, rename)
