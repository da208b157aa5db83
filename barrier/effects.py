"""Memory effects of barriers: what a ``__syncthreads()`` orders, as data (paper Sec. III-A).

A barrier means nothing but an ordering of the memory accesses of *different* threads of a block.
Its effects are the union of the accesses of the code before it, back to the previous barrier or
the start of the parallel region (the thread loop), and of the code after it, up to the next
barrier or the end of the region.  "Before" and "after" follow structured control flow: the
analysis builds a small control-flow graph of the thread loop's body (``if``, loops with their
back edges, ``switch``, ``break``/``continue``/``return``) and collects the accesses on every path
that does not cross another barrier.

Requires: kernels in parallel-loop form (``parallel-loops``).  Produces: data only
(:class:`BarrierEffects`); transformations live in ``barrier_elim``, ``barrier_motion``,
``store_forward`` and ``parallel_licm``.  The analysis is split where a reader would look for
each part:

* :mod:`barrier.affine_forms`: index values, affine in the thread indices;
* :mod:`barrier.accesses`: memory objects, :class:`~barrier.accesses.Access`, which calls are pure;
* :mod:`barrier.access_collection`: the accesses an expression makes, and where pointers point;
* :mod:`barrier.kernel_facts`: what is known of a kernel (uniform values, extents, aliasing);
* :mod:`barrier.conflicts`: can two threads' accesses meet (and the text of reasons);
* here: the control flow of a thread loop and each barrier's accesses before and after it.

Example::

    ThreadLoop {                                   before(b1) = {write s[tx], read a[tx]}
        s[threadIdx.x] = a[threadIdx.x];           after(b1)  = {read s[tx + 1], write b[tx]}
        __syncthreads();            // b1          conflict: write s[tx] / read s[tx + 1]
        b[threadIdx.x] = s[threadIdx.x + 1];       (thread t+1 writes what thread t reads)
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from barrier.accesses import Access
from barrier.conflicts import conflict
from barrier.kernel_facts import KernelFacts
from foundation import ir


@dataclass
class _Node:
    accesses: list[Access]
    barrier: ir.Barrier | None = None
    succ: list[int] = field(default_factory=list)
    pred: list[int] = field(default_factory=list)
    stmt: ir.Node | None = None


class FlowGraph:
    """A control-flow graph of a thread loop's body: one node per simple statement, condition,
    loop step and barrier; ``entry`` and ``exit`` are the parallel region's start and end."""

    def __init__(self, body: ir.Stmt, facts: KernelFacts) -> None:
        self.facts = facts
        self.nodes: list[_Node] = []
        self.barrier_node: dict[int, int] = {}
        self.exit = self._new([])
        self._switches: list[list[tuple[int, bool]]] = []
        self.entry = self._new([])
        self._edge(self.entry, self._build(body, self.exit, None, None))

    def _new(self, accesses: list[Access], barrier: ir.Barrier | None = None, stmt=None) -> int:
        self.nodes.append(_Node(accesses, barrier, stmt=stmt))
        return len(self.nodes) - 1

    def _edge(self, a: int, b: int) -> None:
        self.nodes[a].succ.append(b)
        self.nodes[b].pred.append(a)

    def _simple(self, node: ir.Node | None, nxt: int, stmt=None) -> int:
        accesses = self.facts.accesses(node) if node is not None else []
        n = self._new(accesses, stmt=stmt if stmt is not None else node)
        self._edge(n, nxt)
        return n

    def _build(self, s: ir.Stmt | None, nxt: int, brk: int | None, cont: int | None) -> int:
        if s is None or isinstance(s, ir.Empty):
            return nxt
        if isinstance(s, ir.Block):
            entry = nxt
            for child in reversed(s.stmts):
                entry = self._build(child, entry, brk, cont)
            return entry
        if isinstance(s, ir.Barrier):
            n = self._new([], s, stmt=s)
            self.barrier_node[id(s)] = n
            self._edge(n, nxt)
            return n
        if isinstance(s, (ir.ExprStmt, ir.VarDecl)):
            return self._simple(s, nxt)
        if isinstance(s, ir.Return):
            return self._simple(s, self.exit)
        if isinstance(s, ir.Break):
            return brk if brk is not None else self.exit
        if isinstance(s, ir.Continue):
            return cont if cont is not None else self.exit
        if isinstance(s, ir.If):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            self._edge(cond, self._build(s.then, nxt, brk, cont))
            self._edge(cond, self._build(s.otherwise, nxt, brk, cont) if s.otherwise is not None else nxt)
            return cond
        if isinstance(s, ir.While):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            self._edge(cond, self._build(s.body, cond, nxt, cond))
            self._edge(cond, nxt)
            return cond
        if isinstance(s, ir.DoWhile):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            body = self._build(s.body, cond, nxt, cond)
            self._edge(cond, body)
            self._edge(cond, nxt)
            return body
        if isinstance(s, ir.For):
            cond = self._new(self.facts.accesses(s.cond) if s.cond is not None else [], stmt=s)
            step = self._simple(s.step, cond, stmt=s)
            self._edge(cond, self._build(s.body, step, nxt, step))
            if s.cond is not None:
                self._edge(cond, nxt)
            return self._build(s.init, cond, brk, cont) if s.init is not None else cond
        if isinstance(s, ir.Switch):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            self._switches.append([])
            self._build(s.body, nxt, nxt, cont)
            cases = self._switches.pop()
            for entry, _ in cases:
                self._edge(cond, entry)
            if not any(is_default for _, is_default in cases):
                self._edge(cond, nxt)
            return cond
        if isinstance(s, ir.Case):
            entry = self._build(s.body, nxt, brk, cont)
            label = self._new([], stmt=s)
            self._edge(label, entry)
            if self._switches:
                self._switches[-1].append((label, s.value is None))
            return label
        if isinstance(s, ir.ThreadLoop):
            return self._build(s.body, nxt, brk, cont)
        # Unknown statement kinds: their accesses, conservatively, in one node.
        n = self._new(self.facts.deep_accesses(s), stmt=s)
        self._edge(n, nxt)
        return n

    def region(self, start: int, forward: bool) -> tuple[list[Access], list[ir.Barrier]]:
        """The accesses on every path from node ``start`` (exclusive) that crosses no barrier,
        in one direction, and the barriers that end those paths."""
        seen: set[int] = set()
        stack = list(self.nodes[start].succ if forward else self.nodes[start].pred)
        accesses: list[Access] = []
        met: list[ir.Barrier] = []
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            node = self.nodes[n]
            if node.barrier is not None:
                met.append(node.barrier)
                continue
            accesses.extend(node.accesses)
            stack.extend(node.succ if forward else node.pred)
        return accesses, met


