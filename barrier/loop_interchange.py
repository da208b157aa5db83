"""Pass ``loop-interchange``: move a serial per-thread loop out of the thread loop, so that the
block's threads run innermost (unit stride) and the loop outermost.

A CUDA thread that walks a column (hotspot3D: one thread per (x, y), a ``for`` over z with
running indices ``c += plane``) becomes, once threads are serialized, a thread loop around a
z loop: consecutive iterations of the innermost loop stride by a whole plane.  CUDA orders nothing
between the threads of a block without a barrier, so running every thread's iteration z before
any thread's z + 1 is one of the schedules the program already allows, provided the threads are
independent (no atomics, warp operations, ``volatile``, calls of unknown effect: the judge of
``thread-simd``) and all threads run the same iterations (the loop's header is block-uniform,
no ``break``/``return``/``goto`` leaves it).  Not under ``--schedule=nested``: there a block's
threads run on an inner team, and a moved loop would open a parallel region per iteration.

Running indices are rewritten in closed form first, else they would come back from per-thread
kept arrays on every iteration: ``c += plane`` at the end of the body makes ``c`` read as
``c + (z - z0) * plane`` inside the body (``c`` itself is then never assigned in the loop, so
``barrier-split`` may recompute it from ``threadIdx``).  Values the loop really carries
(``below = here``) stay per thread: ``barrier-split`` keeps them in per-thread arrays.

A running index read after the loop (hotspot3D writes its last plane after the loop, at the
indices' final values) reads there in closed form at the counter's last value: with
``for (z = a; z < b; ++z)``, ``c`` after the loop reads as ``c + ((a < b ? b : a) - a) * plane``,
provided ``a`` and ``b`` are arithmetic on locals and parameters the loop does not assign and
nothing after the loop assigns ``c``.

Profitable only when it changes strides: some running index is used as a subscript and starts
at a value with unit coefficient on ``threadIdx.x`` (``kernel_facts.KernelFacts.affine``), or
some subscript in the loop moves with its counter (or a nested loop's) and has unit coefficient
on ``threadIdx.x`` (kmeans' and streamcluster's feature-major ``feat[f * n + p]``: each thread
alone strides by ``n``, the threads together read consecutive floats); of an array of arrays,
the last subscript has unit coefficient on ``threadIdx.x`` and the others none (lud's tile
product ``row[k][threadIdx.x]``: each thread alone reads a column, the threads together a row).

The loop may sit inside a bounds guard ``if (p < n) { ...; for ...; ... }`` (no ``else``): the
guard goes into every piece.  Each thread then passes it in every piece or in none, because it
only compares locals and parameters that nothing in the kernel assigns (no memory, no call).
The loop's header now runs once per block even where no thread passes the guard, so it must be
unable to fault (no division, no memory).  A thread loop left holding a loop that qualifies
(the feature loop inside the moved centre loop) is interchanged in turn.  Each thread still runs
its own operations in its own order, so results are bit-identical; ``guard-folding`` later turns
the repeated guard into each thread loop's bound.

A grid-stride loop, ``for (T i = g; i < n; i += s)`` with ``g`` the thread's ``threadIdx.x`` plus
a block-uniform value (``blockIdx.x * blockDim.x + threadIdx.x``) and ``n``, ``s`` uniform, has no
uniform header of its own: each thread walks memory by the whole grid's stride.  It is first
written with one (:func:`_grid_strides_made_uniform`): the counter runs from the block's first
thread's start and each thread takes ``i = i0 + threadIdx.x`` behind the loop's own condition, so
every thread runs the same iterations with the same ``i`` as before, and then moves like any loop.

Counters declared before their loop and used nowhere else (``int i; ... for (i = 0; ...)``,
Rodinia's kmeans) are first declared by the loop; a ``tex1Dfetch`` coordinate counts as a
subscript, and locals declared in the loop stand for their initializers (``addr = p + j * n``).

Before::

    ThreadLoop {
        int c = j * nx + i;
        float here = tin[c];
        for (int z = 0; z < nz; ++z) {
            tout[c] = here + tin[c];
            here = tin[c];
            c += plane;
        }
    }

After (``barrier-split`` then keeps ``here`` per thread)::

    ThreadLoop { int c = j * nx + i; float here = tin[c]; }
    for (int z = 0; z < nz; ++z) {
        ThreadLoop {
            tout[c + z * plane] = here + tin[c + z * plane];
            here = tin[c + z * plane];
        }
    }

Behind a guard, with no running index (``d``, ``best`` kept per thread by ``barrier-split``)::

    ThreadLoop { int p = ...; if (p < n) { float best = M; for (int c = 0; c < k; c++) {
        float d = 0; for (int f = 0; f < nf; f++) d += sq(feat[f * n + p] - cen[c * nf + f]);
        if (d < best) best = d; } out[p] = best; } }

becomes::

    ThreadLoop { int p = ...; if (p < n) { float best = M; } }
    for (int c = 0; c < k; c++) {
        ThreadLoop { if (p < n) { float d = 0; } }
        for (int f = 0; f < nf; f++) ThreadLoop { if (p < n) d += sq(feat[f * n + p] - ...); }
        ThreadLoop { if (p < n) { if (d < best) best = d; } }
    }
    ThreadLoop { if (p < n) { out[p] = best; } }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.kernel_facts import kernel_facts
from barrier.liveness import assigned_symbols, assigned_variable, used_symbols
from barrier.thread_independence import threads_independent
from foundation import ir
from foundation.integer_types import integer_kind, unpromoted_integer_kind
from foundation.passes import PassContext, map_kernels, register


def _integer_counter_type(type_spelling: str) -> bool:
    """A counter this pass may compute in closed form: an integer type that arithmetic does not
    promote (so ``v + k * step`` wraps as ``k`` steps would), and not volatile (each access of a
    volatile is an effect the closed form would drop)."""
    return "volatile" not in type_spelling.split() and unpromoted_integer_kind(type_spelling) is not None


@dataclass(frozen=True)
class Induction:
    """A running index ``sym += step`` (``-=`` with ``sign`` -1) once per iteration."""

    sym: int
    name: str
    step: ir.Expr
    sign: int


def _counter(loop: ir.For, facts, uniform_step: bool = False) -> tuple[int, str, ir.Expr] | None:
    """``for (int z = a; z < b; ++z)`` with uniform ``a``, ``b``: (z, its name, a).  With
    ``uniform_step``, also ``z += s`` with ``s`` uniform (a grid-stride loop made uniform)."""
    init = loop.init
    if not (isinstance(init, ir.VarDecl) and init.storage == "auto" and init.init is not None
            and _integer_counter_type(init.type) and facts.is_uniform(init.init)):
        return None
    z = init.sym
    cond = loop.cond
    if not (isinstance(cond, ir.Binary) and cond.op in ("<", "<=", "!=") and isinstance(cond.lhs, ir.Name)
            and cond.lhs.sym == z and facts.is_uniform(cond.rhs)):
        return None
    step = loop.step
    unit = (isinstance(step, ir.Unary) and step.op == "++" and isinstance(step.operand, ir.Name)
            and step.operand.sym == z) or (isinstance(step, ir.Assign) and step.op == "+="
                                           and isinstance(step.target, ir.Name) and step.target.sym == z
                                           and isinstance(step.value, ir.Literal) and step.value.text == "1")
    uniform = (uniform_step and isinstance(step, ir.Assign) and step.op == "+=" and isinstance(step.target, ir.Name)
               and step.target.sym == z and facts.is_uniform(step.value))
    if not (unit or uniform) or z in assigned_symbols(loop.body, facts.device_bodies):
        return None
    return z, init.name, init.init


def _increment(s: ir.Stmt, facts, body_assigned: set[int]) -> Induction | None:
    """``v += e`` / ``v -= e`` / ``++v`` / ``v++`` / ``--v`` with ``e`` the same every iteration."""
    if not isinstance(s, ir.ExprStmt):
        return None
    e = s.expr
    if isinstance(e, ir.Unary) and e.op in ("++", "--") and isinstance(e.operand, ir.Name):
        return Induction(e.operand.sym, e.operand.name, ir.Literal("1", loc=e.loc), 1 if e.op == "++" else -1)
    if isinstance(e, ir.Assign) and e.op in ("+=", "-=") and isinstance(e.target, ir.Name):
        names = {n.sym for n in e.value.walk() if isinstance(n, ir.Name)}
        if names & body_assigned or not facts.is_uniform(e.value):
            return None
        return Induction(e.target.sym, e.target.name, e.value, 1 if e.op == "+=" else -1)
    return None


def _same_type_step(step: ir.Expr, type_: str, facts) -> bool:
    """The step computes in ``type_`` (names of that type, plain int literals): ``v + k * step``
    then wraps exactly as ``k`` times ``v += step`` would (a wider step would not be narrowed)."""
    for n in step.walk():
        if isinstance(n, ir.Name):
            symbol = facts.symbols.get(n.sym)
            if symbol is None or symbol.type.replace("const", "").strip() != type_:
                return False
        elif isinstance(n, ir.Literal):
            if not n.text.isdigit():
                return False
        elif not isinstance(n, (ir.Binary, ir.Unary)):
            return False
    return True


@dataclass
class Candidate:
    loop: ir.For
    inductions: list[Induction]
    body: tuple[ir.Stmt, ...]  # the body without the increments


def _candidate(loop: ir.Stmt, before: tuple[ir.Stmt, ...], after: tuple[ir.Stmt, ...], facts,
               guarded: bool = False) -> Candidate | None:
    """``loop`` as a loop to move, with ``before`` the thread's statements run before it and
    ``after`` those run after it (only their top-level declarations and uses matter).  A
    ``guarded`` loop runs only in the threads that pass a guard: its header then runs once per
    block even where no thread does, so it must not be able to fault."""
    if not isinstance(loop, ir.For) or ir.contains(loop, ir.Barrier) or ir.contains(loop, ir.WarpSync):
        return None
    loop = _header_at_block_level(loop, facts)
    if loop is None:
        return None
    header = _counter(loop, facts, uniform_step=True)
    if header is None:
        return None
    if guarded and not (_cannot_fault(header[2]) and _cannot_fault(loop.cond)):
        return None
    body = ir.as_block(loop.body).stmts
    if any(isinstance(n, (ir.Return, ir.Goto, ir.Label, ir.NextThread)) for n in loop.body.walk()):
        return None
    if _jumps_out(loop.body):
        return None
    # The increments: the trailing statements of the body, each a running index.
    assigned = assigned_symbols(loop.body, facts.device_bodies)
    declared_before = {s.sym for s in before if isinstance(s, ir.VarDecl) and s.storage == "auto"}
    inductions: list[Induction] = []
    k = len(body)
    while k > 0:
        ind = _increment(body[k - 1], facts, assigned)
        if ind is None:
            break
        inductions.append(ind)
        k -= 1
    kept_body = body[:k]
    inductions.reverse()
    if inductions and _counter(loop, facts) is None:
        return None  # closed forms count unit steps of the counter
    syms = [ind.sym for ind in inductions]
    if len(set(syms)) != len(syms):
        return None
    for ind in inductions:
        symbol = facts.symbols.get(ind.sym)
        if ind.sym not in declared_before or symbol is None or not _integer_counter_type(symbol.type):
            return None
        if not _same_type_step(ind.step, symbol.type.strip(), facts):
            return None
        # assigned only by its increment, never address-taken, not read after the loop (its
        # final value is not computed)
        if any(assigned_variable(n) == ind.sym for s in kept_body for n in s.walk()):
            return None
        if any(isinstance(n, ir.Unary) and n.op == "&" and ind.sym in used_symbols(n) for n in loop.walk()):
            return None
        if any(ind.sym in used_symbols(s) for s in after) and not _final_value_known(ind, loop, after, guarded, facts):
            return None
    if not (_profitable(inductions, kept_body, before, facts) or _unit_stride_in_threads(loop, facts)):
        return None
    return Candidate(loop, inductions, kept_body)


def _final_value_known(ind: Induction, loop: ir.For, after: tuple[ir.Stmt, ...], guarded: bool, facts) -> bool:
    """The running index ``ind``, read after ``loop``, can be read there in closed form
    (:func:`_final_values`): the loop counts ``for (z = a; z < b; ++z)`` with ``a`` and ``b`` made of
    locals, parameters and arithmetic that neither the loop nor the code after it assigns (so they
    read after it as they did before it) and that no declaration after it hides, the index is not
    assigned after the loop either (each read then sees the same final value), and no guard stands
    between the loop and those reads."""
    if guarded or not (isinstance(loop.cond, ir.Binary) and loop.cond.op == "<"):
        return False
    bodies = facts.device_bodies
    assigned = assigned_symbols(loop, bodies) | {sym for s in after for sym in assigned_symbols(s, bodies)}
    declared_after = {n.name for s in after for n in s.walk() if isinstance(n, ir.VarDecl)}
    for e in (loop.init.init, loop.cond.rhs):
        for n in e.walk():
            if isinstance(n, ir.Name):
                # read after the loop, it must still hold its value and name the same variable
                if n.sym in assigned or n.name in declared_after:
                    return False
            elif isinstance(n, ir.Unary):
                if n.op not in ("-", "+", "~", "!"):
                    return False
            elif not isinstance(n, (ir.Literal, ir.Binary)) or (
                    isinstance(n, ir.Binary) and n.op in ("/", "%", ",")):
                return False
    return not any(assigned_variable(n) == ind.sym for s in after for n in s.walk())


def _final_values(after: tuple[ir.Stmt, ...], inductions: list[Induction], loop: ir.For, z_start: ir.Expr,
                  loc) -> tuple[ir.Stmt, ...]:
    """Each running index read after the loop read as its value when the loop ends: the closed form
    ``v + (zend - z0) * step`` at the counter's last value ``zend = z0 < b ? b : z0`` (the loop
    runs no iteration where ``z0 >= b``)."""
    z_end = ir.Conditional(ir.Binary("<", z_start, loop.cond.rhs, loc=loc), loop.cond.rhs, z_start, loc=loc)
    trip = ir.Binary("-", z_end, z_start, loc=loc)
    by_sym = {ind.sym: ind for ind in inductions}

    def rewrite(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Name) and n.sym in by_sym:
            ind = by_sym[n.sym]
            offset = ir.Binary("*", trip, ind.step, loc=loc)
            return ir.Binary("+" if ind.sign > 0 else "-", n, offset, loc=loc)
        return n
    return tuple(_rewrite_names(s, rewrite) for s in after)


def _header_at_block_level(loop: ir.For, facts) -> ir.For | None:
    """``loop`` with the locals of its header (``int depth = nz; for (...; z < depth; ...)``,
    ``i += stride``) replaced by their definitions: the moved loop runs outside every thread loop,
    where the thread's locals are not declared.  They are immutable there (or the header is not
    uniform and the loop does not move); None when a local is left (defined too deep)."""
    counter = loop.init.sym if isinstance(loop.init, ir.VarDecl) else None

    def expand(e: ir.Expr | None) -> ir.Expr | None:
        if e is None:
            return None
        for _ in range(4):  # locals defined from locals, a few deep
            e = _rewrite_names(e, lambda m: facts.local_init[m.sym] if m.sym != counter and m.sym in facts.local_init
                               and m.sym not in facts.mutable else m)
        return e
    init = loop.init
    if isinstance(init, ir.VarDecl):
        init = replace(init, init=expand(init.init))
    header = replace(loop, init=init, cond=expand(loop.cond), step=expand(loop.step))
    for part in (header.init, header.cond, header.step):
        for n in (part.walk() if part is not None else ()):
            symbol = facts.symbols.get(n.sym) if isinstance(n, ir.Name) else None
            if symbol is not None and n.sym != counter and symbol.kind == "local":
                return None
    return header


def _jumps_out(node: ir.Node, in_loop: bool = False, in_switch: bool = False) -> bool:
    """A ``break``/``continue`` of the loop's own body (not of a nested loop or switch)."""
    if isinstance(node, ir.Break):
        return not (in_loop or in_switch)
    if isinstance(node, ir.Continue):
        return not in_loop
    if isinstance(node, ir.Expr):
        return False
    loop = in_loop or isinstance(node, (ir.For, ir.While, ir.DoWhile))
    switch = in_switch or isinstance(node, ir.Switch)
    return any(_jumps_out(c, loop, switch) for c in node.children())


