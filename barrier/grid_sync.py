"""Pass ``grid-sync``: grid-wide synchronization of a cooperative launch (``grid.sync()``).

Requires: ``warp-collectives`` (which turned each ``grid.sync()`` into a call of
``moccuda::cooperative::grid_sync``, of unknown memory effect for the barrier analyses between:
when it returns, other blocks may have written any memory, so no barrier is removed, no store
forwarded and no load hoisted across it).  Runs before ``barrier-interchange``.  Guarantees: no
such call is left; a kernel with a grid-scope operation has ``GridLoop.schedule == "cooperative"``.

**Design.**  ``cudaLaunchCooperativeKernel`` promises that all blocks of the grid are resident at
once, and ``grid.sync()`` waits until every thread of every block reached it.  Two lowerings
were possible:

* split the kernel at ``grid.sync()`` at the grid level, as ``barrier-interchange`` splits a
  block at ``__syncthreads()``: one parallel loop over all blocks per phase.  Every value live
  across a grid sync would need storage per thread of the whole grid, ``__shared__`` memory would
  need storage per block of the grid, and every construct around a grid sync (the usual
  ``for (iter...) { ...; grid.sync(); }``) would have to be interchanged with the loop over
  blocks, a second copy of the block-level machinery with grid-sized storage;
* run the blocks as they run on a GPU, all at once, each on its own OS thread, and make
  ``grid.sync()`` a barrier of the block's threads followed by a barrier of the blocks.

The second is what this pass does: it is correct for any control flow the block-level lowering
accepts (the constructs around a grid sync are uniform per block, as CUDA requires of them for
every thread of the grid), costs no storage beyond the blocks' own, and keeps the block's
threads lowered by the usual split thread loops.  ``grid.sync()`` becomes a ``Barrier`` (the
block's threads all arrive) and a ``WarpSync`` whose counter is a
``moccuda::cooperative::GridPhase``: ``barrier-interchange`` splits the thread loop there and,
at block level, advances the counter, and advancing a ``GridPhase`` waits until every block of
the launch has.  The grid loop is scheduled ``cooperative``: it prints as
``moccuda::cooperative::run_grid(launch, block body)`` (``cooperative_groups.h``), which runs one
thread per block for a cooperative launch (the launch checked the grid fits:
``cudaErrorCooperativeLaunchTooLarge`` otherwise, as CUDA) and an ordinary parallel loop
otherwise, where a block reaching ``grid.sync()`` stops the program with an error naming
``cudaLaunchCooperativeKernel``.  ``grid_group::is_valid()`` tells the two apart at run time.

**Blocks that wait for each other.**  A kernel whose loop spins until an atomic read of memory
(``while (atomicAdd(&flags[task], 0) == 0) {}``), or a read through a ``volatile`` pointer
parameter (``while (flags[task] == 0) {}``), sees what another block writes relies on the
blocks being resident at once, as a small grid is on a GPU (Chai's "persistent blocks" chain
their tasks this way); run one after the other on fewer OpenMP threads than blocks, a block
waiting for a later one waits forever.  Such a kernel is scheduled ``cooperative`` too, each
spinning loop calls ``moccuda::cooperative::spin_yield()`` in every turn and ``spin_done()``
after it: ``run_grid`` runs the blocks of every launch whose grid the device could hold at once
(the size a cooperative launch is allowed) in order, as a GPU's block scheduler, as fibers on
OpenMP's threads (``moccuda/block_fibers.h``): a spinning turn switches to the next block of the
OS thread, and a thread starts another block only when its blocks wait (a finished block's
fiber, with its stack and its threads' fibers under the fallback, serves the next); beyond that
size, as an ordinary OpenMP loop, where a spinning turn yields the core.

Not translated (located errors): ``grid.sync()`` in a kernel lowered with the fiber fallback
(a loop waiting for another block is fine there: the block's thread fibers run inside its block
fiber).

Before::

    GridLoop { ThreadLoop { a[i] = 1; moccuda::cooperative::grid_sync(); b[i] = a[n - 1 - i]; } }

After::

    GridLoop [schedule: cooperative] {
        moccuda::cooperative::GridPhase grid_phase;
        ThreadLoop { a[i] = 1; Barrier; WarpSync(grid_phase); b[i] = a[n - 1 - i]; }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import fresh_name
from barrier.warp_collectives import GRID_SYNC
from foundation import ir
from foundation.diagnostics import unsupported
from foundation.passes import PassContext, map_kernels, register

#: Grid-scope operations that need the blocks run by ``moccuda::cooperative::run_grid``.
GRID_CALLS = (GRID_SYNC, "moccuda::cooperative::grid_is_valid")
PHASE_TYPE = "moccuda::cooperative::GridPhase"
#: Called first in each turn of a loop that waits for another block (``spinning_loops``): it
#: switches to another block; its presence tells the printer that the blocks wait for each other.
SPIN_YIELD = "moccuda::cooperative::spin_yield"
#: Called after such a loop: the block made progress (``run_grid`` starts more blocks only while
#: the running ones wait).
SPIN_DONE = "moccuda::cooperative::spin_done"
#: Atomic read-modify-writes that leave memory as it was when their operand is 0: a read.
_READING_WITH_ZERO = ("atomicAdd", "atomicSub", "atomicOr", "atomicXor")


def _is_atomic_read(n: ir.Node) -> bool:
    """``atomicAdd(p, 0)`` and the like (any scope suffix), or ``__nv_atomic_load_n``."""
    if not isinstance(n, ir.Call):
        return False
    name = ir.callee_name(n.func)
    if name.startswith("__nv_atomic_load"):
        return True
    return (name.startswith(_READING_WITH_ZERO) and len(n.args) == 2 and isinstance(n.args[1], ir.Literal)
            and n.args[1].text.strip("()") in ("0", "0u", "0U"))


def _is_volatile_global_read(n: ir.Node, symbols: dict[int, ir.Symbol]) -> bool:
    """``flags[i]`` or ``*flag`` through a kernel parameter declared ``volatile T *``."""
    base = n.base if isinstance(n, ir.Index) else n.operand if isinstance(n, ir.Unary) and n.op == "*" else None
    symbol = symbols.get(base.sym) if isinstance(base, ir.Name) else None
    return symbol is not None and symbol.kind == "param" and "volatile" in symbol.type and "*" in symbol.type


def spinning_loops(grid: ir.GridLoop, symbols: dict[int, ir.Symbol]) -> list[ir.Stmt]:
    """The loops of the kernel whose condition reads global memory atomically, or through a
    ``volatile`` pointer parameter: they wait until another thread, of another block as like as
    not, writes it.  (A spin lock's atomicCAS and the CAS loop of an atomic update write what they
    read: not waits for another block.)"""
    return [n for n in grid.walk() if _spins(n, symbols)]


def _spins(n: ir.Node, symbols: dict[int, ir.Symbol]) -> bool:
    return isinstance(n, (ir.While, ir.DoWhile, ir.For)) and n.cond is not None \
        and any(_is_atomic_read(e) or _is_volatile_global_read(e, symbols) for e in n.cond.walk())


def _yield_in(loop: ir.Stmt) -> ir.Stmt:
    pause = ir.ExprStmt(ir.Call(SPIN_YIELD, (), loc=loop.loc), loc=loop.loc)
    done = ir.ExprStmt(ir.Call(SPIN_DONE, (), loc=loop.loc), loc=loop.loc)
    return ir.Block((replace(loop, body=ir.Block((pause,) + ir.as_block(loop.body).stmts, loc=loop.loc)), done),
                    loc=loop.loc)


def _is_grid_sync(s: ir.Node) -> bool:
    return isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Call) and s.expr.func == GRID_SYNC


@register
@dataclass(frozen=True)
class GridSync:
    name: str = "grid-sync"
    required: bool = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None:
            return kernel
        calls = [n for n in grid.walk() if isinstance(n, ir.Call) and n.func in GRID_CALLS]
        spinning = spinning_loops(grid, ctx.symbols)
        if spinning:
            grid = ir.transform(grid, lambda n: _yield_in(n) if _spins(n, ctx.symbols) else n)
        if not calls and not spinning:
            return kernel
        syncs = [c for c in calls if c.func == GRID_SYNC]
        if syncs and ir.contains(grid, ir.FiberLoop):
            raise unsupported(syncs[0].loc, "grid.sync() in a kernel lowered with the fiber fallback (the "
                                            "kernel's other constructs need it; see the warning)")
        loc = kernel.loc
        body = grid.body
        if syncs:
            used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
            name = fresh_name("grid_phase", used)
            phase = ir.VarDecl(ctx.fresh_sym(name, PHASE_TYPE, "local", loc), name, PHASE_TYPE, None, loc=loc)

            def split(n: ir.Node) -> ir.Node:
                # Bottom-up: a grid sync becomes a block of two statements, spliced into the
                # statement list around it when there is one.
                if _is_grid_sync(n):
                    return ir.Block((ir.Barrier(loc=n.loc), ir.WarpSync(phase.name, phase.sym, loc=n.loc)), loc=n.loc)
                if isinstance(n, ir.Block):
                    stmts: list[ir.Stmt] = []
                    for s in n.stmts:
                        spliced = isinstance(s, ir.Block) and len(s.stmts) == 2 and isinstance(s.stmts[1], ir.WarpSync) \
                            and s.stmts[1].epoch_sym == phase.sym
                        stmts.extend(s.stmts if spliced else (s,))
                    return replace(n, stmts=tuple(stmts))
                return n

            body = ir.transform(body, split)
            body = replace(body, stmts=(phase,) + body.stmts)
        return ir.replace_grid_loop(kernel, replace(grid, body=body, schedule="cooperative"))
