"""Pass ``fiber-lowering``: the fallback barrier lowering, each CUDA thread of a block a fiber.

Requires: ``parallel-loops`` and ``inline-device`` (the barriers of called functions are in the
kernel).  Runs before the barrier optimizations, which leave a :class:`~foundation.ir.FiberLoop`
alone, so a kernel lowered here is translated as written: it is the reference the split lowering
is tested against.

Which kernels (``PassContext.lowering``):

* ``fallback``: every kernel whose threads synchronize (a ``__syncthreads()``, a warp or block
  collective, ``volatile`` shared memory of legacy warp-synchronous code) or with a ``goto``;
* ``auto``: the kernels the split lowering cannot express: a ``goto`` (found here), or what
  ``barrier-interchange``/``barrier-split`` refused with :class:`~foundation.passes.SplitUnsupported`
  (``run_pipeline`` records the kernel in ``ctx.fallback`` and runs the pipeline again).  Each
  gets a warning ``...: using the fiber fallback lowering``;
* ``split``: none; a ``goto`` is an error.

A ``__syncthreads()`` inside an ``if``, loop or ``switch`` whose condition is computed from
``threadIdx`` (undefined behaviour in CUDA; the split lowering refuses it) gets a located warning
with a note at the condition: the fibers give it one meaning, the threads that skip it wait at
their next barrier or their end.

The block's thread loop becomes a ``FiberLoop``: the emitter prints its body as a per-thread
function that MocCUDA's ``moccuda::fibers::run_block`` runs once per thread of the block, each on
its own stack (``moccuda/include/moccuda/fibers.h``).  A barrier becomes a ``FiberBarrier``, which
suspends the thread until every thread of the block that has not returned has reached a barrier;
a ``return`` ends the thread.  No value needs a home across a barrier: each thread keeps its own
stack.

Before::

    GridLoop {
        float s[64];
        ThreadLoop { s[threadIdx.x] = a[threadIdx.x]; Barrier; switch (m) { case 0: Barrier; ... } }
    }

After::

    GridLoop {
        float s[64];
        FiberLoop { s[threadIdx.x] = a[threadIdx.x]; FiberBarrier; switch (m) { case 0: FiberBarrier; ... } }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier import uniformity
from barrier.uniformity import Level
from foundation import ir
from foundation.diagnostics import CompileError, Diagnostic, error, unsupported
from foundation.passes import PassContext, map_kernels, register

REASON = "threads of the block run as fibers that wait here (fallback lowering)"


def first_goto(kernel: ir.Kernel) -> ir.Stmt | None:
    """The kernel's first ``goto`` or label as written by the user (this pass runs before any
    pass that makes jumps of its own)."""
    return next((n for n in kernel.walk() if isinstance(n, (ir.Goto, ir.Label))), None)


def synchronizes(grid: ir.GridLoop) -> bool:
    """Do the block's threads synchronize: a ``__syncthreads()``, a warp or block collective
    (``grid.sync()`` is no fiber's business: ``grid-sync`` refuses it in a fiber kernel), or
    ``volatile`` memory, through which legacy warp-synchronous code exchanges in lockstep?"""
    for n in grid.walk():
        if isinstance(n, ir.Barrier) or (isinstance(n, ir.WarpCollective) and n.scope != "grid"):
            return True
        type_ = n.type if isinstance(n, (ir.VarDecl, ir.Cast)) else ""
        if "volatile" in type_ and ("*" in type_ or "[" in type_):
            return True
    return False


def fallback_reason(kernel: ir.Kernel, ctx: PassContext) -> Diagnostic | None:
    """Why ``kernel`` takes the fiber lowering (a warning to print in ``auto`` mode), or None when
    the split lowering takes it."""
    grid = ir.grid_loop(kernel)
    if grid is None:
        return None
    jump = first_goto(kernel)
    if ctx.lowering == "split":
        if jump is not None:
            raise unsupported(jump.loc, "goto and labels in device code with --lowering=split (the fiber "
                              "fallback lowering translates them)")
        return None
    if ctx.lowering == "fallback":
        if jump is not None or synchronizes(grid):
            return Diagnostic("note", kernel.loc, "--lowering=fallback")
        return None
    if kernel.name in ctx.fallback:
        why = ctx.fallback[kernel.name]
        what = why.message.split(" is not supported", 1)[0]
        return Diagnostic("warning", why.loc, f"the split lowering cannot express {what} (kernel "
                                              f"'{kernel.name}'): using the fiber fallback lowering")
    if jump is not None:
        return Diagnostic("warning", jump.loc, f"the split lowering cannot express goto (kernel '{kernel.name}'): "
                                               "using the fiber fallback lowering")
    return None


def divergent_barriers(kernel: ir.Kernel, ctx: PassContext) -> list[Diagnostic]:
    """A warning for each ``__syncthreads()`` (or ``__syncthreads_count/and/or``) under control
    that differs between the threads of a block (:mod:`barrier.uniformity`: a condition computed
    from ``threadIdx`` or an atomic's result, through locals, calls and per-thread memory): in
    CUDA every thread of a block must reach the same barrier (undefined behaviour otherwise: a
    hang, or on some GPUs a barrier paired with another).  The fibers translate it with one
    meaning, which is what such code usually expects (threads that skip a barrier wait at their
    next barrier or their end, as threads that returned do), so it is a warning, not an error; the
    split lowering refuses it."""
    found = uniformity.for_kernel(kernel, ctx)
    warnings = []
    for node in kernel.walk():
        if not (isinstance(node, ir.Barrier) or (isinstance(node, ir.WarpCollective) and node.scope == "block")):
            continue
        if isinstance(node, ir.WarpCollective) and node.op == "reduce":
            continue  # a tile of several warps: its own threads reach it together, valid CUDA where other tiles do not
        d = found.barriers.get(id(node))
        if d is not None and d.level == Level.VARYING:
            cond = getattr(d.node, "cond", None)
            where = cond if isinstance(cond, ir.Expr) and cond.loc.line else d.node
            warnings.append(_divergent_warning(node, where if where is not None else node, d.why))
    return warnings


def _divergent_warning(barrier: ir.Node, cond: ir.Node, why: str) -> Diagnostic:
    what = "__syncthreads()" if isinstance(barrier, ir.Barrier) else "this block-wide vote"
    note = "taken by some threads only" if isinstance(cond, (ir.Break, ir.Continue, ir.Return)) else "the condition"
    message = (f"{what} is under a condition that depends on {why}: in CUDA every thread of a block "
               "must reach the same barriers (undefined behaviour otherwise); the fiber fallback lowering "
               "lets the threads that skip it wait at their next barrier or their end")
    return Diagnostic("warning", barrier.loc, message, (Diagnostic("note", cond.loc, note),))


def to_fibers(node: ir.Node) -> ir.Node:
    """The thread loops of a grid loop as fiber loops, their barriers as fiber barriers."""
    def rewrite(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Barrier):
            return ir.FiberBarrier(loc=n.loc)
        if isinstance(n, ir.ThreadLoop):
            return ir.FiberLoop(n.body, loc=n.loc)
        return n
    return ir.transform(node, rewrite)


def check_labels(kernel: ir.Kernel) -> None:
    """Labels are per function in C++, and each kernel body becomes one function: a label that
    appears twice (a synchronizing device function with a label, inlined twice) cannot be printed."""
    seen: set[str] = set()
    for n in kernel.walk():
        if isinstance(n, ir.Label):
            if n.name in seen:
                raise CompileError([error(n.loc, f"the label '{n.name}' appears twice in this kernel after "
                                          "inlining its __device__ functions; this is not supported")])
            seen.add(n.name)


@register
@dataclass(frozen=True)
class FiberLowering:
    name = "fiber-lowering"
    required = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        why = fallback_reason(kernel, ctx)
        if why is None:
            return kernel
        if why.severity == "warning":
            ctx.warnings.append(why)
        check_labels(kernel)
        ctx.warnings.extend(divergent_barriers(kernel, ctx))
        grid = ir.grid_loop(kernel)
        report = ctx.report(kernel)
        report.lowering = "fallback"
        for b in (n for n in grid.walk() if isinstance(n, ir.Barrier)):
            report.barriers.append({"line": b.loc.line, "column": b.loc.column, "action": "kept", "reason": REASON})
        return ir.replace_grid_loop(kernel, replace(grid, body=to_fibers(grid.body)))
