"""Pass ``reassociate-reductions``: a block's halving tree reduction over a ``__shared__`` array
becomes one SIMD sum of the array, computed in any order.

Integer sums are exact in any order (the sum runs in the unsigned type of the element's width,
so it wraps as the GPU's additions do and no intermediate value overflows a signed type where
the tree's did not): those trees are summed by default.  A floating-point sum would be rounded
in a different order than CUDA's tree (``(a0 + a4) + (a2 + a6) ...``), so floating-point trees
are summed only when the user asks for it (``--reassociate-reductions``,
``TranslateOptions.reassociate_reductions``: ``PassContext.reassociate_floating``); without it
their output is the same, byte for byte.

Requires: ``barrier-split`` (the tree is a block-level loop around one thread loop).  Applies to
a top-level statement of the grid loop exactly of the form::

    for (S s = blockDim.x / 2; s > 0; s >>= 1) {       // also blockDim.x >> 1, a constant C; s != 0; s /= 2
        ThreadLoop {
            U tid = threadIdx.x;                        // declarations of threadIdx.x only
            if (tid < s) sdata[tid] += sdata[tid + s];  // or sdata[tid] = sdata[tid] + sdata[s + tid]
        }
    }

where ``sdata`` is a one-dimensional ``__shared__`` array (``T sdata[N]``, or the kernel's only
``extern __shared__ T sdata[]``) of ``float``, ``double``, ``long double`` or a standard integer
type (not ``bool``, not plain ``char``), the thread loop binds no kept values, marks no exits and
has no folded guards, every other use of ``sdata`` in the kernel subscripts it (its address does
not escape) and every use after the loop is ``sdata[0]``: the only entry in which the tree's
result and the sum agree.  The sum equals the tree's value only when every thread of the block
takes part in one tree over all ``blockDim.x`` entries, so it runs when ``blockDim.x`` is a power
of two and ``blockDim.y == blockDim.z == 1``, checked per block; otherwise the tree runs as before.
A tree whose first stride is a constant ``C`` (a power of two up to 512) sums
entries ``[0, 2C)``, when ``blockDim.x >= C`` (every thread of its first step exists) and the
block is one-dimensional.  A tree the pass does not recognise is left as it is.

Before (lowered by ``barrier-split``)::

    GridLoop {
        int sdata[256];
        ThreadLoop { ...; sdata[tid] = ...; }
        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
            ThreadLoop { unsigned int tid = threadIdx.x; if (tid < s) { sdata[tid] += sdata[tid + s]; } }
        }
        ThreadLoop { ...; if (tid == 0) { g_odata[blockIdx.x] = sdata[0]; } }
    }

After::

    GridLoop {
        int sdata[256];
        ThreadLoop { ...; sdata[tid] = ...; }
        if (blockDim.y == 1u && blockDim.z == 1u && (blockDim.x & (blockDim.x - 1u)) == 0u) {
            unsigned int block_sum = (unsigned int)sdata[0];
            SimdReduction(+: block_sum) for (unsigned int element = 1u; element < blockDim.x; ++element) {
                block_sum += (unsigned int)sdata[element];
            }
            sdata[0] = (int)block_sum;
        } else {
            for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) { ... }   // the tree, unchanged
        }
        ThreadLoop { ...; if (tid == 0) { g_odata[blockIdx.x] = sdata[0]; } }
    }

where ``SimdReduction`` prints as ``#pragma omp simd reduction(+:block_sum)`` before the loop.

Where the statement before the tree is the thread loop that fills the array, each thread ending
with ``sdata[tid] = value;`` (``tid`` = ``threadIdx.x``, never assigned) and touching ``sdata``
nowhere else, without early exits, that loop sums as it loads (no second pass over the array),
and stores only in blocks whose tree still runs: where the sum replaces the tree, nothing reads
``sdata[1 ..]`` again and ``sdata[0]`` receives the sum, so the stores are dead::

    GridLoop {
        int sdata[256];
        const bool block_summed = blockDim.y == 1u && blockDim.z == 1u && (blockDim.x & (blockDim.x - 1u)) == 0u;
        unsigned int block_sum = 0;
        ThreadLoop [sums: block_sum] {
            ...; int value = ...;
            if (!block_summed) sdata[tid] = value;
            block_sum += (unsigned int)value;
        }
        if (block_summed) {
            sdata[0] = (int)block_sum;
        } else {
            for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) { ... }   // the tree, unchanged
        }
        ThreadLoop { ...; if (tid == 0) { g_odata[blockIdx.x] = sdata[0]; } }
    }

``block_summed`` depends on the block's shape alone: g++ moves its test out of the loop, and folds
it where ``constant-block`` made the shape a constant, leaving the OpenMP reduction's loop.

``ThreadLoop.sums`` prints as ``reduction(+:block_sum)`` on the loop's ``omp simd`` (or, under
the nested schedule, its ``omp for``); a constant first stride ``C`` then needs
``blockDim.x == 2C`` (the loop's threads are exactly the tree's entries).  The kernel holding
either form is emitted as ``MOCCUDA_SUMMING_KERNEL`` (``emit.sums_a_block``): g++ unrolls its loops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from barrier.liveness import fresh_name
from foundation import ir
from foundation.integer_types import int_literal, integer_kind
from foundation.passes import PassContext, map_kernels, register
from foundation.scalar_types import FLOATING

#: The unsigned type of each integer width: integer sums run in it, so that they wrap (as the
#: tree's additions would, on the same values) instead of overflowing a signed type.
UNSIGNED_OF_WIDTH = {8: "unsigned char", 16: "unsigned short", 32: "unsigned int", 64: "unsigned long long"}
_ONE_DIMENSION = re.compile(r"^(?P<element>[^\[\]]+?)\s*\[\s*\d*\s*\]$")


@register
@dataclass(frozen=True)
class ReassociateReductions:
    name: str = "reassociate-reductions"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda kernel: reassociate_kernel(kernel, ctx))


@dataclass(frozen=True)
class Tree:
    """A recognised halving tree: the loop, the array (its declaration), its element type, and
    the first stride when it is a constant (``for (s = 128; ...)``; None for ``blockDim.x / 2``)."""

    loop: ir.For
    array: ir.VarDecl
    element: str
    first_stride: int | None = None


def reassociate_kernel(kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
    grid = ir.grid_loop(kernel)
    if grid is None:
        return kernel
    stmts = list(grid.body.stmts)
    used = _identifiers(kernel)
    changed = False
    out: list[ir.Stmt] = []
    for position, stmt in enumerate(stmts):
        tree = halving_tree(stmt, grid)
        if tree is not None and tree.element in FLOATING and not ctx.reassociate_floating:
            tree = None  # the rounding would change: only with --reassociate-reductions
        if tree is None or not _only_first_entry_after(tree.array.sym, stmts[position + 1:]):
            out.append(stmt)
            continue
        if not _array_only_subscripted(tree.array.sym, kernel.body):
            out.append(stmt)
            continue
        store = _storing_loop(out[-1], tree.array.sym) if out else None
        if store is None:
            out.append(_block_sum(tree, used, ctx))
        else:
            out[-1:] = _fused_sum(tree, out[-1], store, used, ctx)
        changed = True
    if not changed:
        return kernel
    return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=tuple(out))))


def halving_tree(stmt: ir.Stmt, grid: ir.GridLoop) -> Tree | None:
    """``stmt`` as a halving tree over a ``__shared__`` array of ``grid``, or None."""
    if not isinstance(stmt, ir.For) or not isinstance(stmt.init, ir.VarDecl):
        return None
    stride = stmt.init
    first_stride = _constant_power_of_two(stride.init)
    if integer_kind(stride.type) is None or not (_is_half_block(stride.init) or first_stride is not None):
        return None
    if not _is_positive_test(stmt.cond, stride.sym) or not _is_halving(stmt.step, stride.sym):
        return None
    loop = _only_statement(stmt.body)
    if not isinstance(loop, ir.ThreadLoop) or loop.kept or loop.exit_flag or loop.marks_exit or loop.skip_exited:
        return None
    if loop.bounds or loop.stride or loop.fast_body is not None:
        return None
    *declarations, step = loop.body.stmts
    thread_ids = set()
    for d in declarations:
        kind = integer_kind(d.type) if isinstance(d, ir.VarDecl) else None
        if kind is None or kind[1] < 16 or not _is_thread_x(d.init, set()):
            return None
        thread_ids.add(d.sym)
    array = _tree_step_array(step, stride.sym, thread_ids)
    decl = _shared_array(array, grid)
    if decl is None:
        return None
    match = _ONE_DIMENSION.match(decl.type)
    element = match.group("element").strip() if match else ""
    if element not in FLOATING and (integer_kind(element) is None or "volatile" in element.split()):
        return None
    return Tree(stmt, decl, element, first_stride)


def _tree_step_array(step: ir.Stmt, stride: int, thread_ids: set[int]) -> int | None:
    """The array ``a`` of ``if (tid < s) a[tid] += a[tid + s];`` (or ``a[tid] = a[tid] + a[tid +
    s]``), else None."""
    if not isinstance(step, ir.If) or step.otherwise is not None or not isinstance(step.cond, ir.Binary):
        return None
    if step.cond.op != "<" or not _is_thread_x(step.cond.lhs, thread_ids) or not _is_name(step.cond.rhs, stride):
        return None
    update = _only_statement(step.then)
    if not isinstance(update, ir.ExprStmt) or not isinstance(update.expr, ir.Assign):
        return None
    target, value = update.expr.target, update.expr.value
    if update.expr.op == "+=":
        own, partner = target, value
    elif update.expr.op == "=" and isinstance(value, ir.Binary) and value.op == "+":
        own, partner = value.lhs, value.rhs
        if not _same_element(own, target):
            own, partner = partner, own
        if not _same_element(own, target):
            return None
    else:
        return None
    if not isinstance(target, ir.Index) or not isinstance(target.base, ir.Name):
        return None
    if not _is_thread_x(target.index, thread_ids) or not _same_element(own, target):
        return None
    if not isinstance(partner, ir.Index) or not _is_name(partner.base, target.base.sym):
        return None
    offset = partner.index
    if not isinstance(offset, ir.Binary) or offset.op != "+":
        return None
    pairs = ((offset.lhs, offset.rhs), (offset.rhs, offset.lhs))
    if not any(_is_thread_x(t, thread_ids) and _is_name(s, stride) for t, s in pairs):
        return None
    return target.base.sym


def _storing_loop(stmt: ir.Stmt, array: int) -> ir.Expr | None:
    """The index ``tid`` (``threadIdx.x``) when ``stmt`` is a thread loop, every thread of which
    ends with ``a[tid] = value;`` and touches ``a`` nowhere else, without early exits: the loop
    that fills the tree's array, to which the sum can be added.  Else None."""
    if not isinstance(stmt, ir.ThreadLoop) or stmt.kept or stmt.exit_flag or stmt.marks_exit or stmt.skip_exited:
        return None
    if stmt.bounds or stmt.stride or stmt.fast_body is not None or stmt.sums or not stmt.body.stmts:
        return None
    *before, last = stmt.body.stmts
    if not (isinstance(last, ir.ExprStmt) and isinstance(last.expr, ir.Assign) and last.expr.op == "="):
        return None
    target = last.expr.target
    if not (isinstance(target, ir.Index) and _is_name(target.base, array)):
        return None
    unassigned_thread_ids = {d.sym for d in before if isinstance(d, ir.VarDecl) and _is_thread_x(d.init, set())
                             and integer_kind(d.type) is not None and integer_kind(d.type)[1] >= 16}
    for node in stmt.body.walk():
        if isinstance(node, (ir.Return, ir.NextThread, ir.Goto, ir.Label)):
            return None
        if isinstance(node, (ir.Assign, ir.Unary)) and not (isinstance(node, ir.Unary) and node.op in "+-!~*"):
            written = _without_casts(node.target if isinstance(node, ir.Assign) else node.operand)
            if isinstance(written, ir.Name):
                unassigned_thread_ids.discard(written.sym)
    if not _is_thread_x(target.index, unassigned_thread_ids):
        return None
    uses = sum(1 for n in stmt.body.walk() if _is_name(n, array))
    return target.index if uses == 1 else None


