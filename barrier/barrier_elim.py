"""Pass ``barrier-elim``: remove barriers that order nothing (paper Sec. IV-A).

Requires: ``parallel-loops`` (barriers still inside the thread loop).  Guarantees: every barrier
it removes had no pair of accesses across it that two *different* threads could make to one
location with at least one write (:func:`barrier.effects.cross_conflicts`): only reads, only
thread-private accesses, or disjoint memory.  A barrier with nothing at all between it and a
neighbouring barrier is the special case "subsumed by" that neighbour.  Removing a barrier widens
its neighbours' regions, so the effects are recomputed after each removal; barriers are tried in
source order and each step removes one, so the pass ends after at most as many steps as there
are barriers.  Every barrier gets a report entry: "eliminated" or "kept", with the reason.  A
barrier that some threads do not reach (:mod:`barrier.uniformity`: under a condition that
differs between threads) is never removed: CUDA forbids it, and the lowering is where that is
reported.

Before (paper Fig. 9, first barrier; ``node`` is never read until the next barrier)::

    ThreadLoop {
        if (tx == 0) node[ty] = input[index_in];
        __syncthreads();                         // before: write node[ty], read input[index_in]
        weights[ty][tx] = hidden[index];         // after:  write weights[ty][tx], read hidden[index]
        __syncthreads();
        weights[ty][tx] = weights[ty][tx] * node[ty];
        ...
    }

After::

    ThreadLoop {
        if (tx == 0) node[ty] = input[index_in];
        weights[ty][tx] = hidden[index];
        __syncthreads();                         // kept: write node[ty] / read node[ty]
        weights[ty][tx] = weights[ty][tx] * node[ty];
        ...
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier import uniformity
from barrier.conflicts import describe
from barrier.effects import BarrierEffects, barrier_effects, cross_conflicts
from barrier.kernel_facts import KernelFacts, kernel_facts
from barrier.uniformity import Divergence, Level
from foundation import ir
from foundation.passes import KernelReport, PassContext, map_kernels, register

#: Longest access list quoted in a reason.
_REASON_CHARS = 160


def remove_stmt(node: ir.Node, target: ir.Stmt) -> ir.Node:
    """``node`` without the statement ``target`` (found by identity; a lone body becomes empty)."""

    def visit(n: ir.Node) -> ir.Node:
        if n is target:
            return ir.Empty(loc=n.loc)
        if isinstance(n, ir.Block) and any(s is target for s in n.stmts):
            return replace(n, stmts=tuple(s for s in n.stmts if s is not target))
        return ir.map_children(n, visit)

    return visit(node)


def divergent_barriers(kernel: ir.Kernel, ctx: PassContext) -> dict[int, Divergence]:
    """Barriers (by id) that some threads of a block do not reach (:mod:`barrier.uniformity`):
    CUDA forbids it, so they are not removed, and the lowering reports them.  (A barrier the
    analysis only cannot prove reached by all may go when it orders nothing: without it, the
    threads compute the same whichever of them reach it.)"""
    found = uniformity.for_kernel(kernel, ctx)
    return {b: d for b, d in found.barriers.items() if d.level == Level.VARYING}


def divergent_reason(d: Divergence) -> str:
    line = f" (line {d.node.loc.line})" if d.node is not None and d.node.loc.line else ""
    source = "the thread index" if d.why.startswith("threadIdx") else d.why
    return f"under a condition that depends on {source}{line}: not every thread reaches it (an error in CUDA): " \
           "left for the lowering"


def _clip(text: str) -> str:
    return text if len(text) <= _REASON_CHARS else text[:_REASON_CHARS - 3] + "..."


def elimination_reason(e: BarrierEffects) -> str:
    if not e.before and e.previous:
        return f"subsumed by the barrier at line {e.previous[0].loc.line} (no memory access between them)"
    if not e.after and e.following:
        return f"subsumed by the barrier at line {e.following[0].loc.line} (no memory access between them)"
    if not e.before or not e.after:
        side = "before" if not e.before else "after"
        return f"no memory access {side} it in the parallel region"
    if all(a.kind == "read" for a in e.before + e.after):
        return "only reads on both sides (read-after-read needs no ordering)"
    shared = e.shared_effects
    if not shared:
        return _clip("every access is thread-private: " + describe(e.before + e.after))
    return _clip("no two threads touch one location across it (before: " + describe(e.before)
                 + "; after: " + describe(e.after) + ")")


def kept_reason(pairs) -> str:
    a, b = pairs[0]
    return _clip(f"threads conflict across it: {a} (line {a.loc.line}) before, {b} (line {b.loc.line}) after")


@register
@dataclass(frozen=True)
class BarrierElim:
    name = "barrier-elim"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        if ir.grid_loop(kernel) is None or not ir.contains(kernel.body, ir.Barrier):
            return kernel
        facts = kernel_facts(kernel, ctx)
        report = ctx.report(kernel)
        divergent = divergent_barriers(kernel, ctx)
        return ir.map_thread_loops(kernel, lambda loop: self.thread_loop(loop, facts, report, divergent))

    def thread_loop(self, loop: ir.ThreadLoop, facts: KernelFacts, report: KernelReport,
                    divergent: dict[int, Divergence]) -> ir.ThreadLoop:
        decided: dict[int, dict] = {}
        while True:
            effects = [(e, cross_conflicts(e, facts)) for e in barrier_effects(loop, facts)]
            removable = next((e for e, pairs in effects if not pairs and id(e.barrier) not in divergent), None)
            if removable is None:
                break
            b = removable.barrier
            decided[id(b)] = {"line": b.loc.line, "column": b.loc.column, "action": "eliminated",
                              "reason": elimination_reason(removable)}
            loop = remove_stmt(loop, b)
        for e, pairs in effects:
            b = e.barrier
            reason = kept_reason(pairs) if pairs else divergent_reason(divergent[id(b)])
            decided[id(b)] = {"line": b.loc.line, "column": b.loc.column, "action": "kept", "reason": reason}
        for entry in sorted(decided.values(), key=lambda d: (d["line"], d["column"])):
            report.barriers.append(entry)
        return loop
