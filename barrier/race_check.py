"""Pass ``race-check``: warn of ``__shared__`` memory one thread stores and another thread of the
block reads with no synchronization between them.

Requires: ``barrier-split`` (the kernel is lowered: each :class:`~foundation.ir.ThreadLoop` runs
the block's threads one after another between two synchronization points, ``__syncthreads()``
or a warp's).  Guarantees: the program is unchanged; ``ctx.warnings`` gets one located warning
per pair of source lines that race.

In CUDA such a pair is a data race (undefined behaviour).  Code written for the lanes of a warp
running together (``s[lane] = v; w = s[lane ^ 1];``, or a tree reduction by the first warp on
shared memory that is not ``volatile``) often works on a GPU, but here the threads of a thread
loop run one after another: a thread reads what a lower thread stored and a higher one's old
value.  The barrier optimizations only merge regions without such conflicts, so a conflict inside
one thread loop comes from the source.  Only accesses of a known ``__shared__`` array with an
affine index on at least one side (:mod:`barrier.effects`) are judged, so the warning is not given
for accesses the analysis cannot place (a pointer of unknown target): the check is for what is
plainly written that way, not a proof of race freedom.  One warning per read, naming a store.
Stores that only other threads' stores meet (``if (x) flag = 1;`` by many threads) and atomics
are no concern.

Before and after: the same kernel; for::

    ThreadLoop { s[threadIdx.x] = a[threadIdx.x]; b[threadIdx.x] = s[threadIdx.x ^ 1]; }

the warning ``k.cu:7:35: warning: this reads __shared__ memory that another thread of the block
stores at line 6 with no __syncthreads() or __syncwarp() between them ...``.
"""

from __future__ import annotations

from dataclasses import dataclass

from barrier.barrier_interchange import thread_dependent_symbols, varies_with_thread
from barrier.accesses import SHARED, Access
from barrier.kernel_facts import KernelFacts, kernel_facts
from foundation import ir
from foundation.diagnostics import Diagnostic
from foundation.passes import PassContext, register


#: A guard the check does not understand (an access under it is not judged).
OPAQUE = None
#: ``bounds[d]``: the thread index ``d`` is below this under the guards (None: no bound known).
Bounds = tuple[int | None, int | None, int | None]


def races(kernel: ir.Kernel, facts: KernelFacts) -> list[tuple[Access, Access]]:
    """The (store, read) pairs of ``__shared__`` accesses in one thread loop of ``kernel`` that
    certainly race: one per read."""
    dependent = thread_dependent_symbols(kernel)
    found: list[tuple[Access, Access]] = []
    for loop in (n for n in kernel.walk() if isinstance(n, ir.ThreadLoop)):
        placed: list[tuple[Access, Bounds]] = []
        _guarded_accesses(loop.body, (None, None, None), facts, dependent, placed)
        stores = [(a, b) for a, b in placed if a.kind == "write"]
        for read, read_bounds in placed:
            if read.kind != "read":
                continue
            store = next((st for st, st_bounds in stores if _certain_race(st, st_bounds, read, read_bounds, facts)),
                         None)
            if store is not None:
                found.append((store, read))
    return found


def _guarded_accesses(s: ir.Stmt, bounds: Bounds, facts: KernelFacts, dependent: set[int],
                      out: list[tuple[Access, Bounds]]) -> None:
    """The ``__shared__`` accesses of ``s`` with the bounds its ``if`` guards put on the thread
    indices; accesses under a thread-dependent guard of another shape, or in loops and switches
    (whose variables the affine indices do not follow), are left out."""
    if isinstance(s, ir.Block):
        for c in s.stmts:
            _guarded_accesses(c, bounds, facts, dependent, out)
    elif isinstance(s, ir.If):
        out.extend((a, bounds) for a in facts.accesses(s.cond) if _placed(a))
        inner = _narrowed(bounds, s.cond, facts, dependent)
        if inner is not OPAQUE:
            _guarded_accesses(s.then, inner, facts, dependent, out)
        if s.otherwise is not None and not varies_with_thread(s.cond, dependent):
            _guarded_accesses(s.otherwise, bounds, facts, dependent, out)
    elif isinstance(s, (ir.ExprStmt, ir.VarDecl)):
        out.extend((a, bounds) for a in facts.accesses(s) if _placed(a))