def _shared_array(sym: int | None, grid: ir.GridLoop) -> ir.VarDecl | None:
    """The declaration of the block's ``__shared__`` array ``sym``: a static one among the grid
    loop's declarations, or the kernel's only dynamic one (dynamic shared arrays alias)."""
    if sym is None:
        return None
    for stmt in grid.body.stmts:
        if isinstance(stmt, ir.VarDecl) and stmt.sym == sym:
            return stmt if stmt.storage == "shared" else None
    if len(grid.dynamic_shared) == 1 and grid.dynamic_shared[0].sym == sym and not grid.binds_dynamic_shared:
        return grid.dynamic_shared[0]
    return None


def _only_first_entry_after(sym: int, stmts: list[ir.Stmt]) -> bool:
    """Every use of the array ``sym`` in ``stmts`` is ``a[0]``: the tree leaves partial sums in
    the other entries, the reassociated sum leaves the values summed."""
    for stmt in stmts:
        for node in stmt.walk():
            if isinstance(node, ir.Index) and _is_name(node.base, sym) and not _is_literal(node.index, 0):
                return False
    return True


def _array_only_subscripted(sym: int, body: ir.Stmt) -> bool:
    """The array ``sym`` is named only as ``a[i]``: no pointer into it reaches other code."""
    subscripted = sum(1 for n in body.walk() if isinstance(n, ir.Index) and _is_name(n.base, sym))
    named = sum(1 for n in body.walk() if _is_name(n, sym))
    return named == subscripted