def _profitable(inductions: list[Induction], body: tuple[ir.Stmt, ...], before: tuple[ir.Stmt, ...],
                facts) -> bool:
    """Some running index used as a subscript starts at ``threadIdx.x`` with coefficient 1: after
    the interchange consecutive threads of the innermost loop touch consecutive elements."""
    inits = {s.sym: s.init for s in before if isinstance(s, ir.VarDecl) and s.init is not None}
    subscripted: set[int] = set()
    for s in body:
        for n in s.walk():
            if isinstance(n, ir.Index):
                subscripted |= {m.sym for m in n.index.walk() if isinstance(m, ir.Name)}
    for ind in inductions:
        if ind.sym not in subscripted or ind.sym not in inits:
            continue
        start = facts.affine(inits[ind.sym])
        if start is not None and start.coef[0].as_int() == 1:  # coefficient of threadIdx.x
            return True
    return False


def _loop_counters(loop: ir.For) -> set[int]:
    """The counters declared by ``loop`` and the ``for`` loops nested in it."""
    return {n.init.sym for n in loop.walk() if isinstance(n, ir.For) and isinstance(n.init, ir.VarDecl)}


def _unit_stride_in_threads(loop: ir.For, facts) -> bool:
    """Some subscript in ``loop`` (nested loops included; a texture fetch's coordinate counts as
    one, locals declared in the loop stand for their initializers) moves with a loop counter and,
    the counters held fixed (at 0 and at 1), has coefficient 1 on ``threadIdx.x``: kmeans'
    ``feat[f * n + p]``.  With the threads innermost, consecutive iterations then touch
    consecutive elements where each thread alone strides by ``n``."""
    counters = _loop_counters(loop)
    assigned = assigned_symbols(loop, facts.device_bodies)
    inits = {n.sym: n.init for n in loop.walk()
             if isinstance(n, ir.VarDecl) and n.init is not None and n.sym not in assigned and n.sym not in counters}
    # Each access as its subscripts, outermost first: a[e] is [e], a[e1][e2] is [e1, e2] (the
    # inner Index of the chain is not an access of its own).
    inner = {id(n.base) for n in loop.walk() if isinstance(n, ir.Index) and isinstance(n.base, ir.Index)}
    accesses = [_subscripts(n) for n in loop.walk() if isinstance(n, ir.Index) and id(n) not in inner]
    accesses += [[n.args[-1]] for n in loop.walk() if isinstance(n, ir.Call)
                 and ir.callee_name(n.func) == "tex1Dfetch" and len(n.args) == 2]
    for subscripts in accesses:
        for _ in range(4):  # locals initialized from locals, a few deep
            subscripts = [_rewrite_names(e, lambda m: inits.get(m.sym, m)) for e in subscripts]
        if not any(counters & used_symbols(e) for e in subscripts):
            continue
        # the last subscript steps by 1 with threadIdx.x, the others not at all (lud's
        # peri_row[i][threadIdx.x]: consecutive threads read a row, each thread alone a column)
        wanted = [0] * (len(subscripts) - 1) + [1]
        coefficients = []
        for value in ("0", "1"):
            for e in subscripts:
                fixed = _rewrite_names(e, lambda m: ir.Literal(value, loc=m.loc) if m.sym in counters else m)
                form = facts.affine(fixed)
                coefficients.append(None if form is None else form.coef[0].as_int())
        if coefficients == wanted + wanted:
            return True
    return False


