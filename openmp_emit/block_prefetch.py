"""Pass ``block-prefetch``: while a block computes, ask the cache for what the next block reads.

Requires: ``schedule``.  Under the blocks schedule an OpenMP thread runs its blocks one after
the other, each block a phase of loads followed by work on ``__shared__`` memory (a tree
reduction, a stencil on a tile).  The loads of the next block only start once that work is
done, and the hardware prefetcher, which follows address streams, loses them at every block
boundary.  On this project's 2-core machine the 256-thread tree reduction ran at half the speed
of an OpenMP reduction; asking for the next block's lines right after this block's loads brings
it level (docs/PERFORMANCE.md).

A stream is a read ``p[index]`` in a thread loop at the block's top level, where ``p`` is a
pointer parameter of the kernel and ``index`` is built from the builtin indices, literals,
unassigned parameters and launch-level values, and unassigned local declarations of the loop
(replaced by their initializers, cast to their declared type).  It must use ``blockIdx``
(otherwise every block reads the same lines, already cached).  Evaluating ``index`` for the next
block must not be undefined where the CUDA program is defined, so either

* every thread of every block evaluates it (a statement of the loop body that runs for every
  thread, outside ``?:``/``&&``/``||``; the loop has no folded guard), or
* it cannot overflow: its arithmetic is unsigned, with no division by a variable and shifts by
  literals only.

Only where the block still works over its threads after its loads (a thread loop over more
than one thread follows: a tree's steps, a tile's stores), or reads the two halves of one span
at once.  A block that reads one stream per array and then only stores has the next block's
loads follow at once, in the streams the hardware prefetcher already follows, and asking for
them only costs (the SDK's integer tree, which ``reassociate-reductions`` sums as the loads go,
then one thread's store of the sum: 2.1x -> 1.35x the OpenMP reduction's time).  A block that
reads two halves of its span at once (``in[i]`` and ``in[i + blockDim.x]``) loses the hardware
prefetcher even so (the benchmark's 512-element float tree under ``--reassociate-reductions``:
1.3-1.75 ms without the prefetch, 0.46-0.66 ms with it, against 0.86 ms for the OpenMP
reduction; docs/PERFORMANCE.md).

After the last thread loop with a stream the block computes its successor
(``moccuda::next_block``) and, when that block is in the grid, calls
``moccuda::prefetch_span(p, index at thread 0, index at thread blockDim.x - 1, blockDim.x)``
for each stream.  When ``index`` uses ``threadIdx.y``/``z`` the call covers the whole block
(index at the last thread of every dimension), and where that span is not dense (rows of a wide
matrix) a call per row follows instead.  A prefetch changes
no value and cannot fault; a span that is not dense (a column, a gather) is skipped at run time.
Other schedules are left alone: ``flat`` has no block body, and under ``nested`` the statement
would split the inner parallel region.

Before::

    GridLoop [blocks] { float s[256]; ThreadLoop { unsigned i = blockIdx.x * 512 + threadIdx.x;
                                                   s[threadIdx.x] = in[i] + in[i + 256]; } ... }

After::

    GridLoop [blocks] { float s[256]; ThreadLoop {...}
                        { const uint3 next_block = moccuda::next_block(blockIdx, gridDim);
                          if (next_block.z < gridDim.z) {
                              moccuda::prefetch_span(in, (unsigned)(next_block.x * 512 + 0u),
                                                     (unsigned)(next_block.x * 512 + (blockDim.x - 1u)), blockDim.x);
                              ... } }
                        ... }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import assigned_symbols, fresh_name
from foundation import ir
from foundation.integer_types import int_literal, unpromoted_integer_kind
from foundation.passes import PassContext, map_kernels, register
from openmp_emit.thread_indices import (IndexResolver, integer_kind_of, integer_literal_kind, literal_value,
                                        usual_conversion)

#: Streams prefetched per kernel at most: each costs a few instructions per block.
MAX_STREAMS = 8


@register
@dataclass(frozen=True)
class BlockPrefetch:
    name: str = "block-prefetch"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _prefetch_kernel(k, ctx))


@dataclass(frozen=True)
class Stream:
    """``base[index]`` read by the threads of a block; ``index`` in terms of uniform values and
    the builtin indices only."""

    base: ir.Name
    index: ir.Expr


def _prefetch_kernel(kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
    grid = ir.grid_loop(kernel)
    if grid is None or grid.schedule != "blocks":
        return kernel
    uniform = _uniform_names(kernel, ctx.symbols, ctx.device_bodies)
    streams: list[Stream] = []
    after = -1  # the position of the last top-level thread loop with a stream
    for position, stmt in enumerate(grid.body.stmts):
        if isinstance(stmt, ir.ThreadLoop):
            found = [s for s in thread_loop_streams(stmt, uniform, ctx.symbols, ctx.device_bodies) if s not in streams]
            if found:
                streams.extend(found)
                after = position
    streams = streams[:MAX_STREAMS]
    if not streams:
        return kernel
    if not (_parts_of_one_span(streams, grid.block_extent)
            or _work_follows(grid.body.stmts[after + 1:], grid.block_extent, _block_constants(grid))):
        return kernel
    used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
    prefetch = _prefetch_statement(streams, used, ctx, grid.loc)
    stmts = grid.body.stmts[:after + 1] + (prefetch,) + grid.body.stmts[after + 1:]
    ctx.report(kernel).prefetched = [{"pointer": s.base.name, "line": s.base.loc.line} for s in streams]
    return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=stmts)))


def _parts_of_one_span(streams: list[Stream], extent: tuple[int | None, ...] | None) -> bool:
    """Whether the block reads the two halves of one span at once: ``in[i]`` and ``in[i + K]``
    with ``K`` the block's x extent (``blockDim.x``, or its constant), each thread one element of
    each half, as tree reductions that load two elements per thread do.  The hardware prefetcher
    follows one stream per array, not two interleaved ones."""
    width = extent[0] if extent is not None else None
    for a in streams:
        for b in streams:
            if a.base.sym != b.base.sym or not (isinstance(b.index, ir.Binary) and b.index.op == "+"
                                                 and b.index.lhs == a.index):
                continue
            k = b.index.rhs
            if (isinstance(k, ir.Builtin) and k.var == "blockDim" and k.dim == "x") or \
                    (width is not None and literal_value(k) == width):
                return True
    return False


def _block_constants(grid: ir.GridLoop) -> dict[int, ir.Expr]:
    """The initializers of the block's ``const`` declarations (``const bool block_summed =
    blockDim.y == 1u && ...``): a test of one names its value."""
    return {s.sym: s.init for s in grid.body.stmts
            if isinstance(s, ir.VarDecl) and s.init is not None and s.type.split()[:1] == ["const"]}


def _work_follows(stmts: tuple[ir.Stmt, ...], extent: tuple[int | None, ...] | None,
                  constants: dict[int, ir.Expr]) -> bool:
    """Whether the block still works over its threads after its loads: a thread loop over more
    than one thread (a tree's steps, a tile's stores).  Without such work the next block's loads
    follow at once, in the stream the hardware prefetcher already follows, and asking for them
    only costs: an integer tree reduction that ``reassociate-reductions`` sums as the loads go,
    whose one thread then stores the block's sum.  A branch that the constant block size decides
    (the reduction's own test of a power-of-two 1-D block) counts by the branch taken."""
    for stmt in stmts:
        if isinstance(stmt, ir.If):
            decided = _decided(stmt.cond, extent, constants)
            if decided is not None:
                branch = stmt.then if decided else stmt.otherwise
                if branch is not None and _work_follows(branch.stmts if isinstance(branch, ir.Block) else (branch,),
                                                        extent, constants):
                    return True
                continue
        loops = [stmt] if isinstance(stmt, ir.ThreadLoop) else [n for n in stmt.walk() if isinstance(n, ir.ThreadLoop)]
        if any(not _one_thread(loop, extent, constants) for loop in loops):
            return True
    return False


def _one_thread(loop: ir.ThreadLoop, extent: tuple[int | None, ...] | None, constants: dict[int, ir.Expr]) -> bool:
    """Whether the constant block size and the loop's folded bounds leave it one thread (the
    ``if (tid == 0)`` of a block's result)."""
    if extent is None or any(d is None for d in extent):
        return False
    counts = dict(zip("xyz", extent))
    for bound in loop.bounds:
        first, limit = _constant(bound.first, extent, constants), _constant(bound.limit, extent, constants)
        if bound.lower or first is None or limit is None:
            continue
        counts[bound.dim] = min(counts[bound.dim], max(0, limit - first + (1 if bound.inclusive else 0)))
    return counts["x"] * counts["y"] * counts["z"] <= 1


def _decided(cond: ir.Expr, extent: tuple[int | None, ...] | None, constants: dict[int, ir.Expr]) -> bool | None:
    """The value of a condition on ``blockDim``, integer literals and the block's ``constants``
    when the block size is the constant ``extent``, else None."""
    value = _constant(cond, extent, constants)
    return None if value is None else value != 0


def _constant(e: ir.Expr, extent: tuple[int | None, ...] | None, constants: dict[int, ir.Expr]) -> int | None:
    if isinstance(e, ir.Name) and e.sym in constants:
        return _constant(constants[e.sym], extent, constants)
    if isinstance(e, ir.Unary) and e.op == "!":
        value = _constant(e.operand, extent, constants)
        return None if value is None else int(not value)
    if isinstance(e, ir.Literal):
        return int_literal(e.text)
    if isinstance(e, ir.Builtin) and e.var == "blockDim" and extent is not None and e.dim in "xyz" and e.dim:
        return extent["xyz".index(e.dim)]
    if isinstance(e, ir.Binary):
        a, b = _constant(e.lhs, extent, constants), _constant(e.rhs, extent, constants)
        if a is None or b is None:
            return None
        ops = {"==": lambda: int(a == b), "!=": lambda: int(a != b), "&&": lambda: int(bool(a) and bool(b)),
               "||": lambda: int(bool(a) or bool(b)), "&": lambda: a & b, "|": lambda: a | b,
               "-": lambda: a - b, "+": lambda: a + b}
        return ops[e.op]() if e.op in ops else None
    return None


def _uniform_names(kernel: ir.Kernel, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction]) -> set[int]:
    """Parameters and launch-level declarations nothing assigns: the same in every block."""
    assigned = assigned_symbols(kernel.body, bodies)
    launch_level = set()
    if isinstance(kernel.body, ir.Block):
        launch_level = {s.sym for s in kernel.body.stmts if isinstance(s, ir.VarDecl) and s.storage == "auto"}
    params = {p.sym for p in kernel.params}
    return {sym for sym in params | launch_level
            if sym not in assigned and sym in symbols and "&" not in symbols[sym].type}


