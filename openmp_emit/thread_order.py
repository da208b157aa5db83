"""Pass ``thread-order``: nest a block's serial thread loops so that the innermost one walks
memory with unit stride.

Requires: ``barrier-split`` (thread loops hold no barrier).  Guarantees: the same threads run,
each once, in another order; ``ThreadLoop.nesting`` names the dimensions from the outermost loop
to the innermost, and the emitter (and the ``flat`` schedule's chunks) follows it.

The lowering keeps CUDA's numbering, and the emitter runs ``threadIdx.x`` innermost.  A kernel
written for coalescing on a GPU may index memory with unit stride along another dimension (Rodinia
gaussian's Fan2 maps ``threadIdx.x`` to rows and ``threadIdx.y`` to columns), and then every
iteration of the innermost loop jumps a whole row.  Between two barriers CUDA orders nothing among
a block's threads, so any order of them is a valid schedule; this pass asks the same question as
``thread-simd`` (``thread_simd.threads_independent``: no atomics, warp operations, calls of
unknown effect, ``volatile`` data, compound updates of per-block scalars, jumps out of user loops)
and leaves a loop that fails it in CUDA's order.

Which dimension goes innermost: for every memory access with a known affine index
(``barrier.effects``), the last subscript is the contiguous one; a dimension whose coefficient
there is not 0 or +-1 makes the access strided along it.  The innermost loop becomes the
dimension with the fewest strided accesses, then the most unit-stride ones; ``x`` keeps its place
on ties, and another dimension is taken only when every launch of the kernel gives it a constant
extent above 1 (an extent of 1 would leave a one-trip SIMD loop).  The other two keep their order.

Before (``a[row * n + col]`` with ``row`` from ``threadIdx.x``, ``col`` from ``threadIdx.y``)::

    ThreadLoop [nesting z, y, x] { int row = ... threadIdx.x; int col = ... threadIdx.y;
                                   a[row * n + col] -= m[row * n + t] * a[t * n + col]; }

After::

    ThreadLoop [nesting z, x, y] { ... the same body ... }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.accesses import Access
from barrier.affine_forms import THREAD_DIMS
from barrier.kernel_facts import kernel_facts
from barrier.thread_independence import threads_independent
from foundation import ir
from foundation.passes import PassContext, map_kernels, register


@register
@dataclass(frozen=True)
class ThreadOrder:
    name: str = "thread-order"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        def order(kernel: ir.Kernel) -> ir.Kernel:
            if ir.grid_loop(kernel) is None:
                return kernel
            facts = kernel_facts(kernel, ctx)

            def nest(node: ir.Node) -> ir.Node:
                if not isinstance(node, ir.ThreadLoop) or not threads_independent(node, ctx):
                    return node
                inner = innermost_dimension(facts.deep_accesses(node.body), facts.extents)
                if inner == node.nesting[-1]:
                    return node
                return replace(node, nesting=tuple(d for d in node.nesting if d != inner) + (inner,))

            return ir.transform(kernel, nest)

        return map_kernels(program, order)


@dataclass(frozen=True)
class StrideCounts:
    """Per thread dimension: accesses whose contiguous subscript moves by one element per thread
    along it (``unit``) and by some other step (``strided``)."""

    unit: dict[str, int]
    strided: dict[str, int]


def stride_counts(accesses: list[Access]) -> StrideCounts:
    unit = {d: 0 for d in THREAD_DIMS}
    strided = {d: 0 for d in THREAD_DIMS}
    for access in accesses:
        if not access.index:
            continue  # unknown index: says nothing about any dimension
        contiguous = access.index[-1]
        for d, coef in zip(THREAD_DIMS, contiguous.coef):
            if coef.is_zero():
                continue
            if coef.as_int() in (1, -1):
                unit[d] += 1
            else:
                strided[d] += 1
    return StrideCounts(unit, strided)


def innermost_dimension(accesses: list[Access], extents: tuple[int | None, int | None, int | None]) -> str:
    """The thread dimension the innermost serial loop should run over (see the module docstring)."""
    counts = stride_counts(accesses)

    def cost(d: str) -> tuple[int, int]:
        return counts.strided[d], -counts.unit[d]

    best = "x"
    for d in ("y", "z"):
        extent = extents[THREAD_DIMS.index(d)]
        if extent is not None and extent > 1 and cost(d) < cost(best):
            best = d
    return best