def _narrowed(bounds: Bounds, cond: ir.Expr, facts: KernelFacts, dependent: set[int]) -> Bounds | None:
    """``bounds`` under ``cond`` (``t < K``, ``t <= K``, ``K > t``, their ``&&``; a condition that
    does not depend on the thread changes nothing); OPAQUE for other thread-dependent ones."""
    if not varies_with_thread(cond, dependent):
        return bounds
    if isinstance(cond, ir.Binary) and cond.op == "&&":
        left = _narrowed(bounds, cond.lhs, facts, dependent)
        return OPAQUE if left is OPAQUE else _narrowed(left, cond.rhs, facts, dependent)
    if not isinstance(cond, ir.Binary) or cond.op not in ("<", "<=", ">", ">="):
        return OPAQUE
    index, limit, op = (cond.lhs, cond.rhs, cond.op) if cond.op in ("<", "<=") else (cond.rhs, cond.lhs,
                                                                                    "<" if cond.op == ">" else "<=")
    dim, offset = _single_thread_index(facts.affine(index))
    value = facts.affine(limit)
    k = value.const.as_int() if value is not None and value.is_uniform() else None
    if dim is None or offset != 0 or k is None:
        return OPAQUE
    k += 1 if op == "<=" else 0
    narrowed = list(bounds)
    narrowed[dim] = k if narrowed[dim] is None else min(narrowed[dim], k)
    return tuple(narrowed)


def _single_thread_index(form) -> tuple[int | None, int | None]:
    """``(d, c)`` when ``form`` is ``threadIdx.d + c`` with ``c`` an integer, else ``(None, None)``."""
    if form is None:
        return None, None
    dims = [d for d in range(3) if not form.coef[d].is_zero()]
    if len(dims) != 1 or form.coef[dims[0]].as_int() != 1 or form.const.as_int() is None:
        return None, None
    return dims[0], form.const.as_int()


def _certain_race(store: Access, store_bounds: Bounds, read: Access, read_bounds: Bounds,
                  facts: KernelFacts) -> bool:
    """Does some thread certainly read the element another thread stores: one array, one
    subscript ``t + c`` in the same thread index on both sides, and a thread within the guards'
    bounds on either side (thread ``t2`` reads what thread ``t2 + d`` stores)?"""
    if store.obj != read.obj or store.index is None or read.index is None:
        return False
    if len(store.index) != 1 or len(read.index) != 1:
        return False
    (dim, c_store), (read_dim, c_read) = _single_thread_index(store.index[0]), _single_thread_index(read.index[0])
    if dim is None or dim != read_dim:
        return False
    d = c_read - c_store
    extent = facts.extents[dim]

    def below(bound: int | None, value: int) -> bool:
        limits = [x for x in (bound, extent) if x is not None]
        return all(value < x for x in limits)

    if d > 0:  # reader 0 meets the store of thread d
        return below(store_bounds[dim], d) and below(read_bounds[dim], 0)
    if d < 0:  # reader -d meets the store of thread 0
        return below(read_bounds[dim], -d) and below(store_bounds[dim], 0)
    return False


def _placed(a: Access) -> bool:
    """An element of a ``__shared__`` array, accessed by the expression itself (not by a call such
    as an atomic, whose accesses are not ordinary loads and stores)."""
    return a.obj[0] == SHARED and isinstance(a.expr, (ir.Index, ir.Unary, ir.Member))


def race_warning(store: Access, read: Access) -> Diagnostic:
    message = (f"this reads __shared__ memory that another thread of the block stores at line {store.expr.loc.line} "
               "with no __syncthreads() or __syncwarp() between them: a data race in CUDA, which cuda2cpu "
               "translates with the threads of a block running one after another (a thread sees what lower "
               "threads stored, not higher ones, unlike the lanes of a warp running together on a GPU); "
               "put a __syncwarp() or __syncthreads() between the store and the read")
    return Diagnostic("warning", read.expr.loc, message, (Diagnostic("note", store.expr.loc, "the store"),))


@register
@dataclass(frozen=True)
class RaceCheck:
    name = "race-check"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        for kernel in program.kernels:
            if not any(isinstance(n, ir.ThreadLoop) for n in kernel.walk()):
                continue
            facts = kernel_facts(kernel, ctx)
            ctx.warnings.extend(race_warning(store, read) for store, read in races(kernel, facts))
        return program
