"""Pass ``min-cut``: let ``barrier-split`` choose kept values by a minimum cut (paper Fig. 6).

``barrier-split`` must give every value that crosses a split point a home.  With this pass in
the pipeline (the default) it stores the fewest values and recomputes the rest
(:func:`barrier.barrier_split.choose_kept`); with ``--no-min-cut`` it keeps every crossing value
per thread, as MCUDA does, which is the baseline for the paper's ablation (Fig. 13).  The pass
itself changes no IR: it only turns the choice on.

Before (``--no-min-cut``)::

    kept: x, y, a, b, c      (every value used after the barrier)

After (default)::

    kept: x, y; recomputed: a, b, c
"""

from __future__ import annotations

from dataclasses import dataclass

from foundation import ir
from foundation.passes import PassContext, register


@register
@dataclass(frozen=True)
class MinCut:
    name: str = "min-cut"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        ctx.min_cut = True
        return program