def thread_loop_streams(loop: ir.ThreadLoop, uniform: set[int], symbols: dict[int, ir.Symbol],
                        bodies: dict[str, ir.DeviceFunction]) -> list[Stream]:
    """The streams of one thread loop (see the module docstring), in source order."""
    if loop.skip_exited:
        return []
    resolver = IndexResolver(loop, uniform, symbols, bodies)
    streams: list[Stream] = []
    every_thread = not loop.bounds and loop.stride is None
    bodies = [loop.body] + ([loop.fast_body] if loop.fast_body is not None else [])
    for body in bodies:
        for stmt in body.stmts:
            always = every_thread and body is loop.body
            for read, evaluated_by_all in _reads(stmt, always):
                if not (isinstance(read.base, ir.Name) and read.base.sym in uniform
                        and _is_pointer_param(read.base, symbols)):
                    continue
                index = resolver.resolve(read.index)
                if index is None or not _uses_block_index(index):
                    continue
                if not (evaluated_by_all or _cannot_overflow(index, symbols)):
                    continue
                stream = Stream(read.base, index)
                if stream not in streams:
                    streams.append(stream)
            if ir.contains(stmt, ir.Return) or ir.contains(stmt, ir.NextThread) or ir.contains(stmt, ir.Goto):
                every_thread = False  # later statements do not run for the threads that left
    return streams


