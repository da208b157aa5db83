"""Pass ``barrier-motion``: move a barrier to where fewer values live across it.

Requires: ``parallel-loops``.  Works on barriers at the top level of a thread loop, moving each
within the run of simple statements (declarations and expression statements, no ``return``)
around it.  When the lowering splits the thread loop at a barrier, every variable declared before
it and used after it is kept in per-thread storage; moving the barrier over the code that computes
such values from fewer inputs keeps fewer of them.  A position is chosen only when it keeps
strictly fewer values (ties keep the barrier in place, moves stay as short as possible).

Soundness is the barrier test of :mod:`barrier.effects` applied to a barrier placed at the target
position: the statements the barrier moves over (``M``) change sides, so ``M``'s accesses must
not conflict, between two threads, with the accesses on the side they join (for a move up, the
region after the barrier; for a move down, the region before it), apart from ``M`` itself.

Before::

    int v = in[t];
    float w = v * 0.5f;
    int u = v + 3;
    __syncthreads();                 // keeps t, w, u
    out[t] = s[t ^ 1] + w + u;

After::

    int v = in[t];
    __syncthreads();                 // keeps t, v
    float w = v * 0.5f;
    int u = v + 3;
    out[t] = s[t ^ 1] + w + u;
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.conflicts import conflict
from barrier.effects import barrier_effects
from barrier.kernel_facts import KernelFacts, kernel_facts
from barrier.liveness import top_level_decls, used_symbols
from foundation import ir
from foundation.passes import KernelReport, PassContext, map_kernels, register


def _movable(s: ir.Stmt) -> bool:
    return isinstance(s, (ir.VarDecl, ir.ExprStmt)) and not ir.contains(s, ir.Return)


def kept_across(stmts: list[ir.Stmt], position: int) -> set[int]:
    """Symbols declared (at top level) before ``position`` and used at or after it."""
    declared = set(top_level_decls(stmts[:position]))
    used: set[int] = set()
    for s in stmts[position:]:
        used |= used_symbols(s)
    return declared & used


@register
@dataclass(frozen=True)
class BarrierMotion:
    name = "barrier-motion"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or not any(isinstance(s, ir.ThreadLoop) and any(isinstance(t, ir.Barrier) for t in s.body.stmts)
                                   for s in grid.body.stmts):
            return kernel
        facts = kernel_facts(kernel, ctx)
        report = ctx.report(kernel)
        return ir.map_thread_loops(kernel, lambda loop: self.thread_loop(loop, facts, ctx, report))

    def thread_loop(self, loop: ir.ThreadLoop, facts: KernelFacts, ctx: PassContext,
                    report: KernelReport) -> ir.ThreadLoop:
        stmts = list(loop.body.stmts)
        done: set[int] = set()
        while True:
            move = self.best_move(stmts, facts, done)
            if move is None:
                break
            p, r, before, after = move
            barrier = stmts.pop(p)
            stmts.insert(r, barrier)
            done.add(id(barrier))
            report.barriers.append({
                "line": barrier.loc.line, "column": barrier.loc.column, "action": "moved",
                "reason": f"moved {'up' if r < p else 'down'} over {abs(r - p)} statement(s) so fewer values "
                          f"live across it (kept: {_names(before, ctx)} -> {_names(after, ctx)})"})
        if len(stmts) == len(loop.body.stmts) and all(a is b for a, b in zip(stmts, loop.body.stmts)):
            return loop
        return replace(loop, body=replace(loop.body, stmts=tuple(stmts)))

    def best_move(self, stmts: list[ir.Stmt], facts: KernelFacts, done: set[int]):
        """``(p, r, kept now, kept then)``: move the barrier at ``stmts[p]`` to index ``r`` of the
        list without it; the first barrier worth moving, or None."""
        for p, b in enumerate(stmts):
            if not isinstance(b, ir.Barrier) or id(b) in done:
                continue
            without = stmts[:p] + stmts[p + 1:]
            lo, hi = p, p
            while lo > 0 and _movable(without[lo - 1]):
                lo -= 1
            while hi < len(without) and _movable(without[hi]):
                hi += 1
            current = kept_across(without, p)
            best = None
            for r in sorted(range(lo, hi + 1), key=lambda r: abs(r - p)):
                kept = kept_across(without, r)
                if len(kept) < len(current) and (best is None or len(kept) < len(best[1])):
                    if self.safe(without, b, p, r, facts):
                        best = (r, kept)
            if best is not None:
                return p, best[0], current, best[1]
        return None

    @staticmethod
    def safe(without: list[ir.Stmt], barrier: ir.Barrier, p: int, r: int, facts: KernelFacts) -> bool:
        """May the barrier (at ``p``) stand at ``r`` instead?  The statements it passes over must
        not conflict, between threads, with the accesses on the side they join."""
        moved = without[r:p] if r < p else without[p:r]
        placed = without[:r] + [barrier] + without[r:]
        loop = ir.ThreadLoop(ir.Block(tuple(placed)))
        (effects,) = [e for e in barrier_effects(loop, facts) if e.barrier is barrier]
        side = effects.after if r < p else effects.before
        moved_accesses = [a for s in moved for a in facts.deep_accesses(s)]
        others = [a for a in side if not any(a is m for m in moved_accesses)]
        return not any(conflict(m, o, facts) for m in moved_accesses for o in others)


def _names(syms: set[int], ctx: PassContext) -> str:
    return ", ".join(sorted(ctx.symbols[s].name for s in syms)) or "none"
