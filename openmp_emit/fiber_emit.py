"""Printing of the fallback lowering (pass ``fiber-lowering``): a block's threads as fibers.

A :class:`~foundation.ir.FiberLoop` prints as a call of MocCUDA's ``moccuda::fibers::run_block``
with the kernel body as a per-thread function (a lambda taking ``threadIdx`` and the block; it
captures the block's ``__shared__`` arrays and the kernel's parameters by reference), and a
:class:`~foundation.ir.FiberBarrier` as the block's ``sync()`` (``sync_warp()`` for one of warp scope,
which waits only for the lanes of the thread's warp).  A ``return`` returns from the
lambda: that thread is done.  The OpenMP loop over blocks around it is the usual ``GridLoop``.

Before::

    GridLoop { float s[64]; FiberLoop { s[threadIdx.x] = a[threadIdx.x]; FiberBarrier; ... } }

After::

    for (unsigned bx = 0; bx < gridDim.x; ++bx) {
        const uint3 blockIdx = {bx, by, bz};
        float s[64];
        moccuda::fibers::run_block(blockDim, [&](const uint3 threadIdx, moccuda::fibers::Block &fiber_block) {
            s[threadIdx.x] = a[threadIdx.x];
            fiber_block.sync();
            ...
        });
    }
"""

from __future__ import annotations

from barrier.liveness import fresh_name
from foundation.expression_printer import print_expr
from foundation import ir
from openmp_emit.device_traps import may_trap

#: What a translation unit with fiber kernels includes (after ``cuda_runtime.h``).
FIBERS_HEADER = "moccuda/fibers.h"


def uses_fibers(program: ir.Program) -> bool:
    return any(ir.contains(k, ir.FiberLoop) for k in program.kernels)


def _names_in(node: ir.Node) -> set[str]:
    names: set[str] = set()
    for n in node.walk():
        if isinstance(n, (ir.Name, ir.VarDecl, ir.Label)):
            names.add(n.name)
        elif isinstance(n, ir.Call):
            names.add(ir.callee_name(n.func))
    return names


class FiberPrinting:
    """The statement printer's methods for the fiber nodes (mixed into ``KernelPrinter``)."""

    fiber_block = ""  # the per-thread function's name for its block, while printing one


    def stmt_FiberLoop(self, s: ir.FiberLoop) -> None:
        uses_index = self.ambient or any(isinstance(n, (ir.Builtin, ir.BuiltinVector)) and n.var == "threadIdx"
                                         for n in s.walk())
        block = fresh_name("fiber_block", _names_in(s) | {"threadIdx", "blockIdx", "blockDim", "gridDim"}) \
            if ir.contains(s, ir.FiberBarrier) else ""
        index_param = "const uint3 threadIdx" if uses_index else "const uint3"
        block_param = f"moccuda::fibers::Block &{block}" if block else "moccuda::fibers::Block &"
        self.emit(f"moccuda::fibers::run_block(blockDim, [&]({index_param}, {block_param}) {{")
        saved = (self.in_thread_loop, self.breakable_depth, self.exit_flag, self.fiber_block)
        # Inside the per-thread function a return ends the thread: a plain return from the lambda.
        self.in_thread_loop, self.breakable_depth, self.exit_flag, self.fiber_block = False, 0, "", block
        if self.ambient:
            self.indent += 1
            self.emit(self.ambient_for_thread("threadIdx"))
            self.indent -= 1
        traps = may_trap(s.body, self.trapping)
        if traps:  # a thread whose assert fails returns: a finished fiber holds up no barrier
            self.indent += 1
            self.begin_trap_scope("return;")
            self.indent -= 1
        self.emit_block_contents(s.body)
        if traps:
            self.indent += 1
            self.end_trap_scope()
            self.indent -= 1
        self.in_thread_loop, self.breakable_depth, self.exit_flag, self.fiber_block = saved
        self.emit("});")

    def stmt_FiberBarrier(self, s: ir.FiberBarrier) -> None:
        if s.scope == "block":
            self.emit(f"{self.fiber_block}.sync();")
            if self.ambient:  # the other fibers of the block ran on this OpenMP thread meanwhile
                self.emit(self.ambient_for_thread("threadIdx"))
            return
        mask = print_expr(s.mask) if s.mask is not None else "0u"
        width = print_expr(s.width) if s.width is not None else "32"
        self.emit(f"{self.fiber_block}.sync_warp({s.site}u, {mask}, {width});")
        if self.ambient:
            self.emit(self.ambient_for_thread("threadIdx"))
