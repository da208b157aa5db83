"""Pass ``parallel-licm``: hoist thread-invariant work out of the thread loop (paper Sec. IV-C).

Requires: ``parallel-loops``.  A declaration ``T v = e;`` at the top level of a thread loop is
hoisted when

* ``v`` is never assigned, incremented or has its address taken, and is not a reference or an
  array;
* ``e`` is *uniform*: it reads no thread index, and its variables are kernel parameters, builtin
  sizes, or other hoisted declarations; with ``blockIdx`` it is block-invariant (hoisted to the
  grid loop's body, before the thread loop: ``to: "block"``), without it grid-invariant (hoisted
  before the grid loop, executed once per launch: ``to: "grid"``);
* every memory ``e`` reads (directly, or inside a called ``__device__`` function) may not be
  written anywhere in the kernel, by any thread of any block (aliasing as in
  :mod:`barrier.effects`), and ``e`` writes no memory and calls nothing of unknown effect;
* it is executed by every thread: it comes before any top-level statement that may ``return``
  (so hoisting never runs code that no thread would have run).

Only declarations whose initializer calls a function or reads memory are worth a hoist (plain
arithmetic is already hoisted by the C++ compiler); the uniform declarations they use move with
them.  Each hoisted declaration is reported as ``{"line", "text", "to"}``.

Before (paper Fig. 1)::

    GridLoop {
        ThreadLoop {
            int tid = blockIdx.x * blockDim.x + threadIdx.x;
            float s = sum(in, n);                // O(n) in every thread
            if (tid < n) out[tid] = in[tid] / s;
        }
    }

After::

    {
        float s = sum(in, n);                    // once per launch
        GridLoop {
            ThreadLoop {
                int tid = blockIdx.x * blockDim.x + threadIdx.x;
                if (tid < n) out[tid] = in[tid] / s;
            }
        }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.effects import Access, KernelFacts, is_pure_function, kernel_facts
from openmp_emit.printer import var_decl_text
from transpiler import ir
from transpiler.passes import PassContext, map_kernels, register

GRID, BLOCK = "grid", "block"


@dataclass(frozen=True)
class Hoist:
    """One declaration to move, and where to."""

    decl: ir.VarDecl
    level: str  # "grid" | "block"


def kernel_writes(kernel: ir.Kernel, facts: KernelFacts) -> list[Access]:
    grid = ir.grid_loop(kernel)
    return [a for a in facts.deep_accesses(grid.body) if a.kind == "write"]


def _level_of_expr(e: ir.Expr, facts: KernelFacts, levels: dict[int, str]) -> str | None:
    """The outermost level where ``e`` can be computed (ignoring memory), or None."""
    level = GRID
    for n in e.walk():
        if isinstance(n, (ir.Builtin, ir.BuiltinVector)):
            if n.var == "threadIdx":
                return None
            if n.var == "blockIdx":
                level = BLOCK
        elif isinstance(n, ir.Name):
            sym = n.sym
            if sym in levels:
                level = BLOCK if BLOCK in (level, levels[sym]) else GRID
                continue
            info = facts.symbols.get(sym)
            if not sym or info is None or sym in facts.mutable:
                return None
            if info.kind in ("param", "constant", "function"):
                continue
            if info.kind == "global":
                continue  # a read of memory: checked against the kernel's writes
            return None
        elif isinstance(n, (ir.Assign, ir.IndirectCall)):
            return None
        elif isinstance(n, ir.Unary) and n.op in ("++", "--"):
            return None
    return level


def _worth_hoisting(e: ir.Expr) -> bool:
    """Does ``e`` call a function or load from memory (what g++ would not hoist by itself)?"""
    for n in e.walk():
        if isinstance(n, ir.Call) and not is_pure_function(n.func):
            return True
        if isinstance(n, ir.Index) or (isinstance(n, ir.Unary) and n.op == "*"):
            return True
        if isinstance(n, ir.Member) and n.arrow:
            return True
    return False


def _has_candidate(s: ir.Stmt) -> bool:
    """Does thread loop ``s`` declare, at its top level, a value computed by a call or a load?"""
    return isinstance(s, ir.ThreadLoop) and any(
        isinstance(t, ir.VarDecl) and t.init is not None and _worth_hoisting(t.init) for t in s.body.stmts)


def find_hoists(kernel: ir.Kernel, loop: ir.ThreadLoop, facts: KernelFacts) -> list[Hoist]:
    """The declarations of ``loop`` to hoist, in source order, with their levels."""
    writes: list[Access] | None = None
    names_elsewhere: dict[str, set[int]] = {}
    for n in kernel.walk():
        if isinstance(n, (ir.Name, ir.VarDecl)):
            names_elsewhere.setdefault(n.name, set()).add(n.sym)
    levels: dict[int, str] = {}
    candidates: list[Hoist] = []
    for s in loop.body.stmts:
        if ir.contains(s, ir.Return):
            break
        if not isinstance(s, ir.VarDecl) or s.storage != "auto" or s.init is None:
            continue
        if s.sym in facts.mutable or "&" in s.type or "[" in s.type or isinstance(s.init, ir.InitList):
            continue
        if names_elsewhere.get(s.name, set()) - {s.sym}:
            continue  # another entity of the same name would be shadowed
        level = _level_of_expr(s.init, facts, levels)
        if level is None:
            continue
        accesses = facts.accesses(s)
        if any(a.kind == "write" for a in accesses):
            continue
        if writes is None and accesses:
            writes = kernel_writes(kernel, facts)
        if any(facts.may_alias(r.obj, w.obj) for r in accesses for w in writes or ()):
            continue
        levels[s.sym] = level
        candidates.append(Hoist(s, level))
    # Keep the worthwhile ones and what they use.
    by_sym = {h.decl.sym: h for h in candidates}
    keep: set[int] = set()
    stack = [h.decl.sym for h in candidates if _worth_hoisting(h.decl.init)]
    while stack:
        sym = stack.pop()
        if sym in keep:
            continue
        keep.add(sym)
        stack.extend(n.sym for n in by_sym[sym].decl.init.walk() if isinstance(n, ir.Name) and n.sym in by_sym)
    return [h for h in candidates if h.decl.sym in keep]


@register
@dataclass(frozen=True)
class ParallelLicm:
    name = "parallel-licm"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or not any(_has_candidate(s) for s in grid.body.stmts):
            return kernel
        facts = kernel_facts(kernel, ctx)
        report = ctx.report(kernel)
        grid_decls: list[ir.Stmt] = []
        new_stmts: list[ir.Stmt] = []
        for s in grid.body.stmts:
            if not isinstance(s, ir.ThreadLoop):
                new_stmts.append(s)
                continue
            hoists = find_hoists(kernel, s, facts)
            moved = {id(h.decl) for h in hoists}
            for h in hoists:
                (grid_decls if h.level == GRID else new_stmts).append(h.decl)
                report.hoisted.append({"line": h.decl.loc.line, "text": var_decl_text(h.decl), "to": h.level})
            body = tuple(st for st in s.body.stmts if id(st) not in moved)
            new_stmts.append(replace(s, body=replace(s.body, stmts=body)) if moved else s)
        if not grid_decls and len(new_stmts) == len(grid.body.stmts):
            return kernel
        new_grid = replace(grid, body=replace(grid.body, stmts=tuple(new_stmts)))
        kernel = ir.replace_grid_loop(kernel, new_grid)
        if not grid_decls:
            return kernel
        outer = kernel.body
        if isinstance(outer, ir.Block):
            return replace(kernel, body=replace(outer, stmts=outer.stmts[:-1] + tuple(grid_decls) + outer.stmts[-1:]))
        return replace(kernel, body=ir.Block(tuple(grid_decls) + (outer,), loc=outer.loc))