def _block_sum(tree: Tree, used: set[str], ctx: PassContext) -> ir.Stmt:
    """``if (a power-of-two 1-D block) { the SIMD sum into a[0] } else { the tree }``."""
    loc = tree.loop.loc
    accumulate = _accumulator_type(tree.element)
    array = ir.Name(tree.array.name, tree.array.sym, loc=loc)

    def entry(index: ir.Expr) -> ir.Expr:
        value = ir.Index(array, index, loc=loc)
        return value if integer_kind(tree.element) is None else ir.Cast(accumulate, value, loc=loc)

    sum_name = fresh_name("block_sum", used)
    sum_sym = ctx.fresh_sym(sum_name, accumulate, "local", loc)
    index_name = fresh_name("element", used)
    index_sym = ctx.fresh_sym(index_name, "unsigned int", "local", loc)
    total = ir.Name(sum_name, sum_sym, loc=loc)
    index = ir.Name(index_name, index_sym, loc=loc)
    x = ir.Builtin("blockDim", "x", loc=loc)
    # The tree sums blockDim.x entries, or twice its first stride when that is a constant.
    count = x if tree.first_stride is None else ir.Literal(f"{2 * tree.first_stride}u", loc=loc)
    loop = ir.For(ir.VarDecl(index_sym, index_name, "unsigned int", ir.Literal("1u", loc=loc), loc=loc),
                  ir.Binary("<", index, count, loc=loc),
                  ir.Unary("++", index, loc=loc),
                  ir.Block((ir.ExprStmt(ir.Assign("+=", total, entry(index), loc=loc), loc=loc),), loc=loc),
                  loc=loc)
    summed = ir.Block((
        ir.VarDecl(sum_sym, sum_name, accumulate, entry(ir.Literal("0", loc=loc)), loc=loc),
        ir.SimdReduction(loop, "+", total, loc=loc),
        _sum_into_first_entry(tree, total),
    ), loc=loc)
    if tree.first_stride is None:
        whole_tree = _power_of_two(x)
    else:  # every thread of the tree's first step exists
        whole_tree = ir.Binary(">=", x, ir.Literal(f"{tree.first_stride}u", loc=loc), loc=loc)
    return ir.If(_one_dimensional_and(whole_tree), summed, ir.Block((tree.loop,), loc=loc), loc=loc)