def _subscripts(access: ir.Index) -> list[ir.Expr]:
    """``a[e1][e2]``'s subscripts, outermost first."""
    found = []
    while isinstance(access, ir.Index):
        found.append(access.index)
        access = access.base
    return found[::-1]


def _counters_declared_in_loops(body: ir.Block) -> ir.Block:
    """``int i; ... for (i = a; ...) ...`` becomes ``for (int i = a; ...)`` where the loop holds
    every use of ``i`` (its value before and after the loop is never read): C89-style counters,
    as Rodinia's kmeans declares them, become loop counters this pass can read."""
    def sink(node: ir.Node) -> ir.Node:
        if not isinstance(node, ir.Block):
            return node
        stmts = list(node.stmts)
        m = 0
        while m < len(stmts):
            d = stmts[m]
            loop = _only_loop_using(d, stmts[m + 1:]) if isinstance(d, ir.VarDecl) else None
            if loop is None:
                m += 1
                continue
            value = loop.init.expr.value
            declared = ir.For(ir.VarDecl(d.sym, d.name, d.type, value, loc=loop.init.loc), loop.cond, loop.step,
                              loop.body, loc=loop.loc)
            rest = tuple(_replaced(s, loop, declared) for s in stmts[m + 1:])
            stmts = stmts[:m] + list(rest)
        return replace(node, stmts=tuple(stmts))
    return ir.transform(body, sink)


