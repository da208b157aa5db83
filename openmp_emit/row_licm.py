"""Pass ``row-licm``: compute once per row of threads what no index along the thread loop's
innermost dimension reaches, and run a row's threads only where a condition of that kind holds.

Requires: ``schedule`` (the blocks schedule runs a block's threads as serial loops, the innermost
one per row; the others collapse the loops, and run the body as it is).  A thread's code often
computes from ``threadIdx.y`` alone, in a block of 16 x 16 threads: Rodinia backprop's tree
reduction over rows, ``int power_two = __powf(2, i); if (ty % power_two == 0) w[ty][tx] += ...``,
computes the power (a call with a branch) and the remainder (a division) in each of a row's 16
threads, and gcc, which cannot move code out from under a branch, leaves the loop scalar: the
layer's kernel took 1.9x the time of Rodinia's OpenMP loop, the whole program 0.30 s against 0.24.

The body's top-level declarations whose initializers read no memory, call only pure
functions and name only the block's values (parameters, variables declared outside the loop and
not assigned in it, builtin indices other than the innermost thread index) and earlier such
declarations, and whose variables the loop never assigns, have the same value in every thread
of a row.  The pass moves into a prelude those that a row guard needs or that call a function
(what gcc leaves in the loop), and makes the body's last statement, an ``if`` whose condition is
of the same kind, the row's guard: the row runs its threads' loop over the statements before the
``if`` and its branch only where the guard holds (over the other branch, if any, where it does
not; over the statements before the ``if`` where they may do something).  Every thread of the
row computed the prelude and the guard before, with the same values, and a row has at least one
thread: the pass leaves loops whose innermost dimension has folded bounds (a row may be empty),
loops with ``return``, and loops other passes copied (full-block or widened versions).

Before (backprop's tree)::

    ThreadLoop [simd] { int tx = threadIdx.x; int ty = threadIdx.y; int power_two = __powf(2, i);
                        if (ty % power_two == 0) { w[ty][tx] = w[ty][tx] + w[ty + power_two / 2][tx]; } }

After::

    ThreadLoop [simd, row: prelude (int ty = threadIdx.y; int power_two = __powf(2, i);)
                           guard ty % power_two == 0 then { int tx = threadIdx.x; {...} }] {...}

which prints as::

    for (unsigned ty_ = 0; ty_ < blockDim.y; ++ty_) {
        int ty = ty_;
        int power_two = __powf(2, i);
        if (ty % power_two == 0) {
            #pragma omp simd
            for (unsigned tx_ = 0; tx_ < blockDim.x; ++tx_) { ... }
        }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.accesses import is_pure_function, reads_memory_or_changes_state
from barrier.liveness import assigned_symbols, used_symbols
from foundation import ir
from foundation.expression_printer import print_expr, var_decl_text
from foundation.integer_types import unpromoted_integer_kind
from foundation.passes import PassContext, map_kernels, register
from foundation.scalar_types import scalar_kind

#: Statements after which a thread may not reach the rest of its body.
_EXITS = (ir.Return, ir.NextThread, ir.Goto, ir.Label)


@register
@dataclass(frozen=True)
class RowLicm:
    name: str = "row-licm"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _split_kernel(k, ctx))


def _split_kernel(kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
    grid = ir.grid_loop(kernel)
    if grid is None or grid.schedule != "blocks" or grid.sets_ambient_index:
        return kernel
    report = ctx.report(kernel)

    def split(node: ir.Node) -> ir.Node:
        if not isinstance(node, ir.ThreadLoop):
            return node
        row = row_split(node, ctx)
        if row is None:
            return node
        for decl in row.prelude:
            report.hoisted.append({"line": decl.loc.line, "text": var_decl_text(decl), "to": "row"})
        if row.guard is not None:
            report.hoisted.append({"line": row.guard.loc.line, "text": f"if ({print_expr(row.guard)})", "to": "row"})
        return replace(node, row=row)

    return ir.replace_grid_loop(kernel, ir.transform(grid, split))


def row_split(loop: ir.ThreadLoop, ctx: PassContext) -> ir.RowSplit | None:
    """``loop``'s body split at its innermost dimension (module docstring), or None where there
    is nothing worth moving or the loop does not qualify."""
    inner = loop.nesting[-1]
    if (loop.skip_exited or loop.marks_exit or loop.fast_body is not None or loop.wide or loop.row
            or any(b.dim == inner for b in loop.bounds) or (loop.stride and loop.stride.dim == inner)
            or any(isinstance(n, _EXITS) for n in loop.body.walk())):
        return None
    stmts = loop.body.stmts
    # Only a last `if` or a declaration that calls a function can be worth moving: most loops
    # have neither, and need no walk over their body.
    if not (stmts and isinstance(stmts[-1], ir.If)) and not any(
            isinstance(s, ir.VarDecl) and s.init is not None and ir.contains(s.init, ir.Call) for s in stmts):
        return None
    rule = _RowInvariance(loop, ctx, inner)
    invariant: dict[int, ir.VarDecl] = {}
    for s in stmts:
        if isinstance(s, ir.VarDecl) and rule.declaration(s, invariant):
            invariant[s.sym] = s
    last = stmts[-1] if stmts else None
    guard = last.cond if isinstance(last, ir.If) and not last.constexpr and rule.expr(last.cond, invariant) else None
    wanted = _needed(guard, invariant) if guard is not None else set()
    for sym, decl in invariant.items():
        if ir.contains(decl.init, ir.Call):
            wanted |= _needed(decl.init, invariant) | {sym}
    if not wanted:
        return None
    prelude = tuple(d for sym, d in invariant.items() if sym in wanted)
    moved = {id(d) for d in prelude}
    rest = tuple(s for s in stmts if id(s) not in moved)
    if guard is None:
        return ir.RowSplit(prelude, None, replace(loop.body, stmts=rest))
    before, branch = rest[:-1], rest[-1]
    then = _joined(before, branch.then)
    if branch.otherwise is not None:
        otherwise = _joined(before, branch.otherwise)
    else:
        otherwise = None if all(_effect_free(s) for s in before) else ir.Block(before, loc=loop.body.loc)
    return ir.RowSplit(prelude, guard, then, otherwise)


def _needed(e: ir.Node, invariant: dict[int, ir.VarDecl]) -> set[int]:
    """The invariant declarations ``e`` reads, and those they read in turn."""
    needed: set[int] = set()
    pending = [e]
    while pending:
        for sym in used_symbols(pending.pop()):
            if sym in invariant and sym not in needed:
                needed.add(sym)
                pending.append(invariant[sym].init)
    return needed


def _joined(before: tuple[ir.Stmt, ...], branch: ir.Stmt) -> ir.Block:
    """The statements ``before`` followed by ``branch``'s: in one scope unless the branch
    declares a name that they declare too (it shadows theirs, as nested in the ``if``)."""
    inner = ir.as_block(branch)
    declared = {s.name for s in before if isinstance(s, ir.VarDecl)}
    if any(isinstance(s, ir.VarDecl) and s.name in declared for s in inner.stmts):
        return ir.Block(before + (inner,), loc=inner.loc)
    return ir.Block(before + inner.stmts, loc=inner.loc)


def _effect_free(s: ir.Stmt) -> bool:
    """Whether leaving ``s`` out changes nothing but the values it would declare: an empty
    statement, or a declaration of a scalar whose initializer writes nothing and calls only
    pure functions (a read it would make may be left out)."""
    if isinstance(s, ir.Empty):
        return True
    if not isinstance(s, ir.VarDecl) or s.storage != "auto" or not _scalar(s.type):
        return False
    return s.init is None or not any(
        isinstance(n, (ir.Assign, ir.IndirectCall)) or (isinstance(n, ir.Unary) and n.op in ("++", "--"))
        or (isinstance(n, ir.Call) and not is_pure_function(n.func)) for n in s.init.walk())


def _scalar(type_text: str) -> bool:
    """A scalar other than a pointer, and not an integer narrower than ``int`` (its arithmetic
    happens in ``int``: its declared type does not say what a computation's value is)."""
    kind = scalar_kind(type_text)
    return kind in ("floating", "bool") or (kind == "integer" and unpromoted_integer_kind(type_text) is not None)


@dataclass
class _RowInvariance:
    """Whether expressions of ``loop``'s body have one value in every thread of a row."""

    loop: ir.ThreadLoop
    ctx: PassContext
    inner: str

    def __post_init__(self) -> None:
        self.declared = {n.sym for n in self.loop.body.walk() if isinstance(n, ir.VarDecl)}
        self.assigned = assigned_symbols(self.loop.body, self.ctx.device_bodies)
        self.kept = {kv.sym for kv in self.loop.kept}
        # Names the body gives to more than one variable: a declaration of one of them moved to
        # the row's scope would hide another from the statements before it.
        syms_by_name: dict[str, set[int]] = {}
        for n in self.loop.body.walk():
            if isinstance(n, (ir.Name, ir.VarDecl)):
                syms_by_name.setdefault(n.name, set()).add(n.sym)
        self.shadowed = {name for name, syms in syms_by_name.items() if len(syms) > 1}

    def declaration(self, s: ir.VarDecl, invariant: dict[int, ir.VarDecl]) -> bool:
        return (s.storage == "auto" and s.init is not None and _scalar(s.type) and s.sym not in self.assigned
                and s.name not in self.shadowed and not isinstance(s.init, ir.InitList)
                and self.expr(s.init, invariant))

    def expr(self, e: ir.Expr, invariant: dict[int, ir.VarDecl]) -> bool:
        for n in e.walk():
            if reads_memory_or_changes_state(n) or isinstance(n, ir.Construct):
                return False
            if isinstance(n, ir.Builtin) and n.var == "threadIdx" and n.dim == self.inner:
                return False
            if isinstance(n, ir.BuiltinVector) and n.var == "threadIdx":
                return False
            if isinstance(n, ir.Name) and n.sym not in invariant and not self._block_value(n.sym):
                return False
        return True

    def _block_value(self, sym: int) -> bool:
        """A variable every thread of the loop reads with one value: declared outside the loop
        and not assigned in it (a parameter, a block-level or ``__shared__`` variable, a
        constant)."""
        if sym in self.declared or sym in self.assigned or sym in self.kept:
            return False
        symbol = self.ctx.symbols.get(sym)
        if symbol is None or "&" in symbol.type:
            return False
        return symbol.kind in ("param", "local", "shared") or (symbol.kind == "global" and "const" in symbol.type.split())
