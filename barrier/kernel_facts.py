"""What the effect analysis knows of one kernel (or device function) body: :class:`KernelFacts`.

The facts are the symbols and their types, the values that are uniform across a block, the
thread-index extents the launch sites give, immutable locals and their definitions, and which
memory objects may alias:

* distinct ``__shared__`` arrays never alias each other, nor any global memory object;
* distinct ``__device__`` variables never alias each other;
* two pointer parameters may alias, unless one of them is ``__restrict__`` or every launch site
  of the kernel in the translation unit passes them distinct ``cudaMalloc``'d variables
  (:mod:`cuda_front.launch_sites`; the translation unit is taken to hold all launches of its
  kernels, and a launch from another file is checked at run time); a pointer parameter may alias any ``__device__`` variable unless it is
  ``__restrict__``;
* "unknown" may alias everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from barrier.access_collection import AccessCollector
from barrier.accesses import (GLOBAL, PARAM, SHARED, UNKNOWN, Access, by_reference_arguments, is_reference_type,
                              reads_memory_or_changes_state, simple_parts)
from barrier.affine_forms import THREAD_DIMS, Affine, Poly
from barrier.liveness import changed_variable
from foundation import ir
from foundation.integer_types import int_literal, unpromoted_integer_kind


@dataclass
class KernelFacts:
    """What the effect analysis knows about one kernel (or device function) body.

    Built by :func:`kernel_facts`; ``extents`` are the block's thread-index extents (an int when
    every launch site agrees on a constant, else None: unknown, ``blockDim.d``); ``distinct``
    holds pairs of parameter symbols proven never to alias.
    """

    symbols: dict[int, ir.Symbol]
    params: dict[int, ir.Param] = field(default_factory=dict)
    shared: dict[int, ir.VarDecl] = field(default_factory=dict)
    mutable: set[int] = field(default_factory=set)
    local_init: dict[int, ir.Expr] = field(default_factory=dict)
    local_type: dict[int, str] = field(default_factory=dict)
    #: local references: the lvalue each is bound to
    local_ref: dict[int, ir.Expr] = field(default_factory=dict)
    extents: tuple[int | None, int | None, int | None] = (None, None, None)
    distinct: set[frozenset[int]] = field(default_factory=set)
    device_bodies: dict[str, ir.DeviceFunction] = field(default_factory=dict)
    formals: dict[int, int] = field(default_factory=dict)  # param sym -> position (device functions)
    _affine_cache: dict[int, Affine | None] = field(default_factory=dict)
    _call_cache: dict[str, tuple[Access, ...] | None] = field(default_factory=dict)
    _in_progress: set[str] = field(default_factory=set)
    _access_cache: dict[int, tuple[ir.Node, list[Access]]] = field(default_factory=dict)

    # -------------------------------------------------------------------------- aliasing

    def restrict(self, sym: int) -> bool:
        p = self.params.get(sym)
        return p is not None and "restrict" in p.type

    def may_alias(self, a: tuple[str, int], b: tuple[str, int]) -> bool:
        if a[0] == UNKNOWN or b[0] == UNKNOWN or a == b:
            return True
        kinds = {a[0], b[0]}
        if SHARED in kinds:
            return False
        if kinds == {GLOBAL}:
            return False
        if kinds == {PARAM}:
            return not (self.restrict(a[1]) or self.restrict(b[1]) or frozenset((a[1], b[1])) in self.distinct)
        if kinds == {PARAM, GLOBAL}:
            param = a if a[0] == PARAM else b
            return not self.restrict(param[1])
        return True

    def extent(self, dim: int) -> Poly:
        e = self.extents[dim]
        return Poly.const(e) if e is not None else Poly.atom(f"blockDim.{THREAD_DIMS[dim]}")

    def varying_dims(self) -> list[int]:
        return [d for d in range(3) if self.extents[d] != 1]

    # -------------------------------------------------------------------- affine indices

    def affine(self, e: ir.Expr) -> Affine | None:
        """``e`` as an affine form in the thread indices, or None when it is not one."""
        if isinstance(e, ir.Literal):
            value = int_literal(e.text)
            return None if value is None else Affine.uniform(Poly.const(value))
        if isinstance(e, ir.Builtin):
            if e.var == "threadIdx":
                return Affine() if self.extents[THREAD_DIMS.index(e.dim)] == 1 else Affine.thread(e.dim)
            if e.var in ("blockIdx", "blockDim", "gridDim"):
                if e.var == "blockDim" and self.extents[THREAD_DIMS.index(e.dim)] is not None:
                    return Affine.uniform(Poly.const(self.extents[THREAD_DIMS.index(e.dim)]))
                return Affine.uniform(Poly.atom(f"{e.var}.{e.dim}"))
            return Affine.uniform(Poly.atom(e.var))  # warpSize
        if isinstance(e, ir.Name):
            return self._name_affine(e)
        if isinstance(e, ir.Cast):
            return self.affine(e.operand) if _is_integer_type(e.type) else None
        if isinstance(e, ir.Unary) and e.op in ("+", "-") and not e.postfix:
            inner = self.affine(e.operand)
            return inner if inner is None or e.op == "+" else -inner
        if isinstance(e, ir.Binary):
            return self._binary_affine(e)
        if self.is_uniform(e):
            return Affine.uniform(Poly.atom("(" + _key(e) + ")"))
        return None

    def _binary_affine(self, e: ir.Binary) -> Affine | None:
        lhs, rhs = self.affine(e.lhs), self.affine(e.rhs)
        if lhs is None or rhs is None:
            return None
        if e.op == "+":
            return lhs + rhs
        if e.op == "-":
            return lhs - rhs
        if e.op == "*":
            if lhs.is_uniform():
                return rhs.scale(lhs.const)
            if rhs.is_uniform():
                return lhs.scale(rhs.const)
            return None
        if e.op == "<<":
            shift = rhs.const.as_int() if rhs.is_uniform() else None
            if shift is not None and 0 <= shift < 31:
                return lhs.scale(Poly.const(1 << shift))
            return None
        if lhs.is_uniform() and rhs.is_uniform() and e.op in ("/", "%", ">>", "&", "|", "^"):
            return Affine.uniform(Poly.atom(f"({lhs.const}){e.op}({rhs.const})"))
        return None

    def _name_affine(self, e: ir.Name) -> Affine | None:
        sym = e.sym
        if sym in self._affine_cache:
            return self._affine_cache[sym]
        self._affine_cache[sym] = None  # guards against cycles
        result = None
        kind = self.symbols[sym].kind if sym in self.symbols else ""
        if sym and sym not in self.mutable:
            if kind == "param" and sym in self.params and _is_integer_type(self.params[sym].type):
                result = Affine.uniform(Poly.atom(f"{e.name}#{sym}"))
            elif kind == "constant":
                result = Affine.uniform(Poly.atom(f"{e.name}#{sym}"))
            elif sym in self.local_init and _is_integer_type(self.local_type.get(sym, "")):
                result = self.affine(self.local_init[sym])
        self._affine_cache[sym] = result
        return result

    def is_uniform(self, e: ir.Expr, allow_block: bool = True) -> bool:
        """Same value in every thread of a block (of the grid, with ``allow_block=False``),
        at every point of the kernel: no thread index, no memory read, no mutable variable."""
        for n in e.walk():
            if isinstance(n, (ir.Builtin, ir.BuiltinVector)):
                if n.var == "threadIdx" or (n.var == "blockIdx" and not allow_block):
                    return False
            elif isinstance(n, ir.Name):
                if not self.uniform_name(n, allow_block):
                    return False
            elif reads_memory_or_changes_state(n):
                return False
        return True

    def uniform_name(self, n: ir.Name, allow_block: bool = True) -> bool:
        sym = n.sym
        if not sym or sym in self.mutable:
            return False
        kind = self.symbols[sym].kind if sym in self.symbols else ""
        if kind in ("param", "constant", "function"):
            return True
        if sym in self.local_init:
            return self.is_uniform(self.local_init[sym], allow_block)
        return False

    # ------------------------------------------------------------------------ accesses

    def accesses(self, node: ir.Node) -> list[Access]:
        """Every shared/global memory access that ``node`` (an expression or a simple
        statement, not descending into nested statements) performs."""
        cached = self._access_cache.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        collector = AccessCollector(self)
        if isinstance(node, ir.Expr):
            collector.visit(node, "read")
        elif isinstance(node, ir.VarDecl):
            if node.init is not None:
                collector.visit(node.init, "read")
        elif isinstance(node, ir.ExprStmt):
            collector.visit(node.expr, "read")
        elif isinstance(node, ir.Return) and node.value is not None:
            collector.visit(node.value, "read")
        self._access_cache[id(node)] = (node, collector.found)  # the node is kept: ids stay unique
        return collector.found

    def target_accesses(self, target: ir.Expr, mode: str = "write") -> list[Access]:
        """The accesses of ``target`` used as an lvalue (``mode`` "write" or "rw"), including
        the reads that computing its address makes."""
        collector = AccessCollector(self)
        collector.visit(target, mode)
        return collector.found

    def deep_accesses(self, node: ir.Node) -> list[Access]:
        """All accesses of ``node`` and everything nested in it."""
        found: list[Access] = []
        for n in simple_parts(node):
            found.extend(self.accesses(n))
        return found

    def call_effects(self, name: str) -> tuple[Access, ...] | None:
        """The accesses a call to device function ``name`` makes, with pointer parameters as
        ``(formal, position)`` objects and unknown indices; None when unknown."""
        if name in self._call_cache:
            return self._call_cache[name]
        fn = self.device_bodies.get(name)
        if fn is None or name in self._in_progress:
            return None
        self._in_progress.add(name)
        try:
            inner = function_facts(fn, self.symbols, self.device_bodies, self._in_progress)
            inner._call_cache = self._call_cache
            effects = []
            for a in inner.deep_accesses(fn.body):
                effects.append(Access(a.kind, a.obj, None, None, f"{a.text} (in {name})", a.loc))
            result: tuple[Access, ...] | None = tuple(effects)
        finally:
            self._in_progress.discard(name)
        self._call_cache[name] = result
        return result


def _is_integer_type(t: str) -> bool:
    """An integer type at least as wide as ``int``: a thread index or an index computed from one
    keeps its value in it (``char`` and ``short`` could wrap and make two threads' indices equal)."""
    return unpromoted_integer_kind(t) is not None


def _key(e: ir.Expr) -> str:
    return repr(e)


def _scan_body(body: ir.Node, facts: KernelFacts) -> None:
    """One walk: mutated symbols, local declarations, ``__shared__`` declarations."""
    mutated = facts.mutable
    for n in body.walk():
        target = None
        if isinstance(n, ir.Assign):
            target = n.target
        elif isinstance(n, ir.Unary) and n.op in ("++", "--", "&"):
            target = n.operand
        elif isinstance(n, ir.VarDecl):
            if n.storage in ("shared", "shared_dynamic"):
                facts.shared[n.sym] = n
            elif n.storage == "auto":
                facts.local_type[n.sym] = n.type
                if is_reference_type(n.type):
                    if n.init is not None:
                        facts.local_ref[n.sym] = n.init
                        target = n.init  # what it names may change through it
                elif n.init is not None and not isinstance(n.init, ir.InitList):
                    facts.local_init[n.sym] = n.init
                elif n.init is None and "[" not in n.type:
                    mutated.add(n.sym)  # an uninitialized scalar gets its value later
            if target is None:
                continue
        elif isinstance(n, (ir.Call, ir.IndirectCall)):
            for arg in by_reference_arguments(n, facts.device_bodies):
                mutated.add(arg)
            if isinstance(n, ir.IndirectCall) and isinstance(n.callee, ir.Member) and not n.callee.arrow:
                # obj.f(...): a member function may change its object (whether f is const is not
                # known here).
                receiver = changed_variable(n.callee.base)
                if receiver is not None:
                    mutated.add(receiver)
            continue
        if target is None:
            continue
        sym = changed_variable(target)  # s.x = v and s.a[i] = v change s
        if sym is not None:
            mutated.add(sym)


def kernel_facts(kernel: ir.Kernel, ctx) -> KernelFacts:
    """The facts about ``kernel`` (in parallel-loop form) that the barrier passes share."""
    facts = KernelFacts(ctx.symbols, device_bodies=getattr(ctx, "device_bodies", None) or {})
    facts.params = {p.sym: p for p in kernel.params}
    _scan_body(kernel.body, facts)
    grid = ir.grid_loop(kernel)
    if grid is not None:
        for d in grid.dynamic_shared:
            facts.shared[d.sym] = d
    launch = (getattr(ctx, "launches", None) or {}).get(kernel.name)
    if launch is not None:
        facts.extents = tuple(launch.block_extent)
        by_name = {p.name: p.sym for p in kernel.params}
        for pair in launch.distinct:
            a, b = tuple(pair)
            if a in by_name and b in by_name:
                facts.distinct.add(frozenset((by_name[a], by_name[b])))
    return facts


def function_facts(fn: ir.DeviceFunction, symbols: dict[int, ir.Symbol], bodies: dict,
                   in_progress: set[str] | None = None) -> KernelFacts:
    facts = KernelFacts(symbols, device_bodies=bodies)
    facts.params = {p.sym: p for p in fn.params}
    facts.formals = {p.sym: i for i, p in enumerate(fn.params)}
    _scan_body(fn.body, facts)
    if in_progress is not None:
        facts._in_progress = in_progress
    return facts