def _reads(node: ir.Node, always: bool):
    """``(index expression, evaluated unconditionally)`` for each element read below ``node``;
    ``always`` says whether ``node`` itself runs for every thread."""
    if isinstance(node, ir.Assign):
        if isinstance(node.target, ir.Index):
            if node.op != "=":  # a compound assignment reads its target
                yield node.target, always
            yield from _reads(node.target.base, always)
            yield from _reads(node.target.index, always)
        else:
            yield from _reads(node.target, always)
        yield from _reads(node.value, always)
        return
    if isinstance(node, ir.SizeOf):
        return  # its operand is not evaluated
    if isinstance(node, ir.Index):
        yield node, always
    if isinstance(node, ir.Unary) and node.op == "&" and isinstance(node.operand, ir.Index):
        yield from _reads(node.operand.index, always)  # an address taken, not a read
        return
    if isinstance(node, ir.Conditional):
        yield from _reads(node.cond, always)
        yield from _reads(node.then, False)
        yield from _reads(node.otherwise, False)
        return
    if isinstance(node, ir.Binary) and node.op in ("&&", "||"):
        yield from _reads(node.lhs, always)
        yield from _reads(node.rhs, False)
        return
    conditional_children = isinstance(node, (ir.If, ir.For, ir.While, ir.DoWhile, ir.Switch))
    for child in node.children():
        first_evaluated = isinstance(node, ir.If) and child is node.cond
        yield from _reads(child, always and (first_evaluated or not conditional_children))