def _fused_sum(tree: Tree, fill: ir.ThreadLoop, index: ir.Expr, used: set[str], ctx: PassContext) -> list[ir.Stmt]:
    """The thread loop ``fill`` that stores ``a[tid] = value`` adds each value to a per-block sum
    (a reduction of its SIMD lanes), and the tree becomes ``a[0] = sum`` where the loop's threads
    are exactly the tree's entries.  There the stores are dead (nothing reads ``a[1 ..]`` after
    the tree, and ``a[0]`` is overwritten), so the loop stores only where the tree still runs::

        const bool block_summed = <the loop's threads are the tree's entries>;
        block_sum decl;
        fill { ...; T value = ...; if (!block_summed) a[tid] = value; block_sum += (U)value; }
        if (block_summed) a[0] = (T)block_sum; else tree

    ``block_summed`` depends on the block's shape only, so g++ moves the test out of the loop
    (it folds it where ``constant-block`` made the shape a constant)."""
    loc = tree.loop.loc
    accumulate = _accumulator_type(tree.element)
    sum_name = fresh_name("block_sum", used)
    total = ir.Name(sum_name, ctx.fresh_sym(sum_name, accumulate, "local", loc), loc=loc)
    summed_name = fresh_name("block_summed", used | {sum_name})
    summed = ir.Name(summed_name, ctx.fresh_sym(summed_name, "const bool", "local", loc), loc=loc)
    value_name = fresh_name("value", used | {sum_name, summed_name})
    value = ir.Name(value_name, ctx.fresh_sym(value_name, tree.element, "local", loc), loc=loc)
    *before, last = fill.body.stmts
    fill_store = last.expr
    own_value = ir.VarDecl(value.sym, value_name, tree.element, fill_store.value, loc=last.loc)
    store_unless_summed = ir.If(ir.Unary("!", summed, loc=loc),
                                ir.ExprStmt(replace(fill_store, value=value), loc=last.loc), loc=last.loc)
    added: ir.Expr = value if integer_kind(tree.element) is None else ir.Cast(accumulate, value, loc=loc)
    add = ir.ExprStmt(ir.Assign("+=", total, added, loc=loc), loc=loc)
    summing = replace(fill, body=replace(fill.body, stmts=(*before, own_value, store_unless_summed, add)),
                      sums=(total,))
    # The loop's threads are blockDim.x entries: the tree's when it sums exactly those.
    x = ir.Builtin("blockDim", "x", loc=loc)
    if tree.first_stride is None:
        whole = _power_of_two(x)
    else:
        whole = ir.Binary("==", x, ir.Literal(f"{2 * tree.first_stride}u", loc=loc), loc=loc)
    return [ir.VarDecl(summed.sym, summed_name, "const bool", _one_dimensional_and(whole), loc=loc),
            ir.VarDecl(total.sym, sum_name, accumulate, ir.Literal("0", loc=loc), loc=loc), summing,
            ir.If(summed, ir.Block((_sum_into_first_entry(tree, total),), loc=loc), ir.Block((tree.loop,), loc=loc),
                  loc=loc)]