def _replaced(node: ir.Node, old: ir.Node, new: ir.Node) -> ir.Node:
    """``node`` with the node ``old`` (that object) replaced by ``new``."""
    if node is old:
        return new
    return ir.map_children(node, lambda c: _replaced(c, old, new))


def _grid_strides_made_uniform(body: ir.Block, facts, ctx: PassContext) -> ir.Block:
    """Each grid-stride loop among ``body``'s statements, ``for (T i = g; i < n; i += s)`` with
    ``g`` the thread's ``threadIdx.x`` plus a block-uniform value and ``n``, ``s`` uniform, as a
    loop with a block-uniform header: the counter runs from the block's first thread's start
    ``g0`` (``g`` at ``threadIdx.x`` 0) and each thread takes its element behind a guard::

        for (T i0 = g0; i0 < n; i0 += s) { T i = i0 + threadIdx.x; if (i < n) body }

    A thread runs the same iterations, in the same order, with the same ``i`` (``i0`` only ever
    holds values the block's first thread's own ``i`` takes): the ``i`` of thread ``t`` in
    iteration ``k`` is ``g0 + t + k * s`` either way, and reaches ``n`` no earlier than the first
    thread's.  ``i`` must be assigned only by the step, and nothing may leave the loop early (a
    loop that does not move would only be slower)."""
    def made_uniform(s: ir.Stmt) -> ir.Stmt:
        if not isinstance(s, ir.For):
            return s
        init, cond, step = s.init, s.cond, s.step
        if not (isinstance(init, ir.VarDecl) and init.storage == "auto" and init.init is not None
                and _integer_counter_type(init.type)):
            return s
        i = init.sym
        if not (isinstance(cond, ir.Binary) and cond.op == "<" and isinstance(cond.lhs, ir.Name) and cond.lhs.sym == i
                and facts.is_uniform(cond.rhs)):
            return s
        if not (isinstance(step, ir.Assign) and step.op == "+=" and isinstance(step.target, ir.Name)
                and step.target.sym == i and facts.is_uniform(step.value)):
            return s
        if i in assigned_symbols(s.body, facts.device_bodies) or facts.is_uniform(init.init) or _jumps_out(s.body):
            return s
        start = facts.affine(init.init)
        if start is None or [c.as_int() for c in start.coef] != [1, 0, 0]:
            return s
        first = _at_first_thread(init.init, facts)
        if first is None:
            return s
        loc = s.loc
        name = f"{init.name}_block"
        block_i = ctx.fresh_sym(name, init.type, "local", loc)
        thread_x = ir.Builtin("threadIdx", "x", loc=loc)
        own = ir.VarDecl(i, init.name, init.type, ir.Binary("+", ir.Name(name, block_i, loc=loc), thread_x, loc=loc),
                         loc=loc)
        guarded = ir.If(cond, s.body, None, loc=loc)
        return ir.For(ir.VarDecl(block_i, name, init.type, first, loc=init.loc),
                      replace(cond, lhs=ir.Name(name, block_i, loc=cond.lhs.loc)),
                      replace(step, target=ir.Name(name, block_i, loc=step.target.loc)),
                      ir.Block((own, guarded), loc=loc), loc=loc)
    return replace(body, stmts=tuple(made_uniform(s) for s in body.stmts))


