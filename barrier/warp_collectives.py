"""Pass ``warp-collectives``: make every warp collective an explicit exchange around a warp-scope
synchronization point, so that the barrier lowering handles warps as it handles blocks.

Requires: ``parallel-loops`` and ``inline-device`` (collectives of called functions are in the
kernel).  Guarantees: no :class:`~foundation.ir.WarpCollective` is left.  A collective

    r = C(mask, value, operand)

becomes, in the thread loop:

* phase A: the value is evaluated into a fresh local; the thread stamps its slot of the site's
  arrival array with the block's collective counter and writes the value into the site's
  per-block exchange array, both indexed by the flat thread id;
* a :class:`~foundation.ir.WarpSync` (for ``__syncthreads_count/and/or``: a
  :class:`~foundation.ir.Barrier` and then a ``WarpSync``), where ``barrier-interchange`` splits the
  thread loop and then advances the counter, so that each executed collective has its own stamp;
* phase B: ``r`` is a call of ``moccuda::warp`` (``cuda2cpu_warp.h``) that reads the slots of the
  caller's warp segment; the mask, a shuffle's operand and the width are evaluated here, after
  every lane ran the statements before the collective (the lockstep order).  A lane takes part
  when it exists, is in the mask and carries the caller's stamp (so ``__activemask()`` is the set
  of lanes that reached it); a shuffle reading a lane that does not exist or did not reach it
  (inactive) gives 0, as GPUs do.

``__syncwarp()`` is a ``WarpSync`` alone, a thread block's ``sync()`` a ``Barrier``.

A ``cg::reduce`` over a tile of several warps (``thread_block_tile<N>``, N > 32) is a block-scope
collective: a ``Barrier`` between the phases, and phase B reads the caller's N-thread tile
(``moccuda::warp::block_reduce``).  Every thread of the block must reach it; where only some tiles
may, the split lowering gives the kernel to the fibers.  A reduce whose tile size is a template's
parameter (unknown here) takes that form where every thread of the block reaches it together,
which serves any size; elsewhere it stays a warp collective, and a size above 32 stops the program
at run time with a message.

In a kernel ``fiber-lowering`` took (it runs first), the sync point is a
:class:`~foundation.ir.FiberBarrier` of warp scope (block scope for ``__syncthreads_count/and/or``
and ``block.sync()``): the lanes of a warp run in rounds, each to its next synchronization, and
a warp sync waits only for the lanes of its own warp, so the lanes of a warp reaching a
collective together all write before any reads, and a collective under a warp-uniform branch
(``if (warp == 0)``) is not paired with the other warps' ``__syncthreads()``; a collective's
fiber also waits for the lanes of its mask to reach the same sync point, as CUDA's ``*_sync``
intrinsics do.  An ``if``, loop or ``switch`` with warp sync points inside (outside per-thread
loops) is followed by a meeting point of the whole warp, where a warp reconverges (the thread
loops of the split lowering run every lane through every sync point, predicated).  There is no
block level to count collectives, so each thread counts its own arrivals at a site, and arrivals
alternate between two halves of the site's storage: the round that reads a result also runs the
next arrival's phase A.

Warp-synchronous code written before ``__syncwarp`` existed (a ``volatile`` shared array updated
by the first warp, ``if (tid < 32) { s[tid] += s[tid + 16]; s[tid] += s[tid + 8]; ... }``, or a
warp scan ``if (lane >= 1) v[t] += v[t - 1]; ...``) relies on the lanes of a warp running in
lockstep: each statement completes for the whole warp before the next starts, and within a
statement every lane reads before any lane stores.  Run thread after thread, lane 0 would read
``s[8]`` before lane 8 updated it, and lane ``i`` of the scan would add lane ``i - 1``'s new value.
So every statement that stores to ``volatile`` memory outside of per-thread loops is followed by a
``WarpSync``, and one whose value reads memory the lanes may store is split first:
``T lockstep = v[t] + v[t - 1]; WarpSync; v[t] = lockstep; WarpSync`` (a statement of a shape this
cannot split keeps the lanes' order within it, with a warning that names it); a store that reads
nothing gets a ``WarpSync`` before it when statements since the last sync point loaded shared
memory (``x = v[t - 1]; v[t] = 0;``: every lane loads before any stores).  A loop whose trip
count may differ between the lanes and that stores to ``volatile`` memory is followed by a
``WarpSync`` too: the warp reconverges there before the next statement reads.  Only stores that
may reach ``__shared__`` memory count (:class:`MemorySpaces`): a ``volatile`` pointer into global
memory (a kernel parameter, a flag or result for other blocks or the host) orders nothing within
a warp, and a sync after each of its stores would split the thread loop for nothing.

Before::

    ThreadLoop { float v = a[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 1); b[threadIdx.x] = v; }

Where every thread of the block reaches the collective, as often as the others (no condition,
loop exit or return that may differ between threads before it: :mod:`barrier.uniformity`), every
lane would carry the same stamp: there are no stamps (``nullptr``), nothing to clear per block,
and the exchange array has a warp of zeroed slots on either side, so that phase B reads its
source without a branch and its thread loop vectorizes.

After, every lane reaching it::

    unsigned warp_epoch = 1; float shfl_down_12[1088];  // 32 + 1024 + 32
    moccuda::warp::clear_pads(shfl_down_12, nthreads);
    ThreadLoop {
        float v = a[threadIdx.x];
        float shfl_down_12_value = v;
        shfl_down_12[flat + 32u] = shfl_down_12_value;
        WarpSync(warp_epoch);
        v += moccuda::warp::shfl_down(shfl_down_12 + 32u, nullptr, flat, nthreads, 0xffffffff,
                                      shfl_down_12[flat + 32u], 1, 32);
        b[threadIdx.x] = v;
    }

After, under ``if (threadIdx.x < n)`` (only some lanes may reach it: stamps)::

    unsigned warp_epoch = 1; unsigned shfl_down_12_stamp[1024]; float shfl_down_12[1024];
    moccuda::warp::clear_slots(shfl_down_12_stamp, nthreads);
    ThreadLoop {
        float v = a[threadIdx.x];
        if (threadIdx.x < n) {
            float shfl_down_12_value = v;
            shfl_down_12_stamp[flat] = warp_epoch; shfl_down_12[flat] = shfl_down_12_value;
        }
        WarpSync(warp_epoch);
        if (threadIdx.x < n)
            v += moccuda::warp::shfl_down(shfl_down_12, shfl_down_12_stamp, flat, nthreads, 0xffffffff,
                                          shfl_down_12_value, 1, 32);
        b[threadIdx.x] = v;
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from barrier import uniformity
from barrier.barrier_split import MAX_THREADS_PER_BLOCK
from barrier.uniformity import Level
from barrier.accesses import is_pure_function
from barrier.liveness import assigned_symbols, fresh_name
from foundation import ir
from foundation.diagnostics import unsupported, warning
from foundation.passes import PassContext, map_kernels, register, split_unsupported

LOOPS = (ir.For, ir.While, ir.DoWhile)

#: ``moccuda::warp``'s combining operations, by ``WarpCollective.combine``.
COMBINERS = {"add": "Add", "min": "Min", "max": "Max", "and": "And", "or": "Or", "xor": "Xor"}
SHUFFLES = ("shfl", "shfl_up", "shfl_down", "shfl_xor")
#: Zeroed slots on either side of an exchange array that every lane of the block reaches: a warp.
WARP_PAD = 32
#: What ``grid.sync()`` is between this pass and ``grid-sync``.
GRID_SYNC = "moccuda::cooperative::grid_sync"


def has_collective(node: ir.Node) -> bool:
    return any(isinstance(n, ir.WarpCollective) for n in node.walk())


def _own_exprs(s: ir.Stmt) -> list[ir.Expr]:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    if isinstance(s, ir.ExprStmt):
        return [s.expr]
    if isinstance(s, ir.VarDecl):
        return [s.init] if s.init is not None else []
    if isinstance(s, (ir.If, ir.Switch)):
        return [s.cond]
    if isinstance(s, ir.Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, ir.Case):
        return [s.value] if s.value is not None else []
    return []


@dataclass
class WarpLowering:
    """State of the lowering of one kernel."""

    ctx: PassContext
    used_names: set[str]
    types: dict[int, str]
    epoch: ir.Name
    #: the kernel's parameters never assigned (the same in every thread)
    params: frozenset[int] = frozenset()
    #: the kernel runs its threads as fibers (``fiber-lowering``): a sync point is a fiber barrier
    #: and each thread counts its own arrivals at a site (there is no block level to count them)
    fibers: bool = False
    block_decls: list[ir.Stmt] = field(default_factory=list)
    #: per-thread arrival counters of a fiber kernel, declared at the top of its fiber body
    fiber_counters: list[ir.Stmt] = field(default_factory=list)
    #: where the kernel's pointers point (only stores to shared memory need lockstep order)
    spaces: "MemorySpaces | None" = None
    #: the warp sync points of a fiber kernel so far (each gets its number)
    fiber_sites: int = 0
    #: the statements lowered since the last sync point (a lockstep store must wait until every
    #: lane has loaded what they load of memory the lanes may store: :meth:`loads_pending`, asked
    #: only there, as few kernels have such stores)
    since_sync: list[ir.Stmt] = field(default_factory=list)
    #: where the warp collectives are that every thread of the block reaches, each time
    #: (:mod:`barrier.uniformity`): every lane stamps the same arrival, so they need no stamps
    all_lanes: frozenset = frozenset()

    def sync_point(self, loc, scope: str = "warp", mask: ir.Expr | None = None,
                   width: ir.Expr | None = None) -> ir.Stmt:
        """A synchronization of the caller's warp (``scope="warp"``) or of its whole block (only
        in a fiber kernel: elsewhere a block-scope sync is a ``Barrier``, then a ``WarpSync``).
        A fiber's warp sync also waits for the lanes of ``mask`` (in the ``width`` segment) to
        reach the same sync point, as CUDA's ``*_sync`` intrinsics do."""
        if self.fibers:
            if scope == "block":
                return ir.FiberBarrier("block", loc=loc)
            self.fiber_sites += 1
            return ir.FiberBarrier("warp", self.fiber_sites, mask, width, loc=loc)
        assert scope == "warp"
        return ir.WarpSync(self.epoch.name, self.epoch.sym, loc=loc)

    def fresh(self, base: str, type_: str, loc) -> ir.Name:
        name = fresh_name(base, self.used_names)
        return ir.Name(name, self.ctx.fresh_sym(name, type_, "local", loc), loc=loc)

    # ------------------------------------------------------------------------- statements

    def stmts(self, stmts: tuple[ir.Stmt, ...], lockstep: bool) -> tuple[ir.Stmt, ...]:
        """Lower the collectives of a statement list.  ``lockstep``: statements here run for the
        lanes of a warp together (no per-thread loop around them), so legacy warp-synchronous
        writes to ``volatile`` memory get their warp sync."""
        out: list[ir.Stmt] = []
        for s in stmts:
            lowered = self.stmt(s, lockstep)
            out.extend(lowered)
            if lowered and _is_sync(lowered[-1]):
                self.since_sync = []
            else:
                self.since_sync.extend(lowered)
        return tuple(out)

    def loads_pending(self) -> bool:
        """Do the statements lowered since the last sync point load memory the lanes may store?"""
        return any(not self.loads_global(load) for part in self.since_sync for n in part.walk()
                   if isinstance(n, (ir.ExprStmt, ir.VarDecl, ir.If, ir.Return)) for load in _own_loads(n))

    def body(self, s: ir.Stmt | None, lockstep: bool) -> ir.Stmt | None:
        if s is None:
            return None
        block = ir.as_block(s)
        return replace(block, stmts=self.stmts(block.stmts, lockstep))

    def stmt(self, s: ir.Stmt, lockstep: bool) -> list[ir.Stmt]:
        if isinstance(s, ir.Switch) and has_collective(s.body):
            chain = switch_as_if_chain(s)
            if chain is not None:  # else the split lowering refuses it: the fiber fallback takes it
                return self.stmt(chain, lockstep)
        if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.WarpCollective) and s.expr.op in ("syncwarp", "sync"):
            if s.expr.scope == "grid":
                # A call of unknown effect for the barrier analyses until ``grid-sync`` lowers it:
                # other blocks may have written any memory when it returns.
                return [ir.ExprStmt(ir.Call(GRID_SYNC, (), loc=s.loc), loc=s.loc)]
            if s.expr.scope == "block" and not self.fibers:
                return [ir.Barrier(loc=s.loc)]
            if s.expr.scope == "block":
                return [self.sync_point(s.loc, "block")]
            return [self.sync_point(s.loc, "warp", s.expr.mask, s.expr.width)]
        if isinstance(s, LOOPS) and any(has_collective(e) for e in _loop_header(s)):
            return self.stmt(self.loop_with_collective_header(s), lockstep)
        s = self.nested(s, lockstep)
        pre: list[ir.Stmt] = []
        if any(has_collective(e) for e in _own_exprs(s)):
            s = self.hoist(s, pre)
        if lockstep and self.writes_volatile(s):
            return pre + self.lockstep_store(s)
        if lockstep and (self.stores_volatile_apart(s) or self.diverges_around_syncs(s)):
            return pre + [s, self.reconverge(s.loc)]
        return pre + [s]

    def reconverge(self, loc) -> ir.Stmt:
        """Where the lanes of a warp that ran a loop each at its own pace, or took different
        branches, meet again before any goes on, as a warp reconverges: then what follows reads
        all their stores, and the lanes pass the lockstep sync points after it together.  The
        thread loops of the split lowering run every lane to each sync point; a fiber waits for
        every lane of its warp to arrive here."""
        if not self.fibers:
            return self.sync_point(loc)
        return self.sync_point(loc, "warp", ir.Literal("0xffffffffu", loc=loc), ir.Literal("32", loc=loc))

    def diverges_around_syncs(self, s: ir.Stmt) -> bool:
        """In a fiber kernel: is ``s`` an ``if``, loop or ``switch`` with warp sync points inside
        (already lowered), which some lanes may pass fewer times than others?  Without a meeting
        point after it, a lane that skipped them would run ahead into the lockstep sync points
        that follow and meet the other lanes' earlier ones."""
        if not self.fibers or not isinstance(s, (ir.If, ir.Switch) + LOOPS):
            return False
        if isinstance(s, ir.For) and self.simple_for(s):
            return False
        return any(isinstance(n, ir.FiberBarrier) and n.scope == "warp" for n in s.walk())

    def stores_volatile_apart(self, s: ir.Stmt) -> bool:
        """Is ``s`` a loop or ``switch`` whose body the lanes do not run in lockstep (its trip
        count may differ between them) and which stores to ``volatile`` shared memory?"""
        if not isinstance(s, LOOPS + (ir.Switch,)) or (isinstance(s, ir.For) and self.simple_for(s)):
            return False
        return any(self.writes_volatile(n) for n in s.walk() if isinstance(n, (ir.ExprStmt, ir.VarDecl)))

    def lockstep_store(self, s: ir.Stmt) -> list[ir.Stmt]:
        """A statement storing to ``volatile`` shared memory, in the lockstep order of a warp: the
        lanes evaluate what they store (reading memory) before any of them stores, and all have
        stored before the next statement.  ``v[i] += v[i - 1]`` becomes
        ``T lockstep = v[i] + v[i - 1]; sync; v[i] = lockstep; sync``: run lane after lane in one
        loop, lane ``i`` would read lane ``i - 1``'s new value.  A store of a value that reads no
        memory needs no first sync; a statement of another shape that reads memory keeps the
        lanes' order within it, with a warning."""
        if all(self.loads_global(load) for load in _loads(s)):
            # It reads nothing another lane stores: no order within.  But the lanes' loads of
            # shared memory since the last sync point must all come before any lane stores.
            before = [self.sync_point(s.loc)] if self.loads_pending() else []
            return before + [s, self.sync_point(s.loc)]
        split = self.read_then_store(s)
        if split is None:
            self.ctx.warnings.append(warning(s.loc, "this statement both reads and stores volatile shared memory "
                                                    "in a form cuda2cpu does not split: the lanes of a warp run it "
                                                    "one after another, so a lane may read what a lower lane stored "
                                                    "in it (on a GPU every lane reads before any stores); read into "
                                                    "a local first, then store"))
            return [s, self.sync_point(s.loc)]
        read, store = split
        return [read, self.sync_point(s.loc), store, self.sync_point(s.loc)]

    def read_then_store(self, s: ir.Stmt) -> tuple[ir.Stmt, ir.Stmt] | None:
        """``target op= value`` as ``T tmp = target op value`` and ``target = tmp``, when the
        store's address has no side effects and the value stores only to locals; None for a
        statement of another shape."""
        if not isinstance(s, ir.ExprStmt) or not isinstance(s.expr, ir.Assign):
            return None
        target, value, op, loc = s.expr.target, s.expr.value, s.expr.op, s.loc
        type_ = self.element_type(target)
        if type_ is None or _has_side_effects(target) or not _stores_only_locals(value):
            return None
        if op != "=":
            value = ir.Binary(op[:-1], target, value, loc=loc)
        tmp = self.fresh(f"lockstep_{loc.line}", type_, loc)
        read = ir.VarDecl(tmp.sym, tmp.name, type_, value, loc=loc)
        return read, ir.ExprStmt(ir.Assign("=", target, tmp, loc=loc), loc=loc)

    def element_type(self, target: ir.Expr) -> str | None:
        """The type (without ``volatile``) of the element ``target`` designates: ``v[i]`` with
        ``volatile int *v`` is ``int``; None when it cannot be read off the declarations."""
        depth = 0
        while isinstance(target, ir.Index) or (isinstance(target, ir.Unary) and target.op == "*"):
            target = target.base if isinstance(target, ir.Index) else target.operand
            depth += 1
        if isinstance(target, ir.Cast):
            type_ = target.type
        elif isinstance(target, ir.Name):
            type_ = self.types.get(target.sym, "")
        else:
            return None
        for _ in range(depth):
            type_ = type_.strip()
            if type_.endswith("*"):
                type_ = type_[:-1]
            elif type_.endswith("]") and "[" in type_:
                type_ = type_[:type_.index("[")] + type_[type_.index("]") + 1:]
            else:
                return None
        words = [w for w in type_.replace("*", " * ").split() if w not in ("volatile", "const")]
        if not words or "*" in words or "[" in type_ or "(" in type_:
            return None  # an element that is itself a pointer or array: not the legacy pattern
        return " ".join(words)

    def nested(self, s: ir.Stmt, lockstep: bool) -> ir.Stmt:
        if isinstance(s, ir.Block):
            return replace(s, stmts=self.stmts(s.stmts, lockstep))
        if isinstance(s, ir.If):
            return replace(s, then=self.body(s.then, lockstep), otherwise=self.body(s.otherwise, lockstep))
        if isinstance(s, ir.For):
            return replace(s, body=self.body(s.body, lockstep and self.simple_for(s)))
        if isinstance(s, (ir.While, ir.DoWhile)):
            return replace(s, body=self.body(s.body, False))
        if isinstance(s, ir.Switch):
            block = ir.as_block(s.body)
            return replace(s, body=replace(block, stmts=self.switch_body(block.stmts)))
        if isinstance(s, ir.Case):
            return replace(s, body=self.body(s.body, False))
        return s

    def switch_body(self, stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        """A switch's statements: a case label may not jump past an initialized declaration (C++),
        so the locals that lowering a statement introduces (a collective's value) get a block of
        their own.  (The statement right after a label is the Case's own body, braced already.)"""
        out: list[ir.Stmt] = []
        for s in stmts:
            lowered = self.stmts((s,), False)
            if not isinstance(s, (ir.VarDecl, ir.Case)) and any(isinstance(n, ir.VarDecl) for n in lowered):
                out.append(ir.Block(lowered, loc=s.loc))
            else:
                out.extend(lowered)
        return tuple(out)

    def simple_for(self, s: ir.For) -> bool:
        """A ``for`` whose trip count is the same for every thread (its header reads only its own
        variable, literals, parameters and ``blockDim``): the lanes run it in lockstep."""
        var = s.init.sym if isinstance(s.init, ir.VarDecl) else None
        for part in (s.init, s.cond, s.step):
            if part is None:
                continue
            for n in part.walk():
                if isinstance(n, (ir.Index, ir.Call, ir.IndirectCall, ir.WarpCollective)):
                    return False
                if isinstance(n, ir.Unary) and n.op == "*":
                    return False
                if isinstance(n, (ir.Builtin, ir.BuiltinVector)) and n.var == "threadIdx":
                    return False
                if isinstance(n, ir.Name) and n.sym != var and n.sym not in self.params:
                    symbol = self.ctx.symbols.get(n.sym)
                    if symbol is None or symbol.kind not in ("param", "constant"):
                        return False
        return True

    def loop_with_collective_header(self, s: ir.Stmt) -> ir.Stmt:
        """A loop whose condition (or step) is a collective, ``while (__any_sync(m, p)) ...``,
        becomes ``while (true) { if (!cond) break; ... }`` so that the collective is a statement."""
        loc = s.loc
        if isinstance(s, ir.While):
            test = ir.If(ir.Unary("!", s.cond, loc=loc), ir.Break(loc=loc), loc=loc)
            return ir.While(ir.Literal("true", loc=loc), ir.Block((test, s.body), loc=loc), loc=loc)
        if _continues(s.body):
            raise unsupported(loc, "'continue' in a loop whose condition or step is a warp collective")
        if isinstance(s, ir.DoWhile):
            test = ir.If(ir.Unary("!", s.cond, loc=loc), ir.Break(loc=loc), loc=loc)
            return ir.While(ir.Literal("true", loc=loc), ir.Block((s.body, test), loc=loc), loc=loc)
        assert isinstance(s, ir.For)
        body: list[ir.Stmt] = []
        if s.cond is not None:
            body.append(ir.If(ir.Unary("!", s.cond, loc=loc), ir.Break(loc=loc), loc=loc))
        body.append(s.body)
        if s.step is not None:
            body.append(ir.ExprStmt(s.step, loc=loc))
        loop = ir.While(ir.Literal("true", loc=loc), ir.Block(tuple(body), loc=loc), loc=loc)
        return ir.Block(((s.init,) if s.init is not None else ()) + (loop,), loc=loc)

    # ------------------------------------------------------------------------ expressions

    def hoist(self, s: ir.Stmt, pre: list[ir.Stmt]) -> ir.Stmt:
        """Replace the collectives of ``s``'s own expressions by their phase-B reads, with phase A
        and the synchronization appended to ``pre``."""

        def lower(e: ir.Expr, lazy: bool) -> ir.Expr:
            if isinstance(e, ir.WarpCollective):
                if lazy:
                    raise unsupported(e.loc, "a warp collective that runs only under a condition inside an "
                                      "expression (the right of &&, || or ?:); compute it in a statement of its own")
                e = ir.map_children(e, lambda c: lower(c, False) if isinstance(c, ir.Expr) else c)
                return self.exchange(e, pre)
            if isinstance(e, ir.Conditional) or (isinstance(e, ir.Binary) and e.op in ("&&", "||")):
                first = e.cond if isinstance(e, ir.Conditional) else e.lhs
                return ir.map_children(e, lambda c: lower(c, lazy or c is not first) if isinstance(c, ir.Expr) else c)
            return ir.map_children(e, lambda c: lower(c, lazy) if isinstance(c, ir.Expr) else c)

        if isinstance(s, ir.ExprStmt):
            return replace(s, expr=lower(s.expr, False))
        if isinstance(s, ir.VarDecl):
            return replace(s, init=lower(s.init, False))
        if isinstance(s, (ir.If, ir.Switch)):
            return replace(s, cond=lower(s.cond, False))
        if isinstance(s, ir.Return):
            return replace(s, value=lower(s.value, False))
        raise unsupported(s.loc, "a warp collective in a case label")

    def exchange(self, c: ir.WarpCollective, pre: list[ir.Stmt]) -> ir.Expr:
        loc = c.loc
        if c.op == "reduce" and c.scope == "warp" and not isinstance(c.width, ir.Literal) and c.loc in self.all_lanes:
            # A tile whose size is a template's parameter may span several warps: where every
            # thread of the block arrives together, the block's barrier serves any size.
            c = replace(c, scope="block")
        base = f"{c.op if c.scope == 'warp' else 'syncthreads_' + c.op}_{loc.line}"
        phase_a = len(pre)
        flat = ir.flat_thread_index(loc)
        count = ir.block_thread_count(loc)

        def local(suffix: str, type_: str, init: ir.Expr) -> ir.Expr:
            if isinstance(init, ir.Literal):
                return init  # the same in both phases: nothing to carry across the split
            name = self.fresh(f"{base}_{suffix}", type_, loc)
            pre.append(ir.VarDecl(name.sym, name.name, type_, init, loc=loc))
            return name

        # Only the value crosses the split; the mask, the shuffle's operand and the width are
        # evaluated after it, when every lane has run the statements before the collective (as
        # lanes running in lockstep would have).
        mask, operand, width = c.mask, c.operand, c.width
        if self.fibers and c.scope == "warp" and c.op != "activemask":
            # A fiber waits for the lanes of its mask, so the mask (and the width that delimits
            # the segment) are needed before the sync: each fiber keeps its own locals anyway.
            mask = local("mask", "unsigned", mask)
            width = local("width", "int", width)
        value = None
        if c.value is not None:
            init = c.value
            if c.type == "int" and c.op in ("ballot", "any", "all", "count", "and", "or"):
                init = ir.Conditional(c.value, ir.Literal("1", loc=loc), ir.Literal("0", loc=loc), loc=loc)
            value = local("value", c.type, init)
        # Each site has its own stamps: the thread loop that reads this collective's result also
        # runs the next collective's phase A, whose stamps must not be seen yet.
        buffers = 2 if self.fibers else 1
        slot: ir.Expr = flat
        exchanged = None
        every_lane = not self.fibers and c.scope == "warp" and c.loc in self.all_lanes
        if every_lane:
            # Every thread of the block arrives here together: a lane takes part when it exists
            # and is in the mask, with no stamps to write, compare or clear for each block.
            stamp = stamps = ir.Literal("nullptr", loc=loc)
        elif self.fibers:
            stamp_type = ir_array("unsigned", buffers)
            stamp = self.fresh(f"{base}_stamp", stamp_type, loc)
            self.block_decls.append(ir.VarDecl(stamp.sym, stamp.name, stamp_type, ir.InitList((), loc=loc),
                                               loc=loc))
            stamps = stamp
        else:
            # A stale stamp of the block run before could equal this block's counter: the
            # block's slots start at 0 (only those are compared).
            stamp_type = ir_array("unsigned", buffers)
            stamp = self.fresh(f"{base}_stamp", stamp_type, loc)
            self.block_decls.append(ir.VarDecl(stamp.sym, stamp.name, stamp_type, loc=loc))
            self.block_decls.append(ir.ExprStmt(ir.Call("moccuda::warp::clear_slots", (stamp, count), loc=loc),
                                                loc=loc))
            stamps = stamp
        arrival: ir.Expr = self.epoch
        if self.fibers:
            # Fibers run in rounds: the round that reads this collective's result also runs the
            # next arrival's phase A, so arrivals alternate between two halves of the storage.
            counter = self.fresh(f"{base}_arrivals", "unsigned", loc)
            self.fiber_counters.append(ir.VarDecl(counter.sym, counter.name, "unsigned", ir.Literal("0", loc=loc),
                                                  loc=loc))
            pre.append(ir.ExprStmt(ir.Unary("++", counter, loc=loc), loc=loc))
            arrival = counter
            half = ir.Binary("*", ir.Literal(f"{MAX_THREADS_PER_BLOCK}u", loc=loc),
                             ir.Binary("&", counter, ir.Literal("1u", loc=loc), loc=loc), loc=loc)
            slot = ir.Binary("+", flat, half, loc=loc)
            stamps = ir.Binary("+", stamp, half, loc=loc)
        if not every_lane:
            pre.append(ir.ExprStmt(ir.Assign("=", ir.Index(stamp, slot, loc=loc), arrival, loc=loc), loc=loc))
        xchg = None
        if value is not None and every_lane:
            # No stamps: phase B reads its source slot unconditionally and selects, without a
            # branch, so its thread loop vectorizes (``moccuda::warp``'s ``std::nullptr_t``
            # overloads).  A source up to a warp before or after the block's threads is then read
            # (and discarded): the array has a warp of zeroed slots on either side.
            # The caller's own value is its slot: it need not be kept across the split.
            pad = ir.Literal(f"{WARP_PAD}u", loc=loc)
            xchg_type = f"{c.type}[{WARP_PAD + MAX_THREADS_PER_BLOCK + WARP_PAD}]"
            xchg = self.fresh(base, xchg_type, loc)
            self.block_decls.append(ir.VarDecl(xchg.sym, xchg.name, xchg_type, loc=loc))
            self.block_decls.append(ir.ExprStmt(ir.Call("moccuda::warp::clear_pads", (xchg, count), loc=loc),
                                                loc=loc))
            own_slot = ir.Index(xchg, ir.Binary("+", slot, pad, loc=loc), loc=loc)
            pre.append(ir.ExprStmt(ir.Assign("=", own_slot, value, loc=loc), loc=loc))
            exchanged = ir.Binary("+", xchg, pad, loc=loc)
            value = own_slot
        elif value is not None:
            xchg_type = ir_array(c.type, buffers)
            xchg = self.fresh(base, xchg_type, loc)
            self.block_decls.append(ir.VarDecl(xchg.sym, xchg.name, xchg_type, loc=loc))
            pre.append(ir.ExprStmt(ir.Assign("=", ir.Index(xchg, slot, loc=loc), value, loc=loc), loc=loc))
            exchanged = xchg if not self.fibers else ir.Binary("+", xchg, half, loc=loc)
            if not self.fibers:
                # The caller's own value is its slot, which only its own phase A writes: it need
                # not be kept per thread across the split (a fiber keeps its locals anyway).
                value = ir.Index(xchg, slot, loc=loc)
        if c.scope == "block" and not self.fibers:
            pre.append(ir.Barrier(loc=loc))
            pre.append(self.sync_point(loc))
        elif c.scope == "block":
            pre.append(self.sync_point(loc, "block"))
        elif self.fibers and c.op != "activemask":  # __activemask() waits for no lane
            pre.append(self.sync_point(loc, "warp", mask, width))
        elif self.fibers:
            pre.append(self.sync_point(loc))
        else:  # the statements since phase_a are this collective's phase A (warp-exchange-merge moves them)
            pre.append(replace(self.sync_point(loc), phase_a=len(pre) - phase_a))
        xchg = exchanged

        where = (stamps, flat, count)
        if c.scope == "block" and c.op == "reduce" and c.combine == "call":
            return ir.Call("moccuda::warp::block_reduce_with", (xchg,) + where + (width, operand), loc=loc)
        if c.scope == "block" and c.op == "reduce":
            return ir.Call(f"moccuda::warp::block_reduce<moccuda::warp::{COMBINERS[c.combine]}>",
                           (xchg,) + where + (width,), loc=loc)
        if c.scope == "block":
            return ir.Call(f"moccuda::warp::block_{c.op}", (xchg,) + where, loc=loc)
        if c.op == "activemask":
            return ir.Call("moccuda::warp::activemask", where + (width,), loc=loc)
        if c.op in ("ballot", "any", "all"):
            return ir.Call(f"moccuda::warp::{c.op}", (xchg,) + where + (mask, width), loc=loc)
        if c.op in SHUFFLES:
            return ir.Call(f"moccuda::warp::{c.op}", (xchg,) + where + (mask, value, operand, width), loc=loc)
        if c.op == "match_any":
            return ir.Call("moccuda::warp::match_any", (xchg,) + where + (mask, value, width), loc=loc)
        if c.op == "match_all":
            return ir.Call("moccuda::warp::match_all", (xchg,) + where + (mask, value, operand, width), loc=loc)
        if c.op == "reduce" and c.combine == "call":  # the operator object, evaluated in phase B
            return ir.Call("moccuda::warp::reduce_with", (xchg,) + where + (mask, value, width, operand), loc=loc)
        if c.op == "reduce":
            return ir.Call(f"moccuda::warp::reduce<moccuda::warp::{COMBINERS[c.combine]}>",
                           (xchg,) + where + (mask, value, width), loc=loc)
        raise unsupported(loc, f"the warp operation '{c.op}' as a value")

    # ----------------------------------------------------------------- legacy warp-synchronous

    def space(self, e: ir.Expr) -> str:
        return self.spaces.space(e) if self.spaces is not None else UNKNOWN

    def loads_global(self, load: ir.Expr) -> bool:
        """Does ``load`` read global memory (which the lanes' stores to shared memory do not
        reach, so the order of the lanes does not matter to it)?"""
        if isinstance(load, ir.Index):
            return self.space(load.base) == GLOBAL
        if isinstance(load, ir.Unary):
            return self.space(load.operand) == GLOBAL
        if isinstance(load, ir.Member):
            return self.space(load.base) == GLOBAL
        return False

    def writes_volatile(self, s: ir.Stmt) -> bool:
        """Does ``s`` (a simple statement) store through a ``volatile`` array or pointer?"""
        if not isinstance(s, (ir.ExprStmt, ir.VarDecl)):
            return False
        for n in s.walk():
            target = n.target if isinstance(n, ir.Assign) else (
                n.operand if isinstance(n, ir.Unary) and n.op in ("++", "--") else None)
            through_memory = False  # a volatile local of one thread is no concern of the warp
            while isinstance(target, (ir.Index, ir.Member)) or (isinstance(target, ir.Unary) and target.op == "*"):
                through_memory |= not isinstance(target, ir.Member) or target.arrow
                target = target.base if not isinstance(target, ir.Unary) else target.operand
            if isinstance(target, ir.Cast) and "volatile" in target.type:  # ((volatile int *)s)[t] = ...
                if through_memory and self.space(target.operand) != GLOBAL:
                    return True
                continue
            type_ = self.types.get(target.sym, "") if isinstance(target, ir.Name) else ""
            if through_memory and "volatile" in type_ and ("*" in type_ or "[" in type_) \
                    and self.space(target) != GLOBAL:
                return True
        return False


def _is_sync(s: ir.Stmt) -> bool:
    return isinstance(s, (ir.WarpSync, ir.Barrier, ir.FiberBarrier))


def _own_loads(s: ir.Stmt) -> list[ir.Expr]:
    """The loads of what ``s`` evaluates itself (a condition, an initializer, an expression)."""
    return [load for e in _own_exprs(s) for load in _loads(e)]


def _loads(node: ir.Node) -> list[ir.Expr]:
    """The loads of ``node`` (a simple statement) other than of the places it stores to: elements,
    dereferences, members through pointers, and calls (which may load anything).  A compound store
    ``v[i] += 1`` reads only what the lane itself stores."""
    stored = set()
    for n in node.walk():
        if isinstance(n, ir.Assign):
            stored.add(id(n.target))
        elif isinstance(n, ir.Unary) and n.op in ("++", "--"):
            stored.add(id(n.operand))
    return [n for n in node.walk() if id(n) not in stored and (
        isinstance(n, (ir.Index, ir.Call, ir.IndirectCall)) or (isinstance(n, ir.Unary) and n.op == "*") or
        (isinstance(n, ir.Member) and n.arrow))]


def _has_side_effects(e: ir.Expr) -> bool:
    return any(isinstance(n, (ir.Assign, ir.Call, ir.IndirectCall, ir.WarpCollective)) or
               (isinstance(n, ir.Unary) and n.op in ("++", "--")) for n in e.walk())


def _stores_only_locals(e: ir.Expr) -> bool:
    """Does evaluating ``e`` store only to named variables (``t += v[i - 1]``: a lane's own
    locals), and call only functions without side effects?"""
    for n in e.walk():
        target = n.target if isinstance(n, ir.Assign) else (
            n.operand if isinstance(n, ir.Unary) and n.op in ("++", "--") else None)
        if target is not None and not isinstance(target, ir.Name):
            return False
        if isinstance(n, ir.Call) and not is_pure_function(ir.callee_name(n.func)):
            return False
        if isinstance(n, (ir.IndirectCall, ir.WarpCollective)):
            return False
    return True


SHARED, GLOBAL, UNKNOWN = "shared", "global", "unknown"


@dataclass
class MemorySpaces:
    """Which memory a pointer of the kernel points into: ``__shared__`` memory, global memory
    (kernel parameters, ``__device__`` variables and what is computed from them), or unknown.
    Only stores to shared memory need the lockstep order of legacy warp-synchronous code; a
    ``volatile`` flag or result in global memory is for other blocks or the host, and ordering
    it across the lanes of a warp would split the thread loop after every store for nothing."""

    #: every value assigned to a local, by symbol (its initializer and its ``=`` assignments)
    definitions: dict[int, list[ir.Expr]]
    shared: frozenset[int]
    params: frozenset[int]
    symbols: dict[int, ir.Symbol]

    @staticmethod
    def of(kernel: ir.Kernel, ctx: PassContext) -> "MemorySpaces":
        definitions: dict[int, list[ir.Expr]] = {}
        shared = set()
        for n in kernel.walk():
            if isinstance(n, ir.VarDecl):
                if n.storage in ("shared", "shared_dynamic"):
                    shared.add(n.sym)
                if n.init is not None:
                    definitions.setdefault(n.sym, []).append(n.init)
            elif isinstance(n, ir.Assign) and isinstance(n.target, ir.Name):
                value = n.value if n.op == "=" else n.target  # p += k stays in p's memory
                definitions.setdefault(n.target.sym, []).append(value)
        return MemorySpaces(definitions, frozenset(shared), frozenset(p.sym for p in kernel.params), ctx.symbols)

    def space(self, e: ir.Expr, seen: frozenset[int] = frozenset()) -> str:
        if isinstance(e, ir.Name):
            if e.sym in self.shared:
                return SHARED
            symbol = self.symbols.get(e.sym)
            if e.sym in self.params or (symbol is not None and symbol.kind in ("param", "global")):
                return GLOBAL
            if symbol is not None and symbol.kind == "shared":
                return SHARED
            if e.sym in seen or e.sym not in self.definitions:
                return UNKNOWN if e.sym not in seen else GLOBAL  # a cycle adds no new memory
            spaces = {self.space(v, seen | {e.sym}) for v in self.definitions[e.sym]}
            return spaces.pop() if len(spaces) == 1 else UNKNOWN
        if isinstance(e, ir.Cast):
            return self.space(e.operand, seen)
        if isinstance(e, ir.Unary) and e.op == "&":  # &s[i], &s[i].x: in the array's memory
            inner = e.operand
            while isinstance(inner, ir.Index) or (isinstance(inner, ir.Member) and not inner.arrow):
                inner = inner.base
            return self.space(inner, seen) if isinstance(inner, ir.Name) else UNKNOWN
        if isinstance(e, ir.Binary) and e.op in ("+", "-"):
            lhs, rhs = self.space(e.lhs, seen), self.space(e.rhs, seen)
            known = {x for x in (lhs, rhs) if x != UNKNOWN}
            return known.pop() if len(known) == 1 else UNKNOWN
        if isinstance(e, ir.Conditional):
            spaces = {self.space(e.then, seen), self.space(e.otherwise, seen)}
            return spaces.pop() if len(spaces) == 1 else UNKNOWN
        return UNKNOWN


def switch_as_if_chain(s: ir.Switch) -> ir.Stmt | None:
    """``switch`` as an ``if``/``else if`` chain, when that is the same program: the condition has
    no side effects (it is then evaluated at most once per label test, before any case body runs),
    and every case group ends with ``break`` or ``return`` (no fall-through into the next group)
    and has no other ``break`` of the switch.  None otherwise.  The barrier lowering handles
    ``if`` (predicated per thread where it is not uniform per warp), not ``switch``.

    ``switch (k) { case 1: case 2: a; break; default: b; break; case 3: { c; break; } }``
    becomes ``if (k == 1 || k == 2) { a; } else if (k == 3) { c; } else { b; }``.
    """
    if any(isinstance(n, (ir.Assign, ir.Call, ir.IndirectCall, ir.WarpCollective)) or
           (isinstance(n, ir.Unary) and n.op in ("++", "--")) for n in s.cond.walk()):
        return None
    groups: list[tuple[list[ir.Expr | None], list[ir.Stmt]]] = []
    for stmt in ir.as_block(s.body).stmts:
        labels: list[ir.Expr | None] = []
        while isinstance(stmt, ir.Case):
            labels.append(stmt.value)
            stmt = stmt.body
        if labels:
            groups.append((labels, [stmt]))
        elif groups:
            groups[-1][1].append(stmt)
        elif not isinstance(stmt, ir.Empty):
            return None  # before the first label: never runs
    if not groups:
        return None
    cases: list[tuple[list[ir.Expr | None], ir.Block]] = []
    for i, (labels, stmts) in enumerate(groups):
        body, ends = _without_final_break(stmts)
        if (not ends and i + 1 < len(groups)) or any(_breaks(st) for st in body):
            return None
        cases.append((labels, ir.Block(tuple(body), loc=stmts[0].loc)))
    loc = s.loc
    default = next((body for labels, body in cases if None in labels), None)
    chain: ir.Stmt | None = default
    for labels, body in reversed([c for c in cases if None not in c[0]]):
        tests = [ir.Binary("==", s.cond, value, loc=loc) for value in labels]
        cond = tests[0]
        for test in tests[1:]:
            cond = ir.Binary("||", cond, test, loc=loc)
        chain = ir.If(cond, body, chain, loc=body.loc)
    return chain if chain is not None else ir.Empty(loc=loc)


def _without_final_break(stmts: list[ir.Stmt]) -> tuple[list[ir.Stmt], bool]:
    """A case group's statements without the ``break`` that ends it (also as the last statement
    of a final braced block), and whether the group ends (``break`` or ``return``)."""
    stmts = [st for st in stmts if not isinstance(st, ir.Empty)]
    if not stmts:
        return [], False
    last = stmts[-1]
    if isinstance(last, ir.Break):
        return stmts[:-1], True
    if isinstance(last, ir.Block) and last.stmts and isinstance(last.stmts[-1], ir.Break):
        return stmts[:-1] + [replace(last, stmts=last.stmts[:-1])], True
    return stmts, isinstance(last, ir.Return)


def _breaks(node: ir.Node) -> bool:
    """Does ``node`` hold a ``break`` of the switch around it (not of a nested loop or switch)?"""
    if isinstance(node, ir.Break):
        return True
    if isinstance(node, ir.Expr) or isinstance(node, LOOPS + (ir.Switch,)):
        return False
    return any(_breaks(c) for c in node.children())


def ir_array(type_: str, buffers: int = 1) -> str:
    return f"{type_}[{MAX_THREADS_PER_BLOCK * buffers}]"


def _loop_header(s: ir.Stmt) -> list[ir.Node]:
    if isinstance(s, ir.For):
        return [p for p in (s.init, s.cond, s.step) if p is not None]
    return [s.cond]


def _continues(node: ir.Node, depth: int = 0) -> bool:
    if isinstance(node, ir.Continue):
        return depth == 0
    if isinstance(node, ir.Expr):
        return False
    inner = depth + 1 if isinstance(node, LOOPS) else depth
    return any(_continues(c, inner) for c in node.children())


def _volatile_types(kernel: ir.Kernel, ctx: PassContext) -> dict[int, str]:
    types = {sym: s.type for sym, s in ctx.symbols.items()}
    types.update({n.sym: n.type for n in kernel.walk() if isinstance(n, (ir.VarDecl, ir.Param))})
    return {sym: t for sym, t in types.items() if "volatile" in t}


def _reached_by_every_thread(kernel: ir.Kernel, found: uniformity.Uniformity) -> frozenset:
    """The places of the warp collectives that every thread of a block reaches, as often as the
    others: under no condition, loop exit or return that may differ between threads.  (Places,
    as the lowering rebuilds the nodes; a place that holds several collectives counts only when
    all of them are reached so.)"""
    level: dict = {}
    for n in kernel.walk():
        if isinstance(n, ir.WarpCollective) and n.scope == "warp":
            d = found.collectives.get(id(n))
            here = Level.UNKNOWN if d is None else d.level
            level[n.loc] = max(level.get(n.loc, Level.UNIFORM), here)
    return frozenset(loc for loc, lv in level.items() if lv == Level.UNIFORM)


def _check_tiles_of_several_warps(kernel: ir.Kernel, found: uniformity.Uniformity) -> None:
    """A ``cg::reduce`` over a tile of several warps is lowered at a barrier of the block, so every
    thread of the block must reach it: where only some tiles may (valid CUDA, as each tile's own
    threads all call it), the split lowering cannot express it, and the fiber lowering, whose
    threads that skip a barrier wait at their next one, takes the kernel."""
    for n in kernel.walk():
        if isinstance(n, ir.WarpCollective) and n.scope == "block" and n.op == "reduce":
            d = found.barriers.get(id(n))
            if d is not None and d.level != Level.UNIFORM:
                raise split_unsupported(n.loc, f"cg::reduce over a thread_block_tile of several warps where not "
                                               f"every thread of the block may reach it ({d.why})")


@register
@dataclass(frozen=True)
class WarpCollectives:
    name = "warp-collectives"
    required = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        assert grid is not None, "warp-collectives runs after parallel-loops"
        types = _volatile_types(kernel, ctx)
        if not has_collective(grid) and not types:
            return kernel
        if any(isinstance(n, ir.FiberLoop) for n in grid.walk()):
            return self.fiber_kernel(kernel, grid, ctx, types)
        found = uniformity.for_kernel(kernel, ctx)
        _check_tiles_of_several_warps(kernel, found)
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        loc = kernel.loc
        epoch_name = fresh_name("warp_epoch", used)
        epoch = ir.Name(epoch_name, ctx.fresh_sym(epoch_name, "unsigned", "local", loc), loc=loc)
        params = frozenset(p.sym for p in kernel.params) - assigned_symbols(kernel.body, ctx.device_bodies)
        lowering = WarpLowering(ctx, used, types, epoch, params, spaces=MemorySpaces.of(kernel, ctx),
                                all_lanes=_reached_by_every_thread(kernel, found))
        stmts = tuple(replace(s, body=replace(s.body, stmts=lowering.stmts(s.body.stmts, True)))
                      if isinstance(s, ir.ThreadLoop) else s for s in grid.body.stmts)
        if all(a is b for a, b in zip(stmts, grid.body.stmts)):
            return kernel
        decls: tuple[ir.Stmt, ...] = ()
        if any(isinstance(n, ir.WarpSync) for s in stmts for n in s.walk()):
            decls = (ir.VarDecl(epoch.sym, epoch.name, "unsigned", ir.Literal("1", loc=loc), loc=loc),)
        new_grid = replace(grid, body=replace(grid.body, stmts=decls + tuple(lowering.block_decls) + stmts))
        return ir.replace_grid_loop(kernel, new_grid)

    def fiber_kernel(self, kernel: ir.Kernel, grid: ir.GridLoop, ctx: PassContext,
                     types: dict[int, str]) -> ir.Kernel:
        """A kernel ``fiber-lowering`` took: the same exchange, with a fiber barrier as the sync
        point.  The block's fibers run in rounds, each to its next barrier, so the lanes of a warp
        that reach a collective together all write before any reads; each thread counts its own
        arrivals at a site, and lanes with equal counts took part in the same collective."""
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        epoch = ir.Name("", 0, loc=kernel.loc)
        params = frozenset(p.sym for p in kernel.params) - assigned_symbols(kernel.body, ctx.device_bodies)
        lowering = WarpLowering(ctx, used, types, epoch, params, fibers=True, spaces=MemorySpaces.of(kernel, ctx),
                                all_lanes=_reached_by_every_thread(kernel, uniformity.for_kernel(kernel, ctx)))

        def lower(s: ir.Stmt) -> ir.Stmt:
            if not isinstance(s, ir.FiberLoop):
                return s
            body = lowering.stmts(s.body.stmts, True)
            return replace(s, body=replace(s.body, stmts=tuple(lowering.fiber_counters) + body))

        stmts = tuple(lower(s) for s in grid.body.stmts)
        if all(a is b for a, b in zip(stmts, grid.body.stmts)):
            return kernel
        new_grid = replace(grid, body=replace(grid.body, stmts=tuple(lowering.block_decls) + stmts))
        return ir.replace_grid_loop(kernel, new_grid)
