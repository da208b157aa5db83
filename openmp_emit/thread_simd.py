"""Pass ``thread-simd``: mark thread loops whose iterations may run as SIMD lanes.

Requires: ``barrier-split``.  Between two barriers CUDA orders nothing between the threads of a
block, so a thread loop carries no dependence the vectorizer must respect, except through

* atomics, warp operations, ``printf``-like calls and other calls of unknown effect (a call to a
  ``__device__`` function of this file is judged by its body);
* ``volatile`` data (warp-synchronous code relies on the order of its accesses);
* a compound update of a per-block scalar (``count += p``: every thread adds to it);
* jumps out of a nested loop to the end of the thread's iteration (a ``return`` there).

Loops free of these get ``#pragma omp simd`` (``ThreadLoop.simd``).

Before::

    ThreadLoop { int i = ...; c[i] = a[i] + b[i]; }

After::

    ThreadLoop [simd] { int i = ...; c[i] = a[i] + b[i]; }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.effects import is_pure_function
from barrier.liveness import assigned_variable
from transpiler import ir
from transpiler.passes import PassContext, map_kernels, register

#: Calls that stop a loop from being SIMD, by prefix of the callee's name.
_ORDERED_PREFIXES = ("atomic", "__shfl", "__ballot", "__any", "__all", "__activemask", "__syncwarp",
                     "__match", "__reduce", "__syncthreads", "__threadfence", "printf", "fprintf", "puts",
                     "assert", "__assert", "__trap", "clock", "__nanosleep", "malloc", "free")


@register
@dataclass(frozen=True)
class ThreadSimd:
    name: str = "thread-simd"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        judge = _Judge(ctx)

        def mark(node: ir.Node) -> ir.Node:
            if isinstance(node, ir.ThreadLoop) and judge.simd_safe(node):
                return replace(node, simd=True)
            return node

        return map_kernels(program, lambda k: ir.transform(k, mark))


def threads_independent(loop: ir.ThreadLoop, ctx: PassContext) -> bool:
    """Whether the threads of ``loop`` may run in any order, or as SIMD lanes: none of the
    above (``thread-order`` asks this too)."""
    return _Judge(ctx).simd_safe(loop)


@dataclass
class _Judge:
    ctx: PassContext

    def __post_init__(self) -> None:
        self._functions: dict[str, bool] = {}

    def simd_safe(self, loop: ir.ThreadLoop) -> bool:
        declared = {n.sym for n in loop.body.walk() if isinstance(n, ir.VarDecl)}
        declared |= {kv.sym for kv in loop.kept}
        if ir.exits_from_nested_loop(loop.body):
            return False
        for n in loop.body.walk():
            if not self._node_safe(n):
                return False
            if isinstance(n, (ir.Assign, ir.Unary)) and not (isinstance(n, ir.Assign) and n.op == "="):
                sym = assigned_variable(n)
                if sym is not None and sym not in declared and not (isinstance(n, ir.Unary) and n.op == "&"):
                    return False
        return True

    def _node_safe(self, n: ir.Node) -> bool:
        if isinstance(n, (ir.Goto, ir.Label, ir.IndirectCall)):
            return False
        if isinstance(n, ir.Call):
            return self._call_safe(n)
        if isinstance(n, ir.VarDecl) and "volatile" in n.type:
            return False
        if isinstance(n, ir.Name):
            symbol = self.ctx.symbols.get(n.sym)
            return symbol is None or "volatile" not in symbol.type
        return True

    def _call_safe(self, call: ir.Call) -> bool:
        name = ir.callee_name(call.func)
        if name.startswith(_ORDERED_PREFIXES):
            return False
        if is_pure_function(call.func) or is_pure_function(name):
            return True
        fn = self.ctx.device_bodies.get(name)
        if fn is None:
            return False
        if name not in self._functions:
            self._functions[name] = False  # recursion: not SIMD
            self._functions[name] = all(self._node_safe(n) for n in fn.body.walk())
        return self._functions[name]