def _at_first_thread(e: ir.Expr, facts) -> ir.Expr | None:
    """``e`` with ``threadIdx.x`` as 0 (immutable locals replaced by their definitions first), when
    that is block-uniform; else None."""
    for _ in range(4):  # locals defined from locals, a few deep
        e = _rewrite_names(e, lambda m: facts.local_init.get(m.sym, m) if m.sym not in facts.mutable else m)
    first = _rewrite_builtins(e, lambda b: ir.Literal("0", loc=b.loc) if (b.var, b.dim) == ("threadIdx", "x") else b)
    return first if facts.is_uniform(first) else None


def _rewrite_builtins(node: ir.Node, fn) -> ir.Node:
    """Bottom-up rewrite of the ``Builtin`` leaves only."""
    if isinstance(node, ir.Builtin):
        return fn(node)
    return ir.map_children(node, lambda c: _rewrite_builtins(c, fn))


def _only_loop_using(d: ir.VarDecl, after: list[ir.Stmt]) -> ir.For | None:
    """The one ``for (d = a; ...)`` of ``after`` that holds every use of ``d``, if there is one."""
    if not (d.storage == "auto" and d.init is None and _integer_counter_type(d.type)):
        return None
    loops = [n for s in after for n in s.walk() if isinstance(n, ir.For) and isinstance(n.init, ir.ExprStmt)
             and isinstance(n.init.expr, ir.Assign) and n.init.expr.op == "="
             and isinstance(n.init.expr.target, ir.Name) and n.init.expr.target.sym == d.sym]
    if len(loops) != 1 or d.sym in used_symbols(loops[0].init.expr.value):
        return None
    uses = sum(isinstance(n, ir.Name) and n.sym == d.sym for s in after for n in s.walk())
    inside = sum(isinstance(n, ir.Name) and n.sym == d.sym for n in loops[0].walk())
    return loops[0] if uses == inside else None


