"""Pass ``schedule``: choose how OpenMP runs each kernel's blocks and threads.

Requires: ``barrier-split``; runs after ``thread-order``, whose innermost thread dimension is the
one flat chunks.  Three schedules (``GridLoop.schedule``):

* ``blocks``: the blocks are an ``omp parallel for``; each block's threads run serially (and
  vectorized) inside it.  Works for every kernel.
* ``flat``: one ``omp parallel for collapse`` over blocks x chunks of 64 threads, each chunk a
  SIMD loop.  Only for kernels with one thread loop and no per-block state (no ``__shared__``
  memory, no barrier left, no value kept across one): then threads are independent, and a grid
  of few large blocks still fills every core.
* ``nested``: parallel blocks, and each thread loop a parallel loop of its own inner team
  (consecutive thread loops share one inner ``omp parallel`` region).  For grids with fewer
  blocks than cores and heavy per-block work; nested parallelism is turned on only around it.

``auto`` (the default) picks ``flat`` where it applies *and its chunks are full*, ``blocks``
elsewhere.  ``blocks`` keeps a block's shared memory in one core's cache, which is what makes
shared-memory kernels fast on a CPU.  Flat's chunks run along the innermost thread dimension
only, so each row of a block is at least one chunk.  With rows shorter than 64 threads (a 16x16
block) flat runs one collapsed-loop step, with its guard bounds and SIMD loop entry, per row
instead of per block, including the rows of a block that a guard turns away entirely, which
``blocks`` skips with one bound (gaussian's Fan2).  And its SIMD loop starts at the chunk's
offset, not at 0, so gcc 12 cannot tell that an ``int`` index such as ``row * 16 + threadIdx.x``
does not wrap and leaves the loop scalar (backprop's adjust_weights; ``blocks`` vectorizes it).
Measured at one thread on those two Rodinia kernels, 16x16 blocks: flat took 1.3-1.8x the time
of blocks.  So ``auto`` takes flat only when the innermost dimension's extent is a constant of at
least 64 at every launch site, or, unknown, when the kernel indexes its threads along that
dimension alone (a 1-D kernel, launched with 1-D blocks).  Flat's gain, blocks split across
cores, only shows when a grid has fewer blocks than cores.
``--schedule=blocks|flat|nested`` applies one schedule to the whole file; a kernel that cannot
take ``flat`` keeps ``blocks``, and ``--explain`` says so, as it says why ``auto`` did not pick
flat.

Before::

    GridLoop { ThreadLoop { int i = ...; c[i] = a[i] + b[i]; } }          // launched <<<g, 256>>>
    GridLoop { ThreadLoop { a[(by*16+ty)*n + bx*16+tx] = 0; } }          // launched <<<g, (16,16)>>>

After (auto)::

    GridLoop [schedule: flat] { ThreadLoop { int i = ...; c[i] = a[i] + b[i]; } }
    GridLoop [schedule: blocks] { ThreadLoop { a[(by*16+ty)*n + bx*16+tx] = 0; } }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from openmp_emit.emit import FLAT_CHUNK
from foundation import ir
from foundation.passes import PassContext, map_kernels, register

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
                from barrier.grid_sync import SPIN_YIELD

                waits = any(isinstance(n, ir.Call) and n.func == SPIN_YIELD for n in grid.walk())
                ctx.report(kernel).schedule = ("cooperative (its blocks wait for each other: every block on its own "
                                               "thread when the device holds the grid at once)" if waits else
                                               "cooperative (grid.sync(): every block on its own thread)")
                return kernel
            flat_ok = can_be_flat(grid)
            wanted = ctx.schedule
            chosen = wanted if wanted in ("blocks", "nested") else ("flat" if flat_ok else "blocks")
            reason = chosen
            if wanted == "flat" and not flat_ok:
                reason = "blocks (flat needs one thread loop and no shared memory or kept values)"
            elif wanted == "auto" and flat_ok:
                launch = ctx.launches.get(kernel.name)
                short = short_rows(grid.body.stmts[0], getattr(launch, "block_extent", (None, None, None)))
                if short:
                    chosen, reason = "blocks", f"blocks ({short})"
            ctx.report(kernel).schedule = reason
            return ir.replace_grid_loop(kernel, replace(grid, schedule=chosen))

        return map_kernels(program, choose)


def can_be_flat(grid: ir.GridLoop) -> bool:
    """Threads of different blocks and of one block are independent: one thread loop, nothing
    per block around it."""
    stmts = grid.body.stmts
    if grid.dynamic_shared or grid.binds_dynamic_shared or len(stmts) != 1 or not isinstance(stmts[0], ir.ThreadLoop):
        return False
    loop = stmts[0]
    return not (loop.kept or loop.exit_flag or loop.stride)


def short_rows(loop: ir.ThreadLoop, extents: tuple[int | None, int | None, int | None]) -> str:
    """Why flat's chunks of ``loop`` would hold fewer than ``FLAT_CHUNK`` threads (empty when
    they are full, as far as the launches tell): a chunk never spans two rows of the innermost
    dimension.  ``extents``: the block's x, y, z sizes where every launch gives one constant."""
    inner = loop.nesting[-1]
    extent = extents["xyz".index(inner)]
    if extent is not None:
        if extent >= FLAT_CHUNK:
            return ""
        return f"block rows of {extent} along {inner}, shorter than flat's {FLAT_CHUNK}-thread chunks"
    others = sorted(d for d in thread_dimensions(loop) if d != inner)
    if others:
        return f"threads indexed along {', '.join(others)} too: flat would run each row as its own chunk"
    return ""


def thread_dimensions(loop: ir.ThreadLoop) -> set[str]:
    """The dimensions along which the loop's threads tell themselves apart: the ``threadIdx``
    components its bodies read and the dimensions of its folded guards."""
    dims = {b.dim for b in loop.bounds + loop.fast_bounds} | ({loop.stride.dim} if loop.stride else set())
    for n in loop.walk():
        if isinstance(n, ir.BuiltinVector) and n.var == "threadIdx":
            return {"x", "y", "z"}
        if isinstance(n, ir.Builtin) and n.var == "threadIdx":
            dims.add(n.dim)
    return dims