def _accumulator_type(element: str) -> str:
    """What a block's sum of ``element`` values is accumulated in: the type itself for floating
    point, its unsigned type for integers (wrapping as the tree's additions do, without signed
    overflow's undefined behaviour)."""
    kind = integer_kind(element)
    return element if kind is None else UNSIGNED_OF_WIDTH[kind[1]]


def _sum_into_first_entry(tree: Tree, total: ir.Name) -> ir.Stmt:
    """``a[0] = (T)total;``: the tree's result, where it leaves it."""
    loc = tree.loop.loc
    array = ir.Name(tree.array.name, tree.array.sym, loc=loc)
    result = total if integer_kind(tree.element) is None else ir.Cast(tree.element, total, loc=loc)
    return ir.ExprStmt(ir.Assign("=", ir.Index(array, ir.Literal("0", loc=loc), loc=loc), result, loc=loc), loc=loc)


def _power_of_two(x: ir.Expr) -> ir.Expr:
    """``(x & (x - 1u)) == 0u``."""
    loc = x.loc
    return ir.Binary("==", ir.Binary("&", x, ir.Binary("-", x, ir.Literal("1u", loc=loc), loc=loc), loc=loc),
                     ir.Literal("0u", loc=loc), loc=loc)


def _one_dimensional_and(x_test: ir.Expr) -> ir.Expr:
    """``blockDim.y == 1u && blockDim.z == 1u && x_test``."""
    loc = x_test.loc
    y, z = (ir.Binary("==", ir.Builtin("blockDim", d, loc=loc), ir.Literal("1u", loc=loc), loc=loc) for d in "yz")
    return ir.Binary("&&", ir.Binary("&&", y, z, loc=loc), x_test, loc=loc)