#: Operators that cannot fault or change state: a header made of these, names and literals runs
#: safely once per block even where no thread passes the guard.
_SAFE_OPS = frozenset("+ - * << >> & | ^ < <= > >= == != && || !".split())


def _cannot_fault(e: ir.Expr | None) -> bool:
    if e is None:
        return True
    for n in e.walk():
        if isinstance(n, (ir.Binary, ir.Unary)):
            if n.op not in _SAFE_OPS:
                return False
        elif isinstance(n, ir.Cast):
            if integer_kind(n.type) is None and n.type.strip() not in ("float", "double"):
                return False
        elif not isinstance(n, (ir.Name, ir.Literal, ir.Builtin)):
            return False
    return True


def _repeatable_guard(cond: ir.Expr, kernel: ir.Kernel, facts) -> bool:
    """``cond`` gives each thread the same value wherever it is evaluated again in the kernel:
    operators without effect over builtins, literals and local variables or parameters that
    nothing assigns (not references, not volatile: reading those reads memory)."""
    if not _cannot_fault(cond):
        return False
    assigned = assigned_symbols(kernel.body, facts.device_bodies)
    for n in cond.walk():
        if isinstance(n, ir.Name):
            symbol = facts.symbols.get(n.sym)
            if (symbol is None or symbol.kind not in ("local", "param") or n.sym in assigned
                    or "&" in symbol.type or "volatile" in symbol.type.split()):
                return False
    return True


