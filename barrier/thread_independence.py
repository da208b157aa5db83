"""Whether the threads of a thread loop may run in any order, or as SIMD lanes.

An analysis (it returns a judgement, changes nothing): ``thread-simd`` marks the loops it
accepts, and ``thread-order`` and ``loop-interchange`` ask it before they reorder threads.
Between two barriers CUDA orders nothing between the threads of a block, so a thread loop
carries no dependence, except through

* atomics, warp operations, ``printf``-like calls and other calls of unknown effect (a call to a
  ``__device__`` function of this file is judged by its body; a lowered warp collective's read of
  its exchange array, which the lanes wrote before the warp's sync point, is no concern);
* ``volatile`` data (warp-synchronous code relies on the order of its accesses);
* a compound update of a per-block scalar (``count += p``: every thread adds to it), except a
  sum the loop declares a reduction (``ThreadLoop.sums``: opt-in ``reassociate-reductions``);
* jumps out of a nested loop to the end of the thread's iteration (a ``return`` there).
"""

from __future__ import annotations

from dataclasses import dataclass

from barrier.accesses import is_pure_function
from barrier.liveness import assigned_variable
from foundation import ir
from foundation.passes import PassContext

#: Calls that stop a loop from being SIMD, by prefix of the callee's name.
_ORDERED_PREFIXES = ("atomic", "__shfl", "__ballot", "__any", "__all", "__activemask", "__syncwarp",
                     "__match", "__reduce", "__syncthreads", "__threadfence", "printf", "fprintf", "puts",
                     "assert", "__assert", "__trap", "clock", "__nanosleep", "malloc", "free")


def threads_independent(loop: ir.ThreadLoop, ctx: PassContext) -> bool:
    """Whether the threads of ``loop`` may run in any order, or as SIMD lanes: none of the
    above."""
    return _Judge(ctx).simd_safe(loop)


def simd_judge(ctx: PassContext) -> "_Judge":
    """A judge for many loops of one program: it remembers its verdict on each device function."""
    return _Judge(ctx)


#: Cooperative groups' handles of the thread's block and of a tile of it: they read and change
#: nothing (the group's rank and size are computed from the thread index where they are used).
#: The front end spells them fully qualified (``cuda_front.warp_front``).
_GROUP_HANDLES = frozenset({"cooperative_groups::this_thread_block", "cooperative_groups::tiled_partition"})


#: Texture fetches in their value form (``tex1Dfetch(tex, i)``, not ``tex1Dfetch(&v, tex, i)``,
#: which stores), by their number of arguments: reads of memory that no thread of the kernel may
#: write (a GPU's texture cache is not coherent with the kernel's own stores), so any order of
#: the threads reads the same values.
TEXTURE_FETCH_ARGS = {"tex1Dfetch": 2, "tex1D": 2, "tex2D": 3, "tex3D": 4}


def _reads_warp_exchange(call: ir.Call, changed: set[int]) -> bool:
    """Is ``call`` phase B of a lowered warp collective (``moccuda::warp``, pass
    ``warp-collectives``) that reads exchange and stamp arrays no thread of the loop writes?  It
    then reads only what the lanes wrote before the warp's sync point, in any order of the
    lanes."""
    if not call.func.startswith("moccuda::warp::"):
        return False
    arrays = [a.lhs if isinstance(a, ir.Binary) else a for a in call.args[:2]]
    return all(isinstance(a, ir.Name) and a.sym not in changed
               for a in arrays if not (isinstance(a, ir.Literal) and a.text == "nullptr"))


@dataclass
class _Judge:
    ctx: PassContext

    def __post_init__(self) -> None:
        self._functions: dict[str, bool] = {}

    def simd_safe(self, loop: ir.ThreadLoop) -> bool:
        declared = {n.sym for n in loop.body.walk() if isinstance(n, ir.VarDecl)}
        declared |= {kv.sym for kv in loop.kept}
        declared |= {n.sym for n in loop.sums}  # summed in any order by the lanes (a reduction)
        if ir.exits_from_nested_loop(loop.body):
            return False
        changed = {sym for n in loop.body.walk() if (sym := assigned_variable(n)) is not None}
        for n in loop.body.walk():
            if isinstance(n, ir.Call) and _reads_warp_exchange(n, changed):
                continue
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
        if TEXTURE_FETCH_ARGS.get(name) == len(call.args) or call.func.split("<", 1)[0] in _GROUP_HANDLES:
            return True
        fn = self.ctx.device_bodies.get(name)
        if fn is None:
            return False
        if name not in self._functions:
            self._functions[name] = False  # recursion: not SIMD
            self._functions[name] = all(self._node_safe(n) for n in fn.body.walk())
        return self._functions[name]

