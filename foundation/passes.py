"""The pass registry, the pass context and the pipeline runner.

A pass is a small frozen dataclass with a kebab-case ``name`` and a ``run(program, ctx)`` that
returns a new :class:`~foundation.ir.Program`.  Which passes exist and in what order
the default pipeline runs them is the driver's knowledge (:mod:`transpiler.pipeline`): this
module knows no pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from foundation import ir
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc


@dataclass
class KernelReport:
    """What the passes did to one kernel, for ``--explain``."""

    name: str
    line: int
    barriers: list[dict] = field(default_factory=list)
    hoisted: list[dict] = field(default_factory=list)
    kept_values: list[dict] = field(default_factory=list)
    lowering: str = "split"
    schedule: str = ""
    #: Streams whose next-block lines are prefetched (``block-prefetch``): pointer and line.
    prefetched: list[dict] = field(default_factory=list)
    #: Loops moved out of the thread loop (``loop-interchange``): line, running indices.
    interchanged: list[dict] = field(default_factory=list)
    #: Calls inlined so that ``loop-interchange`` moves their loop (``inline-for-interchange``):
    #: the call's line, the functions, the line of the loop.
    inlined: list[dict] = field(default_factory=list)
    #: Subscripts computed in 64 bits behind a block-level test (``wide-subscripts``): line, text.
    widened: list[dict] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"name": self.name, "line": self.line, "barriers": self._merged_barriers(),
                "hoisted": self.hoisted, "kept_values": self.kept_values, "lowering": self.lowering,
                "schedule": self.schedule, "prefetched": self.prefetched, "interchanged": self.interchanged,
                "inlined": self.inlined, "widened": self.widened}

    def _merged_barriers(self) -> list[dict]:
        """One entry per barrier: when several passes speak of the same barrier (the analysis
        keeps it, the lowering splits at it), the reasons join and the most telling action
        stands: "eliminated", then "moved", then "kept"."""
        rank = {"kept": 0, "moved": 1, "eliminated": 2}
        merged: dict[tuple[int, int], dict] = {}
        for entry in self.barriers:
            key = (entry["line"], entry["column"])
            old = merged.get(key)
            if old is None:
                merged[key] = dict(entry)
                continue
            action = max(old["action"], entry["action"], key=lambda a: rank.get(a, 0))
            reason = old["reason"] if entry["reason"] == old["reason"] else f"{old['reason']}; {entry['reason']}"
            merged[key] = {**old, "action": action, "reason": reason}
        return list(merged.values())


@dataclass
class PassContext:
    """Shared state of one pipeline run: the symbol table, warnings and the report."""

    symbols: dict[int, ir.Symbol]
    warnings: list[Diagnostic] = field(default_factory=list)
    reports: dict[str, KernelReport] = field(default_factory=dict)
    lowering: str = "auto"
    #: The OpenMP schedule asked for (``openmp_emit.schedule``): auto, blocks, flat or nested.
    schedule: str = "auto"
    #: Whether ``launch-regions`` ran: host launches may then share parallel regions.
    launch_regions: bool = False
    #: Whether ``min-cut`` ran: ``barrier-split`` then recomputes what it need not keep.
    min_cut: bool = False
    #: ``--reassociate-reductions``: floating-point sums may be reassociated (integer sums are
    #: exact in any order and always may).
    reassociate_floating: bool = False
    #: IR of the translation unit's ``__device__`` functions by name, for analysis only (the
    #: barrier passes read what a called function accesses); overloaded names are left out.
    device_bodies: dict[str, ir.DeviceFunction] = field(default_factory=dict)
    #: Names of the ``__device__`` functions that synchronize (inlined by ``inline-device``),
    #: including overloaded ones, which have no entry in ``device_bodies``.
    synchronizing: frozenset[str] = frozenset()
    #: IR of each overload of an overloaded ``__device__`` name, by declaration (``ir.Call.decl``):
    #: ``inline-device`` inlines the one a call means.
    device_overloads: dict[str, ir.DeviceFunction] = field(default_factory=dict)
    #: Why the body of a ``__device__`` function (by name, or by declaration for an overload) could
    #: not be converted: inlining it reports that error.
    unreadable_device_bodies: dict[str, CompileError] = field(default_factory=dict)
    #: IR of the member functions of the program's classes that synchronize, by the key of their
    #: overload set (``ir.member_key``): ``inline-device`` inlines their calls; also why one of
    #: them could not be converted.
    member_bodies: dict[str, tuple[ir.MemberFunction, ...]] = field(default_factory=dict)
    unreadable_members: dict[str, CompileError] = field(default_factory=dict)
    #: Member functions of the translation unit declare ``extern __shared__`` arrays: every
    #: kernel binds its blocks' dynamic shared memory (``GridLoop.binds_dynamic_shared``).
    binds_dynamic_shared: bool = False
    #: Device code kept as written reads the builtin vectors (``moccuda::ambient()``): every
    #: kernel sets them for each thread's code (``GridLoop.sets_ambient_index``).
    sets_ambient_index: bool = False
    #: ``__shared__`` variables declared at namespace scope, by symbol (``Converter.namespace_shared``):
    #: the kernels that use them, directly or through inlined functions, declare them per block.
    namespace_shared: dict[int, ir.VarDecl] = field(default_factory=dict)
    #: The builtin vectors each translated ``__device__`` function takes as leading arguments.
    device_builtins: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: What the kernel launch sites prove, by kernel name (``cuda_front.launch_sites.LaunchFacts``).
    launches: dict[str, object] = field(default_factory=dict)
    #: Kernels the split lowering could not express, by name, with why (``lowering="auto"``):
    #: ``fiber-lowering`` lowers them with fibers when :func:`run_pipeline` runs again.
    fallback: dict[str, Diagnostic] = field(default_factory=dict)
    _next_sym: int = -1

    def fresh_sym(self, name: str, type_: str, kind: str, loc: SourceLoc) -> int:
        sym = self._next_sym
        self._next_sym -= 1
        self.symbols[sym] = ir.Symbol(sym, name, type_, kind, loc)
        return sym

    def report(self, kernel: ir.Kernel) -> KernelReport:
        if kernel.name not in self.reports:
            self.reports[kernel.name] = KernelReport(kernel.name, kernel.loc.line)
        return self.reports[kernel.name]


@dataclass
class SplitUnsupported(CompileError):
    """The split lowering cannot express ``kernel`` (the fiber fallback can).  With
    ``--lowering=auto`` the pipeline runs again with that kernel lowered by ``fiber-lowering``
    (and a warning); with ``--lowering=split`` it is the error it carries."""

    kernel: str = ""
    what: str = ""


def split_unsupported(loc: SourceLoc, what: str) -> SplitUnsupported:
    """The error for something the split lowering cannot express; ``what`` names it."""
    return SplitUnsupported([Diagnostic("error", loc, f"{what} is not supported by the split lowering "
                                                      "(--lowering=fallback runs the kernel's threads as fibers)")],
                            what=what)


class Pass(Protocol):
    name: str
    required: bool

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program: ...


PASS_REGISTRY: dict[str, Callable[[], Pass]] = {}


def register(cls):
    """Class decorator: make a pass available by its ``name``."""
    PASS_REGISTRY[cls.name] = cls
    return cls


def map_kernels(program: ir.Program, fn: Callable[[ir.Kernel], ir.Kernel]) -> ir.Program:
    kernels = []
    for k in program.kernels:
        try:
            kernels.append(fn(k))
        except SplitUnsupported as exc:
            exc.kernel = exc.kernel or k.name  # which kernel needs the fallback
            raise
    return ir.Program(tuple(kernels), program.device_functions, loc=program.loc)


def run_pipeline(program: ir.Program, passes: list[Pass], ctx: PassContext) -> ir.Program:
    """Run ``passes`` in order.  With ``ctx.lowering == "auto"``, a kernel the split lowering
    cannot express (:class:`SplitUnsupported`) is recorded in ``ctx.fallback`` and the pipeline
    starts again from ``program`` with a fresh context, so ``fiber-lowering`` takes that kernel
    before any barrier pass touches it.  Each round adds a kernel, so this ends."""
    symbols, warnings, next_sym = dict(ctx.symbols), list(ctx.warnings), ctx._next_sym
    can_fall_back = ctx.lowering == "auto" and any(p.name == "fiber-lowering" for p in passes)
    while True:
        try:
            lowered = program
            for p in passes:
                lowered = p.run(lowered, ctx)
            return lowered
        except SplitUnsupported as exc:
            if not can_fall_back or not exc.kernel or exc.kernel in ctx.fallback:
                raise
            fallback = {**ctx.fallback, exc.kernel: exc.diagnostics[0]}
            ctx.symbols, ctx.warnings, ctx._next_sym = dict(symbols), list(warnings), next_sym
            ctx.reports, ctx.fallback = {}, fallback