def _closed_form(body: tuple[ir.Stmt, ...], inductions: list[Induction], z: int, z_name: str,
                 z_start: ir.Expr, loc) -> tuple[ir.Stmt, ...]:
    """Replace each running index ``v`` by ``v + (z - z0) * step`` in the body."""
    trip = ir.Name(z_name, z, loc=loc)
    if not (isinstance(z_start, ir.Literal) and z_start.text == "0"):
        trip = ir.Binary("-", trip, z_start, loc=loc)
    by_sym = {ind.sym: ind for ind in inductions}

    def rewrite(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Name) and n.sym in by_sym:
            ind = by_sym[n.sym]
            offset = ir.Binary("*", trip, ind.step, loc=loc)
            return ir.Binary("+" if ind.sign > 0 else "-", n, offset, loc=loc)
        return n
    return tuple(_rewrite_names(s, rewrite) for s in body)


def _rewrite_names(node: ir.Node, fn) -> ir.Node:
    """Bottom-up rewrite of the ``Name`` leaves only (the result is not revisited)."""
    if isinstance(node, ir.Name):
        return fn(node)
    return ir.map_children(node, lambda c: _rewrite_names(c, fn))


def movable_loop(loop: ir.ThreadLoop, facts, kernel: ir.Kernel
                 ) -> tuple[tuple[ir.Stmt, ...], Candidate, tuple[ir.Stmt, ...], ir.If | None] | None:
    """The first loop of ``loop``'s body this pass moves, as (the statements before it, the
    candidate, the statements after it, the guard around it or None); None when there is none.
    The threads' independence is judged apart (:func:`threads_independent`)."""
    stmts = loop.body.stmts
    for i in range(len(stmts)):
        cand = _candidate(stmts[i], stmts[:i], stmts[i + 1:], facts)
        if cand is not None:
            return stmts[:i], cand, stmts[i + 1:], None
    # kmeans' shape: the loop inside the bounds guard ``if (p < n) { ...; for ...; ... }``.
    # The guard goes into each piece; it reads only what nothing assigns, so each thread
    # passes it in every piece or in none.
    for k, guard in enumerate(stmts):
        if not (isinstance(guard, ir.If) and guard.otherwise is None
                and _repeatable_guard(guard.cond, kernel, facts)):
            continue
        inner = ir.as_block(guard.then).stmts
        for i in range(len(inner)):
            cand = _candidate(inner[i], stmts[:k] + inner[:i], inner[i + 1:] + stmts[k + 1:], facts,
                              guarded=True)
            if cand is None:
                continue
            before = stmts[:k] + ((replace(guard, then=ir.Block(inner[:i], loc=guard.then.loc)),)
                                  if inner[:i] else ())
            after = ((replace(guard, then=ir.Block(inner[i + 1:], loc=inner[i + 1].loc)),)
                     if inner[i + 1:] else ()) + stmts[k + 1:]
            return before, cand, after, guard
    return None


