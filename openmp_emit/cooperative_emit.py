"""Printing of a cooperative grid (pass ``grid-sync``): the blocks of a kernel that uses
``grid.sync()`` all at once, each on its own thread.

A ``GridLoop`` scheduled ``cooperative`` prints as a call of ``moccuda::cooperative::run_grid``
(``cooperative_groups.h``) with the block's code as a lambda taking the block's coordinates; it
captures the kernel's parameters by reference, and declares the block's ``__shared__`` storage
(on the stack of the block's thread) and its ``GridPhase``.  The block's threads run serially.

Before::

    GridLoop [schedule: cooperative] { GridPhase grid_phase; ThreadLoop {...}; ++grid_phase; ThreadLoop {...} }

After::

    moccuda::cooperative::run_grid(launch, [&](const unsigned bx, const unsigned by, const unsigned bz) {
        const uint3 blockIdx = {bx, by, bz};
        moccuda::cooperative::GridPhase grid_phase;
        for (unsigned tx = 0; tx < blockDim.x; ++tx) {...}
        ++grid_phase;
        for (unsigned tx = 0; tx < blockDim.x; ++tx) {...}
    });
"""

from __future__ import annotations

from foundation import ir
from foundation.expression_printer import declare, pointer_to_element


class CooperativePrinting:
    """The statement printer's method for a cooperative grid (mixed into ``KernelPrinter``)."""

    def cooperative_grid(self, s: ir.GridLoop) -> None:

        from barrier.grid_sync import SPIN_YIELD

        bx, by, bz = self.names.block
        self.emit(f"moccuda::cooperative::run_grid(launch, [&](const unsigned {bx}, const unsigned {by}, "
                  f"const unsigned {bz}) {{")
        # Blocks that wait for each other run at once for any launch the device could hold.
        waits = any(isinstance(n, ir.Call) and n.func == SPIN_YIELD for n in s.walk())
        self.indent += 1
        self.block_index(s)
        if s.dynamic_shared or s.binds_dynamic_shared:
            self.emit(f"void *const {self.names.dynamic_shared} = moccuda::dynamic_shared_memory(launch.shared_bytes);")
        if s.binds_dynamic_shared and not s.dynamic_shared:
            self.emit(f"(void){self.names.dynamic_shared};  // for moccuda::block_dynamic_shared()")
        for d in s.dynamic_shared:
            self.emit(f"{declare(pointer_to_element(d.type), d.name)} = "
                      f"static_cast<{pointer_to_element(d.type)}>({self.names.dynamic_shared});")
        for child in s.body.stmts:
            self.stmt(child)
        self.indent -= 1
        self.emit("}, /*blocks_wait_for_each_other=*/true);" if waits else "});")
