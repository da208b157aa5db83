"""Pass ``wide-subscripts``: compute a thread loop's 32-bit subscripts in 64 bits where that
gives the same value, so that gcc loads and stores them as vectors.

Requires: ``schedule`` (the loops it marks are the SIMD thread loops of the blocks and flat
schedules).  CUDA computes ``m[(row + threadIdx.y) * n + col + threadIdx.x]`` in 32-bit unsigned
arithmetic (``threadIdx`` is unsigned), which wraps modulo 2^32 before the subscript scales to
an address.  gcc must honour that wrap, so it cannot tell that consecutive threads touch
consecutive elements ("evolution of base is not affine"), and loads and stores element by element:
Rodinia lud's tile loops (its stores were a fifth of its time) and every subscript written as
``blockIdx.x * blockDim.x + threadIdx.x`` into an ``unsigned``.

A subscript qualifies when, with the loop's unassigned locals replaced by their initializers
(:class:`~openmp_emit.thread_indices.IndexResolver`), it is built from the block's values
(parameters, block-level variables the loop does not assign, builtin indices) with ``+``, ``-``,
``*`` and shifts by literals wherever it depends on the thread, affine in the thread indices with
a constant step along the loop's innermost dimension (not that index alone: the loop's own
counter, which gcc follows), every thread evaluates it (not in an arm of ``?:`` or right of
``&&``/``||``: the copy evaluates its parts at the loop's first thread), and it has type
``unsigned``, or type ``int`` and does ``int`` arithmetic on a value converted from ``unsigned``
arithmetic on a thread index (``i + 1`` of an ``int i = blockIdx.x * blockDim.x + threadIdx.x``,
which gcc cannot follow either; ``a[i]`` itself it follows).  Rodinia streamcluster's
``kernel_compute_cost`` (``coord_d[i * num + tid]``): the whole program 1.05 -> 0.49 s.

Its exact value (the same arithmetic on unbounded integers) is congruent to the C++ value modulo
2^32, since ``+``, ``-``, ``*`` and every conversion between 32- and 64-bit integers are.  So
where the exact value lies in the subscript type's range (``unsigned``'s or ``int``'s), it is the
C++ value.  Being affine in
the thread indices, it lies in the range at every thread of the loop when it does at the corners
of the loop's threads: the block tests that, once per loop, before running it
(``moccuda::subscript_exact``), and runs a copy of the loop whose subscripts are the exact value
at the loop's first thread plus the step per thread, in 64 bits.  A block that fails the test
(an index that really wraps, ``p[threadIdx.x - 1u]`` at thread 0) runs the loop as written.

Before (lud's tile store)::

    ThreadLoop [simd] { int row = offset + (blockIdx.y + 1) * 16; ...
                        m[(row + threadIdx.y) * n + col + threadIdx.x] -= sum; }

After::

    ThreadLoop [simd, wide: (offset + (blockIdx.y + 1) * 16 + threadIdx.y) * n + ... + threadIdx.x
                            step 1 along x] {...}

which prints as::

    if (moccuda::subscript_exact<unsigned>([&](moccuda::exact_int tx, moccuda::exact_int ty,
            moccuda::exact_int) { return ((moccuda::exact_int)(offset + ...) + ty) * ... + tx; },
            0u, blockDim.x, 0u, blockDim.y, 0u, blockDim.z)) {
        for (...) ... m[(long long)(unsigned)((offset + ... + threadIdx.y) * n + ... + 0u)
                        + (long long)threadIdx.x] -= sum; ...
    } else {
        the loop as it was
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import assigned_symbols
from foundation import ir
from foundation.expression_printer import print_expr
from foundation.integer_types import unpromoted_integer_kind
from foundation.passes import PassContext, map_kernels, register
from openmp_emit.thread_indices import IndexResolver, integer_kind_of, literal_value

#: Subscripts widened per thread loop at most: each adds a few multiplications to the block's test.
MAX_SUBSCRIPTS = 8
#: The exact-integer type of MocCUDA's test (a 128-bit integer: a product of a few 32-bit values
#: does not overflow it).
EXACT_INT = "moccuda::exact_int"


@register
@dataclass(frozen=True)
class WideSubscripts:
    name: str = "wide-subscripts"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _widen_kernel(k, ctx))


def _widen_kernel(kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
    grid = ir.grid_loop(kernel)
    if grid is None or grid.schedule not in ("blocks", "flat") or grid.sets_ambient_index:
        return kernel

    report = ctx.report(kernel)

    def widen(node: ir.Node) -> ir.Node:
        if isinstance(node, ir.ThreadLoop) and node.simd and _straight_line(node):
            wide = loop_wide_subscripts(node, ctx)
            for w in wide:
                entry = {"line": w.loc.line, "subscript": print_expr(w.subscript)}
                if entry not in report.widened:
                    report.widened.append(entry)
            if wide:
                return replace(node, wide=wide)
        return node

    return ir.replace_grid_loop(kernel, ir.transform(grid, widen))


def _straight_line(loop: ir.ThreadLoop) -> bool:
    """Whether the loop's body is free of statements that branch or loop: what gcc 12 vectorizes
    (a store under an ``if`` it does not, whatever its subscripts), so what a copy can speed up."""
    if loop.skip_exited or loop.marks_exit:
        return False
    bodies = [loop.body] + ([loop.fast_body] if loop.fast_body is not None else [])
    branching = (ir.If, ir.For, ir.While, ir.DoWhile, ir.Switch, ir.Return, ir.NextThread, ir.Goto, ir.Break,
                 ir.Continue)
    return not any(isinstance(n, branching) for body in bodies for n in body.walk())


def loop_wide_subscripts(loop: ir.ThreadLoop, ctx: PassContext) -> tuple[ir.WideSubscript, ...]:
    """The subscripts of ``loop`` that qualify (module docstring), in source order."""
    bodies = [loop.body] + ([loop.fast_body] if loop.fast_body is not None else [])
    declared = {n.sym for body in bodies for n in body.walk() if isinstance(n, ir.VarDecl)}
    assigned: set[int] = set()
    for body in bodies:
        assigned |= assigned_symbols(body, ctx.device_bodies)
    named = {n.sym for body in bodies for n in body.walk() if isinstance(n, ir.Name)}
    kept = {kv.sym for kv in loop.kept}
    block_values = {sym for sym in named - declared - assigned - kept if _block_value(ctx.symbols.get(sym))}
    resolver = IndexResolver(loop, block_values, ctx.symbols, ctx.device_bodies)
    inner = loop.nesting[-1]
    found: list[ir.WideSubscript] = []
    for body in bodies:
        for n in _evaluated_by_every_thread(body):
            if isinstance(n, ir.Index):
                wide = _wide_subscript(n.index, resolver, inner, ctx.symbols)
                if wide is not None and wide not in found:
                    found.append(wide)
    return tuple(found[:MAX_SUBSCRIPTS])


def _evaluated_by_every_thread(node: ir.Node):
    """The nodes below ``node`` (a straight-line body) that every thread of the loop evaluates:
    not those in an arm of ``?:`` or right of ``&&``/``||``.  The loop's copy evaluates a
    widened subscript's parts at the loop's first thread, which must compute them in CUDA too
    (an ``int`` part that would overflow there, in a thread that skips it, is no concern of
    CUDA's but undefined in C++)."""
    pending = [node]
    while pending:
        n = pending.pop()
        yield n
        if isinstance(n, ir.Conditional):
            # a condition guard-folding decided (`true ? a[i] : 0`) evaluates its arm
            decided = _truth(n.cond)
            pending.append(n.cond if decided is None else (n.then if decided else n.otherwise))
        elif isinstance(n, ir.Binary) and n.op in ("&&", "||"):
            pending.append(n.lhs)
            if _truth(n.lhs) == (n.op == "&&"):
                pending.append(n.rhs)
        elif not isinstance(n, ir.SizeOf):
            pending.extend(reversed(tuple(n.children())))  # source order


def _truth(e: ir.Expr) -> bool | None:
    """The value of a condition that is a literal (``true``, ``false``, an integer), else None."""
    if isinstance(e, ir.Literal) and e.text in ("true", "false"):
        return e.text == "true"
    value = literal_value(e)
    return None if value is None else value != 0


def _block_value(symbol: ir.Symbol | None) -> bool:
    """A variable the block may read before the loop and see the value its threads read: an
    integer parameter or local (declared outside the loop, not assigned in it), or a constant."""
    if symbol is None or "&" in symbol.type or unpromoted_integer_kind(symbol.type) is None:
        return False
    return symbol.kind in ("param", "local") or (symbol.kind == "global" and "const" in symbol.type.split())


def _wide_subscript(subscript: ir.Expr, resolver: IndexResolver, inner: str,
                    symbols: dict[int, ir.Symbol]) -> ir.WideSubscript | None:
    exact = resolver.resolve(subscript)
    if exact is None or not _thread_dependent(exact):
        return None
    kind = integer_kind_of(exact, symbols)
    if kind not in ((False, 32), (True, 32)) or not _exact_fits(exact, symbols):
        return None
    if kind[0] and not _signed_above_unsigned(exact, symbols):
        return None
    steps = _thread_steps(exact)
    if steps is None:
        return None
    step = steps.get(inner, 0)
    if not isinstance(step, int) or step == 0 or _bare_thread_index(exact):
        return None
    along = _resolved_along(subscript, resolver, inner)
    return ir.WideSubscript(subscript, exact, along, kind[0], inner, step, loc=subscript.loc)


def _signed_above_unsigned(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> bool:
    """Whether the ``int`` subscript ``e`` does ``int`` arithmetic on a value that
    ``unsigned`` arithmetic computed from a thread index (``i + 1`` of an ``int i = blockIdx.x *
    blockDim.x + threadIdx.x``): gcc cannot follow the conversion's result through the
    arithmetic.  The converted value alone (``a[i]``) it follows."""
    def unsigned_thread_arithmetic(n: ir.Expr) -> bool:
        return any(isinstance(m, (ir.Binary, ir.Unary)) and integer_kind_of(m, symbols) == (False, 32)
                   and _thread_dependent(m) for m in n.walk())

    for n in e.walk():
        if isinstance(n, (ir.Binary, ir.Unary)) and integer_kind_of(n, symbols) == (True, 32) and _thread_dependent(n):
            operands = [n.lhs, n.rhs] if isinstance(n, ir.Binary) else [n.operand]
            if any(isinstance(o, ir.Cast) and unsigned_thread_arithmetic(o) for o in operands):
                return True
    return False


def _resolved_along(e: ir.Expr, resolver: IndexResolver, dim: str) -> ir.Expr:
    """``e`` with the loop's locals whose values depend on ``threadIdx.<dim>`` replaced by their
    initializers (resolved); the others stay, with the value they have in the thread's row."""

    def expand(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Name) and n.sym in resolver.definitions:
            resolved = resolver.resolve(n)
            if resolved is not None and any(isinstance(m, ir.Builtin) and m.var == "threadIdx" and m.dim == dim
                                            for m in resolved.walk()):
                return resolved
        return n

    return ir.transform(e, expand)


def _thread_dependent(e: ir.Expr) -> bool:
    return any(isinstance(n, ir.Builtin) and n.var == "threadIdx" for n in e.walk())


def _exact_fits(e: ir.Expr, symbols: dict[int, ir.Symbol], products: int = 0) -> bool:
    """Whether the exact value stays far inside :data:`EXACT_INT`'s range: the parts no thread
    index enters are values of at most 32 bits (their C++ types, or literals below 2^32), and at
    most two of them multiply a thread index on the way to the top, so no term exceeds about
    2^96."""
    if not _thread_dependent(e):
        value = _constant(e)
        kind = integer_kind_of(e, symbols)
        return abs(value) < 2 ** 32 if value is not None else kind is not None and kind[1] <= 32
    if isinstance(e, ir.Binary) and e.op in ("*", "<<"):
        products += 1
        if products > 2:
            return False
    return all(_exact_fits(c, symbols, products) for c in e.children() if isinstance(c, ir.Expr))


def _bare_thread_index(e: ir.Expr) -> bool:
    """``threadIdx.d`` itself, perhaps converted: the loop's own counter, which gcc follows."""
    while isinstance(e, ir.Cast):
        e = e.operand
    return isinstance(e, ir.Builtin)


def _thread_steps(e: ir.Expr) -> dict[str, int | None] | None:
    """The coefficient of each thread index in ``e`` (None: a coefficient that is not a
    constant), or None when ``e`` is not affine in them through ``+ - *`` and shifts by literals."""
    if not _thread_dependent(e):
        return {}
    if isinstance(e, ir.Builtin):
        return {e.dim: 1}
    if isinstance(e, ir.Cast):
        return _thread_steps(e.operand)
    if isinstance(e, ir.Unary) and e.op in ("+", "-", "~"):
        inner = _thread_steps(e.operand)
        return inner if inner is None or e.op == "+" else _scaled(inner, -1)
    if not isinstance(e, ir.Binary):
        return None
    if e.op in ("+", "-"):
        lhs, rhs = _thread_steps(e.lhs), _thread_steps(e.rhs)
        if lhs is None or rhs is None:
            return None
        return _sum(lhs, _scaled(rhs, 1 if e.op == "+" else -1))
    if e.op == "*":
        if _thread_dependent(e.lhs) and _thread_dependent(e.rhs):
            return None
        varying, factor = (e.lhs, e.rhs) if _thread_dependent(e.lhs) else (e.rhs, e.lhs)
        steps = _thread_steps(varying)
        return None if steps is None else _scaled(steps, _constant(factor))
    if e.op == "<<" and not _thread_dependent(e.rhs):
        shift = _constant(e.rhs)
        steps = _thread_steps(e.lhs)
        if steps is None or shift is None or not 0 <= shift < 31:
            return None
        return _scaled(steps, 1 << shift)
    return None


def _constant(e: ir.Expr) -> int | None:
    while isinstance(e, ir.Cast):
        e = e.operand
    return literal_value(e)


def _scaled(steps: dict[str, int | None], factor: int | None) -> dict[str, int | None]:
    return {d: (c * factor if c is not None and factor is not None else None) for d, c in steps.items()}


def _sum(a: dict[str, int | None], b: dict[str, int | None]) -> dict[str, int | None]:
    out = dict(a)
    for d, c in b.items():
        if d not in out:
            out[d] = c
        else:
            out[d] = out[d] + c if out[d] is not None and c is not None else None
    return out


# ------------------------------------------------------------------------------ printing forms


def exact_value(w: ir.WideSubscript, thread: dict[str, ir.Expr]) -> ir.Expr:
    """``w.exact`` on exact integers: each part that no thread index enters, evaluated as C++
    does, converted to :data:`EXACT_INT`; conversions between integer types on the way from a
    thread index dropped (the exact value is what they reduce modulo 2^32 or 2^64); a shift by
    a literal as a product; ``threadIdx.d`` as ``thread[d]``."""

    def exact(e: ir.Expr) -> ir.Expr:
        if not _thread_dependent(e):
            return ir.Cast(EXACT_INT, e, loc=e.loc)
        if isinstance(e, ir.Builtin):
            return thread[e.dim]
        if isinstance(e, ir.Cast):
            return exact(e.operand)
        if isinstance(e, ir.Unary):
            operand = exact(e.operand)
            if e.op == "~":  # ~x == -x - 1 for the exact value as for its residue
                return ir.Binary("-", ir.Unary("-", operand, loc=e.loc), ir.Literal("1", loc=e.loc), loc=e.loc)
            return replace(e, operand=operand)
        assert isinstance(e, ir.Binary)
        if e.op == "<<":
            factor = ir.Cast(EXACT_INT, ir.Literal(str(1 << _constant(e.rhs)), loc=e.loc), loc=e.loc)
            return ir.Binary("*", exact(e.lhs), factor, loc=e.loc)
        return replace(e, lhs=exact(e.lhs), rhs=exact(e.rhs))

    return exact(w.exact)


def wide_index(w: ir.WideSubscript, first: ir.Expr) -> ir.Expr:
    """The subscript in 64 bits: ``w.exact`` at the thread ``first`` along ``w.dim`` (in its own
    type: there it is exact, by the block's test), plus ``w.step`` per thread from ``first``."""
    loc = w.loc

    def at_first(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Builtin) and n.var == "threadIdx" and n.dim == w.dim:
            return first
        return n

    start = ir.Cast("long long", ir.Cast("int" if w.signed else "unsigned", ir.transform(w.along, at_first),
                                         loc=loc), loc=loc)
    thread = ir.Cast("long long", ir.Builtin("threadIdx", w.dim, loc=loc), loc=loc)
    if literal_value(first) != 0:
        thread = ir.Binary("-", thread, ir.Cast("long long", first, loc=loc), loc=loc)
    if abs(w.step) != 1:
        thread = ir.Binary("*", ir.Literal(str(abs(w.step)), loc=loc), thread, loc=loc)
    return ir.Binary("+" if w.step > 0 else "-", start, thread, loc=loc)


def widened(body: ir.Block, wide: tuple[ir.WideSubscript, ...], first: ir.Expr) -> ir.Block:
    """``body`` with each of ``wide``'s subscripts in 64 bits (:func:`wide_index`)."""
    forms = {w.subscript: wide_index(w, first) for w in wide}

    def rewrite(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Index) and n.index in forms:
            return replace(n, index=forms[n.index])
        return n

    return _without_unused_declarations(ir.transform(body, rewrite))


def _without_unused_declarations(body: ir.Block) -> ir.Block:
    """``body`` without the integer locals that only the rewritten subscripts read (their
    initializers are arithmetic on the block's values, with no effect of their own): a
    declaration left unread would warn under ``-Wall``."""
    while True:
        read = {n.sym for n in body.walk() if isinstance(n, ir.Name)}
        unread = {n.sym for n in body.walk()
                  if isinstance(n, ir.VarDecl) and n.sym not in read and n.storage == "auto" and n.init is not None
                  and unpromoted_integer_kind(n.type) is not None and _pure_arithmetic(n.init)}
        if not unread:
            return body

        def drop(n: ir.Node, unread: set[int] = unread) -> ir.Node:
            if isinstance(n, ir.Block):
                kept = tuple(s for s in n.stmts if not (isinstance(s, ir.VarDecl) and s.sym in unread))
                return replace(n, stmts=kept) if len(kept) != len(n.stmts) else n
            return n

        body = ir.transform(body, drop)


def _pure_arithmetic(e: ir.Expr) -> bool:
    return all(isinstance(n, (ir.Literal, ir.Name, ir.Builtin, ir.Binary, ir.Cast)) or
               (isinstance(n, ir.Unary) and n.op in ("+", "-", "~") and not n.postfix) for n in e.walk())