def _reordered_part(loop: ir.ThreadLoop, before: tuple[ir.Stmt, ...], moved: ir.For,
                    after: tuple[ir.Stmt, ...]) -> ir.ThreadLoop:
    """The part of ``loop`` whose operations the interchange runs in another order across threads:
    the moved loop with what runs between it and the ``__syncthreads`` around it (the statements
    holding those barriers included: code after a barrier inside a loop runs again before the
    moved loop).  Code beyond them is ordered by the barrier before and after alike, so only
    this part must have independent threads (graphExecution's reduce: its warp-tile reduction
    after the barrier does not keep its grid-stride loop from moving)."""
    holds_barrier = [ir.contains(s, ir.Barrier) for s in before]
    first = max((i for i, b in enumerate(holds_barrier) if b), default=0)
    holds_barrier = [ir.contains(s, ir.Barrier) for s in after]
    last = min((i for i, b in enumerate(holds_barrier) if b), default=len(after) - 1)
    # the thread's own variables declared further back stay declared (their updates are the
    # thread's own, not a shared scalar's)
    declarations = tuple(s for s in before[:first] if isinstance(s, ir.VarDecl))
    part = declarations + before[first:] + (moved,) + after[:last + 1]
    return replace(loop, body=ir.Block(part, loc=loop.body.loc))


def loop_to_move(loop: ir.ThreadLoop, facts, kernel: ir.Kernel, ctx: PassContext) -> ir.For | None:
    """The loop this pass would move first out of ``loop`` (a thread loop of ``kernel``), or
    None: for a pass that prepares its work (``inline-for-interchange``)."""
    found = movable_loop(replace(loop, body=_counters_declared_in_loops(loop.body)), facts, kernel)
    if found is None or not threads_independent(loop, ctx):
        return None
    return found[1].loop


@register
@dataclass(frozen=True)
class LoopInterchange:
    name = "loop-interchange"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        if ctx.schedule == "nested":
            # The nested schedule spreads a block's threads over an inner team: a moved loop
            # would open a parallel region per iteration (a <<<1, 1>>> grid-stride loop, one per
            # element), and there is no thread loop to vectorize in one OpenMP thread.
            return program
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or ir.contains(grid, ir.FiberLoop):
            return kernel
        facts = None
        new_stmts: list[ir.Stmt] = []
        changed = False
        for s in grid.body.stmts:
            if not isinstance(s, ir.ThreadLoop) or s.kept or s.exit_flag:
                new_stmts.append(s)
                continue
            if facts is None:
                facts = kernel_facts(kernel, ctx)
            split = self.interchange(s, facts, kernel, ctx)
            changed |= split is not None
            new_stmts.extend(split if split is not None else [s])
        if not changed:
            return kernel
        return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=tuple(new_stmts))))

    def interchange(self, loop: ir.ThreadLoop, facts, kernel, ctx) -> list[ir.Stmt] | None:
        loop = replace(loop, body=_counters_declared_in_loops(loop.body))
        loop = replace(loop, body=_grid_strides_made_uniform(loop.body, facts, ctx))
        found = movable_loop(loop, facts, kernel)
        if found is None:
            return None
        before, cand, after, guard = found
        return self._split(loop, before, cand, after, guard, facts, kernel, ctx)

    def _split(self, loop: ir.ThreadLoop, before: tuple[ir.Stmt, ...], cand: Candidate,
               after: tuple[ir.Stmt, ...], guard: ir.If | None, facts, kernel, ctx) -> list[ir.Stmt]:
        """``before`` in a thread loop, the candidate loop around a thread loop of its body (inside
        ``guard`` where there is one; itself interchanged again where it can be: a loop nested in
        the moved one), then ``after`` in a thread loop (interchanged again too)."""
        if not threads_independent(_reordered_part(loop, before, cand.loop, after), ctx):
            return None
        L = cand.loop
        z, z_name, z_start = _counter(L, facts, uniform_step=True)
        body = _closed_form(cand.body, cand.inductions, z, z_name, z_start, L.loc)
        ctx.report(kernel).interchanged.append(
            {"line": L.loc.line, "closed_form": [ind.name for ind in cand.inductions]})
        if guard is not None:
            body = (replace(guard, then=ir.Block(body, loc=L.loc), loc=L.loc),)
        inner = ir.ThreadLoop(ir.Block(body, loc=L.loc), loc=L.loc)
        inner_split = self.interchange(inner, facts, kernel, ctx)
        moved = ir.For(L.init, L.cond, L.step, ir.Block(tuple(inner_split or (inner,)), loc=L.loc), loc=L.loc)
        if guard is None:
            after = _final_values(after, cand.inductions, L, z_start, L.loc)
        out: list[ir.Stmt] = []
        if before:
            out.append(replace(loop, body=ir.Block(before, loc=loop.body.loc)))
        out.append(moved)
        if after:
            rest = ir.ThreadLoop(ir.Block(after, loc=after[0].loc), loc=after[0].loc)
            out.extend(self.interchange(rest, facts, kernel, ctx) or [rest])
        return out