# ------------------------------------------------------------------------------ shape tests


def _only_statement(stmt: ir.Stmt) -> ir.Stmt:
    """``stmt`` without the braces of blocks holding one statement."""
    while isinstance(stmt, ir.Block) and len(stmt.stmts) == 1:
        stmt = stmt.stmts[0]
    return stmt


def _without_casts(e: ir.Expr | None) -> ir.Expr | None:
    """``e`` without integer conversions (``(unsigned)threadIdx.x``): block indices fit any."""
    while isinstance(e, ir.Cast) and integer_kind(e.type) is not None and integer_kind(e.type)[1] >= 16:
        e = e.operand
    return e


def _is_thread_x(e: ir.Expr | None, thread_ids: set[int]) -> bool:
    e = _without_casts(e)
    if isinstance(e, ir.Builtin):
        return e.var == "threadIdx" and e.dim == "x"
    return isinstance(e, ir.Name) and e.sym in thread_ids


def _is_name(e: ir.Expr | None, sym: int) -> bool:
    e = _without_casts(e)
    return isinstance(e, ir.Name) and e.sym == sym and sym != 0


def _is_literal(e: ir.Expr | None, value: int) -> bool:
    e = _without_casts(e)
    return isinstance(e, ir.Literal) and int_literal(e.text) == value


def _same_element(a: ir.Expr, b: ir.Expr) -> bool:
    return (isinstance(a, ir.Index) and isinstance(b, ir.Index) and isinstance(a.base, ir.Name)
            and _is_name(b.base, a.base.sym) and _without_casts(a.index) == _without_casts(b.index))


def _is_half_block(e: ir.Expr | None) -> bool:
    """``blockDim.x / 2`` or ``blockDim.x >> 1``."""
    e = _without_casts(e)
    if not isinstance(e, ir.Binary):
        return False
    x = _without_casts(e.lhs)
    if not (isinstance(x, ir.Builtin) and x.var == "blockDim" and x.dim == "x"):
        return False
    return (e.op == "/" and _is_literal(e.rhs, 2)) or (e.op == ">>" and _is_literal(e.rhs, 1))


def _constant_power_of_two(e: ir.Expr | None) -> int | None:
    """The value of an integer literal that is a power of two up to 512, else None."""
    e = _without_casts(e)
    value = int_literal(e.text) if isinstance(e, ir.Literal) else None
    return value if value is not None and 0 < value <= 512 and value & (value - 1) == 0 else None


def _is_positive_test(e: ir.Expr | None, stride: int) -> bool:
    """``s > 0``, ``s != 0``, ``0 < s`` or ``s >= 1``."""
    if not isinstance(e, ir.Binary):
        return False
    return ((e.op in (">", "!=") and _is_name(e.lhs, stride) and _is_literal(e.rhs, 0))
            or (e.op == "<" and _is_literal(e.lhs, 0) and _is_name(e.rhs, stride))
            or (e.op == ">=" and _is_name(e.lhs, stride) and _is_literal(e.rhs, 1)))


def _is_halving(e: ir.Expr | None, stride: int) -> bool:
    """``s >>= 1``, ``s /= 2``, ``s = s >> 1`` or ``s = s / 2``."""
    if not isinstance(e, ir.Assign) or not _is_name(e.target, stride):
        return False
    if e.op in (">>=", "/="):
        return _is_literal(e.value, 1 if e.op == ">>=" else 2)
    value = e.value
    return (e.op == "=" and isinstance(value, ir.Binary) and _is_name(value.lhs, stride)
            and ((value.op == ">>" and _is_literal(value.rhs, 1)) or (value.op == "/" and _is_literal(value.rhs, 2))))


def _identifiers(kernel: ir.Kernel) -> set[str]:
    names = {p.name for p in kernel.params}
    for node in kernel.body.walk():
        if isinstance(node, (ir.Name, ir.VarDecl)):
            names.add(node.name)
        elif isinstance(node, ir.KeptVar):
            names.update((node.name, node.storage))
    return names