@dataclass(frozen=True)
class BarrierEffects:
    """The memory effects of one barrier: the accesses before and after it (see the module
    docstring), the neighbouring barriers that bound them, and the accesses no other thread can
    touch (``private``), which do not count against the barrier."""

    barrier: ir.Barrier
    before: tuple[Access, ...]
    after: tuple[Access, ...]
    previous: tuple[ir.Barrier, ...]
    following: tuple[ir.Barrier, ...]
    facts: KernelFacts = field(compare=False, repr=False, default=None)

    @cached_property
    def private(self) -> tuple[Access, ...]:
        """Accesses that conflict with no access of another thread on either side."""
        union = self.before + self.after
        return tuple(a for a in _dedupe(union) if not any(conflict(a, o, self.facts) for o in union))

    @property
    def shared_effects(self) -> tuple[Access, ...]:
        """Reads and writes that matter: all accesses on both sides but the thread-private ones."""
        return tuple(a for a in _dedupe(self.before + self.after) if a not in self.private)


def _dedupe(accesses) -> list[Access]:
    seen = set()
    out = []
    for a in accesses:
        key = (a.kind, a.obj, a.index, id(a.expr), a.note)
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def barriers_of(loop: ir.ThreadLoop) -> list[ir.Barrier]:
    return [n for n in loop.body.walk() if isinstance(n, ir.Barrier)]


def barrier_effects(loop: ir.ThreadLoop, facts: KernelFacts) -> list[BarrierEffects]:
    """The effects of every barrier in ``loop``, in source order."""
    graph = FlowGraph(loop.body, facts)
    result = []
    for b in barriers_of(loop):
        node = graph.barrier_node[id(b)]
        before, prev = graph.region(node, forward=False)
        after, nxt = graph.region(node, forward=True)
        before, after = _dedupe(before), _dedupe(after)
        result.append(BarrierEffects(b, tuple(before), tuple(after), tuple(prev), tuple(nxt), facts))
    return result


def cross_conflicts(effects: BarrierEffects, facts: KernelFacts) -> list[tuple[Access, Access]]:
    """Pairs (before, after) of accesses that two different threads may make to one location,
    at least one a write: the orderings the barrier enforces."""
    pairs = []
    for a in effects.before:
        for b in effects.after:
            if conflict(a, b, facts):
                pairs.append((a, b))
    return pairs
