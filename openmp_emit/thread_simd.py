"""Pass ``thread-simd``: mark thread loops whose iterations may run as SIMD lanes.

Requires: ``barrier-split``.  A thread loop whose threads are independent (the analysis in
:mod:`barrier.thread_independence`: no atomics, warp operations, ordered calls, ``volatile``
data, compound updates of per-block scalars or jumps out of nested loops) can run its
iterations as SIMD lanes.

Those loops get ``#pragma omp simd`` (``ThreadLoop.simd``).

Before::

    ThreadLoop { int i = ...; c[i] = a[i] + b[i]; }

After::

    ThreadLoop [simd] { int i = ...; c[i] = a[i] + b[i]; }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.thread_independence import simd_judge
from foundation import ir
from foundation.passes import PassContext, map_kernels, register


@register
@dataclass(frozen=True)
class ThreadSimd:
    name: str = "thread-simd"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        judge = simd_judge(ctx)

        def mark(node: ir.Node) -> ir.Node:
            if isinstance(node, ir.ThreadLoop) and judge.simd_safe(node):
                return replace(node, simd=True)
            return node

        return map_kernels(program, lambda k: ir.transform(k, mark))