def _is_pointer_param(name: ir.Name, symbols: dict[int, ir.Symbol]) -> bool:
    symbol = symbols.get(name.sym)
    return symbol is not None and symbol.kind == "param" and "*" in symbol.type and "&" not in symbol.type


def _uses_block_index(e: ir.Expr) -> bool:
    return any(isinstance(n, ir.Builtin) and n.var == "blockIdx" for n in e.walk())


def _cannot_overflow(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> bool:
    """Every operation of ``e`` is defined for every value of its operands: unsigned arithmetic,
    no division or remainder by anything but a non-zero literal, shifts by literals below 32."""
    for n in e.walk():
        kind = integer_kind_of(n, symbols) if isinstance(n, ir.Expr) else None
        if kind is None:
            return False
        if isinstance(n, ir.Unary) and n.op == "-" and kind[0]:
            return False
        if isinstance(n, ir.Binary):
            if n.op in ("/", "%") and not _nonzero_literal(n.rhs):
                return False
            shift = literal_value(n.rhs)
            if n.op in ("<<", ">>") and (shift is None or not 0 <= shift < 32):
                return False
            if kind[0] and n.op in ("+", "-", "*", "/", "%", "<<"):
                return False
    return True


def _nonzero_literal(e: ir.Expr) -> bool:
    value = literal_value(e)
    return value is not None and value != 0


def _prefetch_statement(streams: list[Stream], used: set[str], ctx: PassContext, loc) -> ir.Stmt:
    next_name = fresh_name("next_block", used)
    next_sym = ctx.fresh_sym(next_name, "const uint3", "local", loc)
    next_block = ir.Name(next_name, next_sym, loc=loc)
    decl = ir.VarDecl(next_sym, next_name, "const uint3",
                      ir.Call("moccuda::next_block", (ir.BuiltinVector("blockIdx", loc=loc),
                                                       ir.BuiltinVector("gridDim", loc=loc)), loc=loc), loc=loc)
    calls: list[ir.Stmt] = []
    row_names = {d: fresh_name(f"prefetch_t{d}", used) for d in ("y", "z")}
    for stream in streams:
        calls.append(_prefetch_rows(stream, next_block, row_names, ctx, loc))
    inside = ir.Binary("<", ir.Member(next_block, "z", loc=loc), ir.Builtin("gridDim", "z", loc=loc), loc=loc)
    return ir.Block((decl, ir.If(inside, ir.Block(tuple(calls), loc=loc), loc=loc)), loc=loc)


def _drop_added_zero(n: ir.Node, symbols: dict[int, ir.Symbol]) -> ir.Node:
    """Folds what substituting thread 0 leaves: ``(int)0u`` is ``0``, and ``x + 0u`` (``x + 0``)
    is ``x`` when that keeps the type."""
    if isinstance(n, ir.Cast) and isinstance(n.operand, ir.Literal) and n.operand.text == "0u":
        kind = unpromoted_integer_kind(n.type)
        if kind in ((True, 32), (False, 32)):
            return ir.Literal("0" if kind[0] else "0u", loc=n.loc)
    if isinstance(n, ir.Binary) and n.op == "+" and isinstance(n.rhs, ir.Literal) and n.rhs.text in ("0", "0u"):
        kind = integer_kind_of(n.lhs, symbols)
        if kind is not None and usual_conversion(kind, integer_literal_kind(n.rhs.text)) == kind:
            return n.lhs
    return n


def _prefetch_rows(stream: Stream, next_block: ir.Name, row_names: dict[str, str], ctx: PassContext,
                   loc) -> ir.Stmt:
    """The prefetch of one stream: one call over the block's span; when the index also depends
    on ``threadIdx.y``/``z`` and that span is not dense (rows of a wide matrix), a call per row."""
    symbols = ctx.symbols
    rows = [d for d in ("z", "y") if any(isinstance(n, ir.Builtin) and n.var == "threadIdx" and n.dim == d
                                         for n in stream.index.walk())]
    counters = {d: ir.Name(row_names[d], ctx.fresh_sym(row_names[d], "unsigned", "local", loc), loc=loc)
                for d in rows}
    zero = ir.Literal("0u", loc=loc)

    def last(d: str) -> ir.Expr:
        return ir.Binary("-", ir.Builtin("blockDim", d, loc=loc), ir.Literal("1u", loc=loc), loc=loc)

    def at(thread_index: dict[str, ir.Expr]) -> ir.Expr:
        def thread(n: ir.Node) -> ir.Node:
            if isinstance(n, ir.Builtin) and n.var == "threadIdx":
                return thread_index.get(n.dim, zero)
            return _drop_added_zero(n, symbols)

        def block(n: ir.Node) -> ir.Node:
            if isinstance(n, ir.Builtin) and n.var == "blockIdx":
                return ir.Member(next_block, n.dim, loc=n.loc)
            return n
        return ir.transform(ir.transform(stream.index, thread), block)

    def span(first: dict[str, ir.Expr], final: dict[str, ir.Expr], threads: ir.Expr) -> ir.Call:
        return ir.Call("moccuda::prefetch_span", (stream.base, at(first), at(final), threads), loc=loc)

    x_threads = ir.Builtin("blockDim", "x", loc=loc)
    if not rows:
        return ir.ExprStmt(span({}, {"x": last("x")}, x_threads), loc=loc)
    per_row: ir.Stmt = ir.ExprStmt(span(dict(counters), {"x": last("x"), **counters}, x_threads), loc=loc)
    for d in reversed(rows):  # innermost first: y inside z
        counter = counters[d]
        per_row = ir.For(ir.VarDecl(counter.sym, counter.name, "unsigned", zero, loc=loc),
                         ir.Binary("<", counter, ir.Builtin("blockDim", d, loc=loc), loc=loc),
                         ir.Unary("++", counter, loc=loc), ir.Block((per_row,), loc=loc), loc=loc)
    block_threads = ir.block_thread_count(loc)
    whole = span({}, {"x": last("x"), **{d: last(d) for d in rows}}, block_threads)
    return ir.If(ir.Unary("!", whole, loc=loc), ir.Block((per_row,), loc=loc), loc=loc)
