"""Pass ``constant-block``: a kernel every launch of which gives one constant block size reads
``blockDim`` as that constant.

Requires: ``parallel-loops`` (the grid loop).  The launch sites of the translation unit
(:mod:`cuda_front.launch_sites`) prove the block size when every launch gives the same constant
(``<<<g, 256>>>``, ``dim3 threads(16, 16)``); the barrier analyses already rely on that fact, and
a kernel other files can launch checks it at each launch (``moccuda::check_assumed_block``,
printed before anything else runs).  With ``blockDim`` a runtime value gcc must keep the thread
loops of a 1-D block's y and z dimensions (one iteration each) around every thread loop, and
cannot unroll or fully vectorize loops whose trip counts it does not know: the SDK reduction's
tree step ``if (tid < s)`` runs three nested loops and ``moccuda::threads_below(0u, s,
blockDim.x)`` per step, where with ``blockDim`` = (256, 1, 1) it is one loop to ``min(s, 256)``.

Before::

    GridLoop { ThreadLoop { ... } }                       // every launch: k<<<g, 256>>>(...)

which prints ``const dim3 blockDim = launch.block;``.  After::

    GridLoop [block: 256, 1, 1] { ThreadLoop { ... } }

which prints ``const dim3 blockDim = dim3(256u, 1u, 1u);``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from foundation import ir
from foundation.passes import PassContext, map_kernels, register


@register
@dataclass(frozen=True)
class ConstantBlock:
    name: str = "constant-block"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        def constant(kernel: ir.Kernel) -> ir.Kernel:
            grid = ir.grid_loop(kernel)
            facts = (ctx.launches or {}).get(kernel.name)
            extent = getattr(facts, "block_extent", None)
            if grid is None or extent is None or any(d is None for d in extent):
                return kernel
            return ir.replace_grid_loop(kernel, replace(grid, block_extent=tuple(extent)))

        return map_kernels(program, constant)
