"""Which translated code can end its thread with a failing device ``assert``.

A failing device assert ends its thread (MocCUDA throws ``moccuda::KernelTrap``); the emitter
wraps only the code that can trap in the handler, and the fiber printer lets a trapped fiber
finish so that it holds up no barrier.  An analysis: it returns data and prints nothing.
"""

from __future__ import annotations

from foundation import ir


def may_trap(node: ir.Node, trapping: frozenset[str]) -> bool:
    """Whether ``node`` can end its thread with a failing device assert: it calls
    ``moccuda::device_assert_fail``, or a translated device function in ``trapping``."""
    return any(isinstance(n, ir.Call) and (n.func == ir.DEVICE_ASSERT_FAIL or ir.callee_name(n.func) in trapping)
               for n in node.walk())


def trapping_functions(program: ir.Program) -> frozenset[str]:
    """The translated device functions that can end their thread with a failing device assert,
    directly or through the translated functions they call."""
    trapping: set[str] = set()
    changed = True
    while changed:
        changed = False
        for fn in program.device_functions:
            if fn.name not in trapping and may_trap(fn.body, frozenset(trapping)):
                trapping.add(fn.name)
                changed = True
    return frozenset(trapping)
