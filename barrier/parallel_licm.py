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

**Under a guard.** A call that only some threads make (``if (i < n) out[i] = in[i] / sum(in, n);``,
how people usually write it) cannot be computed before the thread loop: no thread might make it,
and it could then fault or never end.  When such a call is uniform and reads only memory nothing
in the kernel writes (as above), and its function loops (work worth saving: straight-line helpers
are inlined and merged by g++), it is computed at most once per block instead: a
``moccuda::BlockOnce`` cell declared before the thread loop holds it, and the call becomes
``(cell.ready() ? cell.get() : cell.set(sum(in, n)))``, so the first thread of the block that
reaches it computes it, exactly when a GPU thread would have, and the others read it.  Reported as
``to: "block", on_first_use: true``.

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

from barrier.accesses import Access, is_pure_function
from barrier.kernel_facts import KernelFacts, kernel_facts
from barrier.liveness import fresh_name
from foundation.expression_printer import print_expr, var_decl_text
from foundation import ir
from foundation.passes import PassContext, map_kernels, register

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


def _calls_a_loop(s: ir.Stmt, ctx: PassContext) -> bool:
    """Does thread loop ``s`` call a ``__device__`` function that loops?"""
    return isinstance(s, ir.ThreadLoop) and any(
        isinstance(n, ir.Call) and not is_pure_function(n.func) and _loops(n.func, ctx) for n in s.body.walk())


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


def _loops(name: str, ctx: PassContext, seen: set[str] | None = None) -> bool:
    """Does ``__device__`` function ``name`` contain a loop (itself or in what it calls)?"""
    seen = set() if seen is None else seen
    fn = ctx.device_bodies.get(ir.callee_name(name))
    if fn is None or fn.name in seen:
        return False
    seen.add(fn.name)
    for n in fn.body.walk():
        if isinstance(n, (ir.For, ir.While, ir.DoWhile)):
            return True
        if isinstance(n, ir.Call) and _loops(n.func, ctx, seen):
            return True
    return False


@dataclass(frozen=True)
class OnceCall:
    """A uniform call computed at most once per block, in ``cell``."""

    call: ir.Call
    cell: ir.VarDecl


def find_once_calls(kernel: ir.Kernel, loop: ir.ThreadLoop, facts: KernelFacts, ctx: PassContext,
                    used_names: set[str]) -> list[OnceCall]:
    """The calls of ``loop`` worth computing once per block (module docstring, "Under a guard")."""
    writes: list[Access] | None = None
    found: dict[str, OnceCall] = {}
    for n in loop.body.walk():
        if not isinstance(n, ir.Call) or is_pure_function(n.func) or not _loops(n.func, ctx):
            continue
        text = print_expr(n)
        if text in found:
            continue
        if _level_of_expr(n, facts, {}) is None:
            continue
        accesses = facts.accesses(n)
        if any(a.kind != "read" for a in accesses):
            continue
        if writes is None and accesses:
            writes = kernel_writes(kernel, facts)
        if any(facts.may_alias(r.obj, w.obj) for r in accesses for w in writes or ()):
            continue
        name = fresh_name(ir.callee_name(n.func) + "_once", used_names)
        cell_type = f"moccuda::BlockOnce<decltype({text})>"
        sym = ctx.fresh_sym(name, cell_type, "local", n.loc)
        found[text] = OnceCall(n, ir.VarDecl(sym, name, cell_type, None, loc=n.loc))
    return list(found.values())


def _use_once(loop: ir.ThreadLoop, once: list[OnceCall]) -> ir.ThreadLoop:
    by_text = {print_expr(o.call): o.cell for o in once}

    def rewrite(n: ir.Node) -> ir.Node:
        if not isinstance(n, ir.Call):
            return n
        cell = by_text.get(print_expr(n))
        if cell is None:
            return n
        ref = ir.Name(cell.name, cell.sym, loc=n.loc)
        method = lambda m, *args: ir.IndirectCall(ir.Member(ref, m, loc=n.loc), args, loc=n.loc)  # noqa: E731
        return ir.Conditional(method("ready"), method("get"), method("set", n), loc=n.loc)

    return replace(loop, body=ir.transform(loop.body, rewrite))


@register
@dataclass(frozen=True)
class ParallelLicm:
    name = "parallel-licm"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or not any(_has_candidate(s) or _calls_a_loop(s, ctx) for s in grid.body.stmts):
            return kernel
        facts = kernel_facts(kernel, ctx)
        report = ctx.report(kernel)
        used_names = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl))}
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
            loop = replace(s, body=replace(s.body, stmts=body)) if moved else s
            once = find_once_calls(kernel, loop, facts, ctx, used_names) if _calls_a_loop(loop, ctx) else []
            for o in once:
                new_stmts.append(o.cell)
                report.hoisted.append({"line": o.call.loc.line, "text": print_expr(o.call), "to": BLOCK,
                                       "on_first_use": True})
            new_stmts.append(_use_once(loop, once) if once else loop)
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
