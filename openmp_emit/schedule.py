"""Pass ``schedule``: choose how OpenMP runs each kernel's blocks and threads.

Requires: ``barrier-split``.  Three schedules (``GridLoop.schedule``):

* ``blocks``: the blocks are an ``omp parallel for``; each block's threads run serially (and
  vectorized) inside it.  Works for every kernel.
* ``flat``: one ``omp parallel for collapse`` over blocks x chunks of 64 threads, each chunk a
  SIMD loop.  Only for kernels with one thread loop and no per-block state (no ``__shared__``
  memory, no barrier left, no value kept across one): then threads are independent, and a grid
  of few large blocks still fills every core.
* ``nested``: parallel blocks, and each thread loop a parallel loop of its own inner team
  (consecutive thread loops share one inner ``omp parallel`` region).  For grids with fewer
  blocks than cores and heavy per-block work; nested parallelism is turned on only around it.

``auto`` (the default) picks ``flat`` where it applies and ``blocks`` elsewhere: ``blocks``
keeps a block's shared memory in one core's cache, which is what makes shared-memory kernels
fast on a CPU.  ``--schedule=blocks|flat|nested`` applies one schedule to the whole file; a
kernel that cannot take ``flat`` keeps ``blocks``, and ``--explain`` says so.

Before::

    GridLoop { ThreadLoop { int i = ...; c[i] = a[i] + b[i]; } }

After (auto)::

    GridLoop [schedule: flat] { ThreadLoop { int i = ...; c[i] = a[i] + b[i]; } }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from transpiler import ir
from transpiler.passes import PassContext, map_kernels, register

SCHEDULES = ("auto", "blocks", "flat", "nested")


@register
@dataclass(frozen=True)
class Schedule:
    name: str = "schedule"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        def choose(kernel: ir.Kernel) -> ir.Kernel:
            grid = ir.grid_loop(kernel)
            if grid is None:
                return kernel
            if grid.schedule == "cooperative":  # grid-sync: all blocks at once, each on its own thread
                ctx.report(kernel).schedule = "cooperative (grid.sync(): every block on its own thread)"
                return kernel
            flat_ok = can_be_flat(grid)
            wanted = ctx.schedule
            chosen = wanted if wanted in ("blocks", "nested") else ("flat" if flat_ok else "blocks")
            if wanted == "flat" and not flat_ok:
                reason = "blocks (flat needs one thread loop and no shared memory or kept values)"
            else:
                reason = chosen
            ctx.report(kernel).schedule = reason
            return ir.replace_grid_loop(kernel, replace(grid, schedule=chosen))

        return map_kernels(program, choose)


def can_be_flat(grid: ir.GridLoop) -> bool:
    """Threads of different blocks and of one block are independent: one thread loop, nothing
    per block around it."""
    stmts = grid.body.stmts
    if grid.dynamic_shared or len(stmts) != 1 or not isinstance(stmts[0], ir.ThreadLoop):
        return False
    loop = stmts[0]
    return not (loop.kept or loop.exit_flag)
