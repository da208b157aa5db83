"""Pass ``guard-folding``: fold a thread loop's range guard into the loop's bounds.

Requires: ``barrier-split`` (thread loops hold no barrier).  gcc 12 does not vectorize a loop
whose body is guarded by ``if (i < n)``; with the guard folded into the bound it does.  A thread
loop qualifies when its body is

* declarations without side effects (the *prefix*; no calls, assignments or kept values), then
* either one ``if (cond) {...}`` with no ``else`` and nothing after it, or an early exit
  ``if (cond) return;`` followed by the rest of the body,

and ``cond`` (negated for an early exit) is a conjunction some of whose terms compare an index
``first + threadIdx.d`` (through the prefix's declarations) with a limit that no thread changes:
``i < n``, ``tid <= s``, ``n > col``.  Those terms become :class:`~foundation.ir.ThreadBound`\\ s
of the loop; the others stay in the ``if``.  The index must not wrap around within one block (a
grid whose flat index overflows its type is already broken on a GPU).

Before::

    ThreadLoop {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
    }

After::

    ThreadLoop [bounds: x: (int)(blockIdx.x * blockDim.x) + tx < n] {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        c[i] = a[i] + b[i];
    }

which prints as ``for (unsigned tx = 0; tx < tx_end; ++tx)`` with ``tx_end`` computed once by
``moccuda::threads_below``.

In the final guard the other side folds too: ``index >= limit`` (``index > limit``, ``limit <=
index``) is a *lower* bound, and the loop starts past the threads that fail it (a prefix, as the
index grows by one per thread without wrapping): ``tx_begin`` is ``moccuda::threads_below(first,
limit, blockDim.x)``.  An equality ``threadIdx.y == c`` is both bounds: the threads of row
``c``, none where ``c`` is past ``blockDim.y``.  What the guard held may end in a guard again
(``if (threadIdx.y == 0) { if (threadIdx.x == 0) ... }``, the two nested by
``barrier-interchange``'s guarded warp branches): it folds too.  Leading statements that reset a kept flag to a value read from no memory
(``computed = false;``, GPU halo tiling's way to remember which threads computed) may stand
between the prefix and the guard: they run for every thread in a loop of their own just before
the guarded one.  Each thread's reset still precedes its own guarded statements, and a reset
touches only its thread's storage, so the results are the same.  Before (hotspot's step)::

    ThreadLoop(kept computed) {
        int tx = threadIdx.x; int lo = ...;
        computed = false;
        if (tx >= i + 1 && tx <= 16 - i - 2 && tx >= lo) { computed = true; t[tx] = ...; }
    }

After::

    ThreadLoop(kept computed) { computed = false; }
    ThreadLoop(kept computed) [bounds: x: 0 + tx >= i + 1, 0 + tx >= lo, 0 + tx <= 16 - i - 2] {
        int tx = threadIdx.x; int lo = ...;
        computed = true; t[tx] = ...;
    }

which prints as ``for (unsigned tx = tx_begin; tx < tx_end; ++tx)``: no control flow in the loop
(gcc 12 without masked stores cannot if-convert the guarded store), and the threads the guard
turns away are not visited.

A final-guard term ``index % divisor == 0`` (``0 == ...``, ``!(index % divisor)``), with ``index``
exactly ``first + threadIdx.d`` and ``divisor`` the same for every thread, both provably never
negative, becomes the loop's :class:`~foundation.ir.ThreadStride`: the threads passing it are
every ``divisor``-th from the first multiple, whatever types C++ computes the remainder in.  A
block-level ``for`` counter that starts nonnegative and only grows (``i = 2 * i``, ``s *= 2``,
``i++``) counts as nonnegative in its body.  Before (the interleaved tree of Rodinia srad)::

    for (int i = 2; i <= 512; i = 2 * i) {
        ThreadLoop { int tx = threadIdx.x; if ((tx + 1) % i == 0) s[tx] += s[tx - i / 2]; }
    }

After::

    for (int i = 2; i <= 512; i = 2 * i) {
        ThreadLoop [stride: x: ((int)0u + 1 + tx) % i == 0] { int tx = threadIdx.x; s[tx] += s[tx - i / 2]; }
    }

which prints as ``for (int tx = first_multiple(...); tx < blockDim.x; tx += i)``: 511 additions
over the tree instead of 512 divisions per level.

A kept ``bool`` that records which threads passed a folded guard folds too.  Along one
block-level statement list, a loop without bounds whose every thread sets ``f = false;``, then a
loop with bounds whose every thread sets ``f = true;``, leave ``f`` true in exactly the threads
within those bounds; a later loop's final guard ``if (f)`` takes the same bounds, evaluated again
over the same values (none of them assigned in between, none read from memory), while nothing
changes ``f``.  GPU halo tiling's ``computed`` (Rodinia hotspot, pathfinder) decides the copy back
into ``__shared__`` memory after each step.  Before (one step of the tile's loop)::

    ThreadLoop(kept computed) { computed = false; }
    ThreadLoop(kept computed) [bounds: x: 0 + tx >= i + 1, 0 + tx <= 14 - i] { computed = true; next[tx] = ...; }
    ThreadLoop(kept computed) { int tx = threadIdx.x; if (computed) prev[tx] = next[tx]; }

After (the last loop)::

    ThreadLoop [bounds: x: 0 + tx >= i + 1, 0 + tx <= 14 - i] { int tx = threadIdx.x; prev[tx] = next[tx]; }

Guards on a grid-wide index elsewhere in the body, as ``if`` statements or as the condition of a
conditional expression, give the loop a second body without them for the blocks all of whose
threads pass them (every block but the grid's last).  Before::

    ThreadLoop {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        sdata[tid] = (i < unsigned(n)) ? g_idata[i] : 0;
    }

After::

    ThreadLoop [full blocks: x: blockIdx.x * blockDim.x + tx < (unsigned)n] {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        sdata[tid] = (i < unsigned(n)) ? g_idata[i] : 0;
    } fast_body {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        sdata[tid] = true ? g_idata[i] : 0;
    }

which prints both loops behind ``if (moccuda::every_thread_below(...))``, tested once per block.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.accesses import is_pure_function
from barrier.liveness import assigned_symbols, assigned_variable, without_unused_decls
from foundation import ir
from foundation.integer_types import int_literal, integer_kind, unpromoted_integer_kind
from foundation.passes import PassContext, map_kernels, register

_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_VALUE_OPS = frozenset("+ - * / % << >> & | ^ < <= > >= == != && ||".split())
_ZERO = ir.Literal("0u")


@register
@dataclass(frozen=True)
class GuardFolding:
    name: str = "guard-folding"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: _fold(k, ctx.symbols, ctx.device_bodies))


def _fold(node: ir.Node, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction],
          nonnegative: frozenset[int] = frozenset()) -> ir.Node:
    """``node`` with its thread loops folded; a loop in a block may become two there.
    ``nonnegative``: the block-level loop counters that are never negative where ``node`` runs."""
    if isinstance(node, ir.ThreadLoop):
        folded = _fold_loop(node, symbols, bodies, nonnegative)
        return folded[0] if len(folded) == 1 else ir.Block(folded, loc=node.loc)
    if isinstance(node, ir.Block):
        stmts: list[ir.Stmt] = []
        flags: dict[int, _FlagFact] = {}  # kept flags whose value is known, in statement order
        for s in node.stmts:
            if isinstance(s, ir.ThreadLoop):
                folded = _fold_loop(s, symbols, bodies, nonnegative, flags)
                for loop in folded:
                    flags = _flags_after_loop(loop, flags, symbols, bodies)
                stmts.extend(folded)
            else:
                stmts.append(_fold(s, symbols, bodies, nonnegative))
                flags = _flags_after(stmts[-1], flags, bodies)
        return replace(node, stmts=tuple(stmts)) if any(a is not b for a, b in zip(stmts, node.stmts)) or \
            len(stmts) != len(node.stmts) else node
    if isinstance(node, ir.For) and (counter := _nonnegative_counter(node, symbols, bodies)) is not None:
        body = _fold(node.body, symbols, bodies, nonnegative | {counter})
        return node if body is node.body else replace(node, body=body)
    return ir.map_children(node, lambda child: _fold(child, symbols, bodies, nonnegative))


def _nonnegative_counter(loop: ir.For, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction]) -> int | None:
    """The counter of a block-level ``for (int i = c; ...; i = 2 * i)`` that is never negative in
    its body: declared by the loop with a nonnegative value of an integer type, changed only by
    a step that keeps it so (``i = k * i``, ``i *= k``, ``i <<= k``, ``i += k``, ``i++``, with
    ``k`` nonnegative: signed overflow is undefined in CUDA too), nowhere else."""
    init = loop.init
    if not (isinstance(init, ir.VarDecl) and init.init is not None and integer_kind(init.type) is not None):
        return None
    sym = init.sym
    if not _nonnegative(init.init, symbols, frozenset()) or loop.step is None:
        return None
    step = loop.step
    kept_nonnegative = False
    if isinstance(step, ir.Unary) and step.op == "++" and isinstance(step.operand, ir.Name) and step.operand.sym == sym:
        kept_nonnegative = True
    elif isinstance(step, ir.Assign) and isinstance(step.target, ir.Name) and step.target.sym == sym:
        if step.op in ("*=", "<<=", "+=", "|="):
            kept_nonnegative = _nonnegative(step.value, symbols, frozenset())
        elif step.op == "=" and isinstance(step.value, ir.Binary) and step.value.op in ("*", "+", "<<"):
            v = step.value
            others = [x for x in (v.lhs, v.rhs) if not (isinstance(x, ir.Name) and x.sym == sym)]
            kept_nonnegative = len(others) == 1 and (v.op != "<<" or v.lhs is not others[0]) \
                and _nonnegative(others[0], symbols, frozenset())
    if not kept_nonnegative:
        return None
    changed = assigned_symbols(loop.body, bodies) | (assigned_symbols(loop.cond, bodies) if loop.cond else set())
    return None if sym in changed else sym


def _nonnegative(e: ir.Expr, symbols: dict[int, ir.Symbol], counters: frozenset[int]) -> bool:
    """``e`` is never negative: integer literals, builtin indices, variables of unsigned types or
    among the nonnegative ``counters``, and sums, products, quotients, shifts of such values
    (signed overflow is undefined in CUDA too); a conversion to an unsigned type, to a signed
    type of 64 bits, or to a signed type of 32 bits of a literal or a builtin index (below
    2**31)."""
    if isinstance(e, ir.Literal):
        return int_literal(e.text) is not None
    if isinstance(e, ir.Builtin):
        return True
    if isinstance(e, ir.Name):
        if e.sym in counters:
            return True
        symbol = symbols.get(e.sym)
        kind = None if symbol is None else unpromoted_integer_kind(symbol.type)
        return kind is not None and not kind[0]
    if isinstance(e, ir.Binary) and e.op in ("+", "*", "/", "%", ">>", "<<", "&", "|"):
        return _nonnegative(e.lhs, symbols, counters) and _nonnegative(e.rhs, symbols, counters)
    if isinstance(e, ir.Cast):
        kind = integer_kind(e.type)
        if kind is None:
            return False
        if not kind[0]:
            return True
        if kind[1] >= 64 or (kind[1] == 32 and isinstance(e.operand, (ir.Literal, ir.Builtin))):
            return _nonnegative(e.operand, symbols, counters)
    return False


def _fold_loop(node: ir.ThreadLoop, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction],
               nonnegative: frozenset[int] = frozenset(), flags: dict[int, "_FlagFact"] | None = None) -> tuple[ir.Stmt, ...]:
    if node.marks_exit or node.bounds or node.fast_body or node.stride:
        return (node,)
    folded = _fold_final_guard(node, symbols, bodies, nonnegative, flags or {})
    if folded == (node,):
        return (_version_for_full_blocks(node, symbols, bodies),)
    # What the guard held may end in a guard of its own (if (threadIdx.y == 0) { if
    # (threadIdx.x == 0) ... }): the threads that pass both.
    while (inner := _fold_final_guard(folded[-1], symbols, bodies, nonnegative)) != (folded[-1],):
        folded = folded[:-1] + inner
    return folded


def _prefix(stmts: tuple[ir.Stmt, ...], kept: set[int]) -> dict[int, ir.VarDecl]:
    prefix: dict[int, ir.VarDecl] = {}
    for s in stmts:
        if not _pure_decl(s, kept):
            break
        prefix[s.sym] = s
    return prefix


def _version_for_full_blocks(node: ir.ThreadLoop, symbols: dict[int, ir.Symbol],
                             bodies: dict[str, ir.DeviceFunction]) -> ir.ThreadLoop:
    """Guards in the middle of the body (``if (i < n) v = in[i];``) cannot become the loop's
    bound, but in every block except the grid's last all threads pass them: give the loop a
    second body without them (``fast_body``), run when ``fast_bounds`` admit every thread."""
    stmts = node.body.stmts
    kept = {kv.sym for kv in node.kept}
    assigned = assigned_symbols(node.body, bodies)
    # Only never-assigned declarations: the guard then reads the value they were declared with.
    prefix = {sym: d for sym, d in _prefix(stmts, kept).items() if sym not in assigned}
    varying = assigned | _declared(node.body) | kept
    folder = _Folder(prefix, varying - set(prefix), symbols)
    # The block-level test reads the limit once, before any thread runs.  A thread reaches a guard
    # in the middle of its body after its own earlier statements: where they can store to memory
    # (lim[b] = 0; if (i < lim[b]) ...), a limit read from memory may differ by then.
    folder.memory_limits = not _may_store_to_memory(node.body, symbols)
    bounds: list[ir.ThreadBound] = []
    fast: list[ir.Stmt] = []

    def grid_wide(terms: list[ir.Expr]) -> tuple[list[ir.ThreadBound], list[ir.Expr]]:
        # A guard on threadIdx alone (tid < 16) picks the same threads in every block:
        # only one on a grid-wide index is passed by whole blocks.
        return folder.split(terms, lambda b: _uses(b.first, "blockIdx"))

    def fold_conditional(n: ir.Node) -> ir.Node:
        """``i < n ? in[i] : 0`` is ``in[i]`` where every thread passes ``i < n``.  Written as
        ``true ? in[i] : 0``: the expression keeps its type (the common type of both arms, which
        ``in[i]`` alone need not have), and gcc folds the constant condition away."""
        if not isinstance(n, ir.Conditional):
            return n
        folded, rest = grid_wide(_conjuncts(n.cond))
        if not folded:
            return n
        bounds.extend(folded)
        return replace(n, cond=_conjunction(rest) if rest else ir.Literal("true", loc=n.cond.loc))

    for st in stmts:
        if isinstance(st, ir.If) and not ir.exits_from_nested_loop(st, 1):
            folded, rest = grid_wide(_conjuncts(st.cond))
            if folded:
                bounds.extend(folded)
                st = replace(st, cond=_conjunction(rest)) if rest else st.then
        # The guard's index and limit have the values the guard of a statement reads anywhere
        # in the body (the index's declarations are never assigned, no thread changes the limit).
        fast.append(ir.transform(st, fold_conditional))
    if not bounds:
        return node
    # The same guard written twice is tested once.
    return replace(node, fast_body=replace(node.body, stmts=tuple(fast)), fast_bounds=tuple(dict.fromkeys(bounds)))


def _may_store_to_memory(body: ir.Node, symbols: dict[int, ir.Symbol]) -> bool:
    """``body`` may change memory: an assignment (or ``++``/``--``) to anything but a local
    variable that is not a reference, or a call of what is not a pure function."""
    for n in body.walk():
        if isinstance(n, (ir.Call, ir.IndirectCall)) and not (isinstance(n, ir.Call) and is_pure_function(n.func)):
            return True
        if isinstance(n, (ir.Construct, ir.WarpCollective)):
            return True
        if isinstance(n, ir.Assign) or (isinstance(n, ir.Unary) and n.op in ("++", "--")):
            sym = assigned_variable(n)
            symbol = symbols.get(sym) if sym is not None else None
            if symbol is None or symbol.kind != "local" or "&" in symbol.type:
                return True
    return False


def _reads_memory(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> bool:
    """``e`` reads memory: a subscript, ``*p``, ``p->m``, a reference variable, or a call."""
    for n in e.walk():
        if isinstance(n, (ir.Index, ir.Call, ir.IndirectCall)):
            return True
        if (isinstance(n, ir.Unary) and n.op == "*") or (isinstance(n, ir.Member) and n.arrow):
            return True
        if isinstance(n, ir.Name):
            symbol = symbols.get(n.sym)
            if symbol is None or "&" in symbol.type or symbol.kind in ("shared", "global"):
                return True
    return False


def _uses(e: ir.Expr, builtin: str) -> bool:
    return any(isinstance(n, ir.Builtin) and n.var == builtin for n in e.walk())


def _conjunction(terms: list[ir.Expr]) -> ir.Expr:
    cond = terms[0]
    for term in terms[1:]:
        cond = ir.Binary("&&", cond, term, loc=term.loc)
    return cond


def _fold_final_guard(node: ir.ThreadLoop, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction],
                      nonnegative: frozenset[int] = frozenset(), flags: dict[int, "_FlagFact"] | None = None
                      ) -> tuple[ir.Stmt, ...]:
    """The loop with its final guard folded (preceded by the loop of its flag resets, if any),
    or ``(node,)``."""
    stmts = node.body.stmts
    kept = {kv.sym for kv in node.kept}
    prefix = _prefix(stmts, kept)
    n = len(prefix)  # the prefix is the body's first n statements
    resets = _flag_resets(stmts[n:], kept, symbols)
    r = n + len(resets)  # the guard's position
    if r == len(stmts) or not isinstance(stmts[r], ir.If) or stmts[r].otherwise is not None:
        return (node,)
    guard = stmts[r]
    early_exit = _is_exit(guard.then)
    if (not early_exit or resets) and r != len(stmts) - 1:
        return (node,)
    # Kept values are per thread even where this loop does not assign them.
    varying = assigned_symbols(node.body, bodies) | _declared(node.body) | kept
    folder = _Folder(prefix, varying - set(prefix), symbols, lower_bounds=True)
    terms = _negated_terms(guard.cond) if early_exit else _through_flags(_conjuncts(guard.cond), prefix)
    if terms is None:
        return (node,)
    stride = None
    if not early_exit and node.stride is None:
        stride, terms = _stride(terms, folder, nonnegative)
    flag_bounds: list[ir.ThreadBound] = []
    if not early_exit and flags:
        flag_bounds, terms = _flag_bounds(terms, flags, kept, assigned_symbols(node.body, bodies))
    bounds, rest = folder.split(terms)
    bounds = flag_bounds + bounds
    if not (bounds or stride) or (early_exit and rest):
        return (node,)
    if early_exit:
        body = stmts[:n] + stmts[n + 1:]
    elif rest:
        body = stmts[:n] + (replace(guard, cond=_conjunction(rest)),)
    else:
        body = stmts[:n] + _spliced(guard.then, stmts[:n])
    folded = _binding_used(replace(node, body=replace(node.body, stmts=without_unused_decls(body, set(prefix))),
                                   bounds=node.bounds + tuple(bounds), stride=stride or node.stride))
    if not resets:
        return (folded,)
    # The resets sum nothing (a reduction clause belongs to the loop that stores the sum).
    every_thread = _binding_used(replace(node, body=replace(node.body, stmts=without_unused_decls(
        stmts[:n] + resets, set(prefix))), sums=()))
    return (every_thread, folded)


def _stride(terms: list[ir.Expr], folder: "_Folder", counters: frozenset[int]) -> tuple[ir.ThreadStride | None, list[ir.Expr]]:
    """The first term ``index % divisor == 0`` (``0 == ...``, ``!(index % divisor)``) with
    ``index`` exactly ``first + threadIdx.d``, ``divisor`` the same for every thread, both
    provably never negative (the remainder is then the mathematical one, whatever types the
    guard computes it in; a zero divisor faults in the loop's start as in the guard), as the
    loop's stride; and the other terms."""
    for k, term in enumerate(terms):
        rem = _remainder_is_zero(term)
        if rem is None:
            continue
        found = folder.first(rem.lhs)
        if found is None or not found[2] or not folder.invariant(rem.rhs):
            continue
        dim, first, _ = found
        divisor = folder.expanded(rem.rhs)
        if not (_nonnegative(first, folder.symbols, counters) and _nonnegative(divisor, folder.symbols, counters)):
            continue
        return ir.ThreadStride(dim, first, divisor, loc=term.loc), terms[:k] + terms[k + 1:]
    return None, terms


def _remainder_is_zero(term: ir.Expr) -> ir.Binary | None:
    """``a % b`` where ``term`` is ``a % b == 0``, ``0 == a % b`` or ``!(a % b)``."""
    if isinstance(term, ir.Unary) and term.op == "!" and isinstance(term.operand, ir.Binary) and term.operand.op == "%":
        return term.operand
    if isinstance(term, ir.Binary) and term.op == "==":
        for rem, zero in ((term.lhs, term.rhs), (term.rhs, term.lhs)):
            if isinstance(rem, ir.Binary) and rem.op == "%" and isinstance(zero, ir.Literal) and int_literal(zero.text) == 0:
                return rem
    return None


@dataclass(frozen=True)
class _FlagFact:
    """What a kept ``bool`` holds in every thread: false (``bounds`` None), or true exactly in the
    threads within ``bounds`` (of the thread loop that set it, over values in ``reads``)."""

    bounds: tuple[ir.ThreadBound, ...] | None = None
    reads: frozenset[int] = frozenset()


def _flags_after_loop(loop: ir.ThreadLoop, flags: dict[int, _FlagFact], symbols: dict[int, ir.Symbol],
                      bodies: dict[str, ir.DeviceFunction]) -> dict[int, _FlagFact]:
    """The flag facts after ``loop`` runs.  Every thread of a loop without bounds that sets ``f =
    false;`` leaves ``f`` false everywhere; then a loop with bounds whose every thread sets ``f =
    true;`` leaves it true in exactly the threads within them (GPU halo tiling's ``computed``: the
    threads that passed the guard).  Such a loop must let each thread reach the assignment (no
    return, no jump) and have no other version (full blocks, exits)."""
    changed = assigned_symbols(loop.body, bodies)
    after = {f: fact for f, fact in flags.items() if f not in changed and not fact.reads & changed}
    plain = not (loop.fast_body or loop.stride or loop.marks_exit or loop.skip_exited or
                 any(isinstance(n, (ir.Return, ir.NextThread, ir.Goto, ir.Label)) for n in loop.body.walk()))
    if not plain:
        return after
    kept = {kv.sym for kv in loop.kept}
    assignments = [n for n in loop.body.walk() if isinstance(n, ir.Assign) or (isinstance(n, ir.Unary) and n.op in ("++", "--"))]
    for st in loop.body.stmts:
        if not (isinstance(st, ir.ExprStmt) and isinstance(st.expr, ir.Assign) and st.expr.op == "="
                and isinstance(st.expr.target, ir.Name) and st.expr.target.sym in kept
                and isinstance(st.expr.value, ir.Literal) and st.expr.value.text in ("true", "false")):
            continue
        f = st.expr.target.sym
        if sum(1 for n in assignments if assigned_variable(n) == f) != 1:
            continue
        if st.expr.value.text == "false" and not loop.bounds:
            after[f] = _FlagFact()
        elif st.expr.value.text == "true" and loop.bounds and f in flags and flags[f].bounds is None:
            exprs = [e for b in loop.bounds for e in (b.first, b.limit)]
            if not any(_reads_memory(e, symbols) for e in exprs):
                reads = frozenset(n.sym for e in exprs for n in e.walk() if isinstance(n, ir.Name))
                after[f] = _FlagFact(loop.bounds, reads)
    return after


def _flags_after(stmt: ir.Stmt, flags: dict[int, _FlagFact], bodies: dict[str, ir.DeviceFunction]) -> dict[int, _FlagFact]:
    """The flag facts after a block-level statement: those of flags and values it leaves alone.
    Nothing is known after a label (another path may jump there)."""
    if not flags or any(isinstance(n, ir.Label) for n in stmt.walk()):
        return {}
    changed = assigned_symbols(stmt, bodies)
    return {f: fact for f, fact in flags.items() if f not in changed and not fact.reads & changed}


def _flag_bounds(terms: list[ir.Expr], flags: dict[int, _FlagFact], kept: set[int],
                 assigned: set[int]) -> tuple[list[ir.ThreadBound], list[ir.Expr]]:
    """A guard term that reads a kept flag known true in exactly the threads within some bounds
    (and that this loop does not change) becomes those bounds, evaluated again here over the
    same values; the other terms, in order."""
    bounds: list[ir.ThreadBound] = []
    rest: list[ir.Expr] = []
    for term in terms:
        fact = flags.get(term.sym) if isinstance(term, ir.Name) and term.sym in kept else None
        if fact is None or fact.bounds is None or term.sym in assigned:
            rest.append(term)
            continue
        bounds.extend(replace(b, loc=term.loc) for b in fact.bounds)
    return bounds, rest


def _through_flags(terms: list[ir.Expr], prefix: dict[int, ir.VarDecl]) -> list[ir.Expr]:
    """``terms`` with a ``bool`` of the prefix that holds a comparison or a conjunction (pathfinder's
    ``bool isValid = IN_RANGE(tx, lo, hi);``) replaced by the terms of its value: the guard reads
    the value it was declared with, and evaluating it there has no effect."""
    out: list[ir.Expr] = []
    for term in terms:
        decl = prefix.get(term.sym) if isinstance(term, ir.Name) else None
        value = decl.init if decl is not None and decl.type.replace("const", "").strip() == "bool" else None
        if isinstance(value, ir.Binary) and (value.op == "&&" or value.op in _FLIPPED):
            out.extend(_through_flags(_conjuncts(value), prefix))
        else:
            out.append(term)
    return out


def _flag_resets(stmts: tuple[ir.Stmt, ...], kept: set[int], symbols: dict[int, ir.Symbol]) -> tuple[ir.Stmt, ...]:
    """The leading statements ``k = v;`` that give a kept variable of the thread a value read
    from no memory (Rodinia's ``computed = false;`` before its guard).  Every thread runs them,
    the guarded ones run the rest: run in a loop of their own before the guarded loop, each
    thread's resets still precede its own guarded statements, and they touch only that thread's
    own storage, read nothing another thread writes, and cannot fault, so the results are the same."""
    resets = []
    for s in stmts:
        if not (isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and s.expr.op == "="
                and isinstance(s.expr.target, ir.Name) and s.expr.target.sym in kept):
            break
        value = s.expr.value
        if _reads_memory(value, symbols) or any(
                isinstance(n, (ir.Assign, ir.Construct, ir.WarpCollective)) or (isinstance(n, ir.Unary) and n.op in ("++", "--"))
                or (isinstance(n, ir.Binary) and n.op in ("/", "%")) for n in value.walk()):
            break
        resets.append(s)
    return tuple(resets)


def _binding_used(loop: ir.ThreadLoop) -> ir.ThreadLoop:
    """``loop`` binding only the kept variables its body names (-Wall: unused variable)."""
    used = {n.sym for n in loop.body.walk() if isinstance(n, ir.Name)}
    kept = tuple(kv for kv in loop.kept if kv.sym in used)
    return loop if len(kept) == len(loop.kept) else replace(loop, kept=kept)


def _pure_decl(s: ir.Stmt, kept: set[int]) -> bool:
    if not isinstance(s, ir.VarDecl) or s.storage != "auto" or s.sym in kept:
        return False
    if s.init is None or "&" in s.type:
        return False
    return all(not isinstance(n, (ir.Call, ir.IndirectCall, ir.Assign, ir.Construct))
               and not (isinstance(n, ir.Unary) and n.op in ("++", "--"))
               for n in s.init.walk())


def _is_exit(s: ir.Stmt) -> bool:
    if isinstance(s, ir.Block) and len(s.stmts) == 1:
        s = s.stmts[0]
    return isinstance(s, (ir.Return, ir.NextThread))


def _declared(node: ir.Node) -> set[int]:
    return {n.sym for n in node.walk() if isinstance(n, ir.VarDecl)}


def _conjuncts(cond: ir.Expr) -> list[ir.Expr]:
    if isinstance(cond, ir.Binary) and cond.op == "&&":
        return _conjuncts(cond.lhs) + _conjuncts(cond.rhs)
    return [cond]


def _negated_terms(cond: ir.Expr) -> list[ir.Expr] | None:
    """``!(a || b)`` as the conjunction ``!a && !b`` of comparisons, or None."""
    if isinstance(cond, ir.Binary) and cond.op == "||":
        lhs, rhs = _negated_terms(cond.lhs), _negated_terms(cond.rhs)
        return None if lhs is None or rhs is None else lhs + rhs
    if isinstance(cond, ir.Binary) and cond.op in _NEGATED:
        return [replace(cond, op=_NEGATED[cond.op])]
    return None


def _spliced(then: ir.Stmt, prefix: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    """The guarded statements, unwrapped from their block unless that would clash with a name."""
    if not isinstance(then, ir.Block):
        return (then,)
    outer = {s.name for s in prefix if isinstance(s, ir.VarDecl)}
    inner = {s.name for s in then.stmts if isinstance(s, ir.VarDecl)}
    return (then,) if outer & inner else then.stmts


@dataclass
class _Folder:
    """Recognizes ``index < limit`` terms; ``prefix`` are the declarations an index may go
    through, ``varying`` the variables threads change (a limit may not read them)."""

    prefix: dict[int, ir.VarDecl]
    varying: set[int]
    symbols: dict[int, ir.Symbol]
    #: Whether a limit may read memory (no thread changes it before the guard reads it).
    memory_limits: bool = True
    #: Whether ``index >= limit`` folds too, as the loop's start (not in a full-block version).
    lower_bounds: bool = False

    def split(self, terms: list[ir.Expr], wanted=lambda bound: True) -> tuple[list[ir.ThreadBound], list[ir.Expr]]:
        """The terms that fold into (wanted) bounds, and the others, in order."""
        bounds, rest = [], []
        for term in terms:
            found = self.bounds(term)
            if not found or not all(wanted(b) for b in found):
                rest.append(term)
            else:
                bounds.extend(replace(b, loc=term.loc) for b in found)
        return bounds, rest

    def bounds(self, term: ir.Expr) -> tuple[ir.ThreadBound, ...]:
        """The bounds that admit exactly the threads passing ``term``, or none."""
        if isinstance(term, ir.Binary) and term.op == "==":
            return self.equality(term)
        bound = self.bound(term)
        return () if bound is None else (bound,)

    def bound(self, term: ir.Expr) -> ir.ThreadBound | None:
        if not isinstance(term, ir.Binary) or term.op not in _FLIPPED:
            return None
        # index < limit (or limit > index): the threads up to an end
        op, index, limit = term.op, term.lhs, term.rhs
        if op in (">", ">="):
            op, index, limit = _FLIPPED[op], term.rhs, term.lhs
        found = self.index_and_limit(index, limit)
        if found is not None:
            return ir.ThreadBound(found[0], found[1], found[2], inclusive=(op == "<="))
        if not self.lower_bounds:
            return None
        # index >= limit (or limit <= index): the threads from a start
        op, index, limit = _FLIPPED[op], limit, index
        found = self.index_and_limit(index, limit)
        if found is None:
            return None
        return ir.ThreadBound(found[0], found[1], found[2], inclusive=(op == ">="), lower=True)

    def index_and_limit(self, index: ir.Expr, limit: ir.Expr) -> tuple[str, ir.Expr, ir.Expr] | None:
        """``(d, first, limit)`` when ``index`` is ``first + threadIdx.d`` exactly and ``limit``
        the same for every thread of the block."""
        if not self.invariant(limit) or (not self.memory_limits and _reads_memory(limit, self.symbols)):
            return None
        found = self.first(index)
        if found is None or not found[2]:
            return None
        return found[0], found[1], self.expanded(limit)

    def equality(self, term: ir.Binary) -> tuple[ir.ThreadBound, ...]:
        """``tid == 0`` where ``tid`` is the thread index itself: the threads through index 0.
        Where lower bounds fold, ``threadIdx.y == c`` (an index ``first + threadIdx.d`` equal
        to a value the same for every thread): the threads from index ``c`` through index
        ``c``, none where ``c`` is past the block."""
        for index, value in ((term.lhs, term.rhs), (term.rhs, term.lhs)):
            found = self.index_and_limit(index, value)
            if found is None:
                continue
            dim, first, limit = found
            if isinstance(value, ir.Literal) and value.text in ("0", "0u", "0U") and _is_zero(first):
                return (ir.ThreadBound(dim, first, value, inclusive=True),)
            if self.lower_bounds:
                return (ir.ThreadBound(dim, first, limit, inclusive=True, lower=True),
                        ir.ThreadBound(dim, first, limit, inclusive=True))
        return ()

    def first(self, e: ir.Expr) -> tuple[str, ir.Expr, bool] | None:
        """``(d, e at threadIdx.d = 0, exact)`` when ``e`` is ``threadIdx.d`` plus a
        thread-invariant value (through casts that keep the order); else None.  ``exact``: ``e``
        provably equals ``first + threadIdx.d`` for every thread of a block, without wrapping
        around (unsigned arithmetic with a negative offset would, so it must not fold)."""
        if isinstance(e, ir.Builtin) and e.var == "threadIdx" and e.dim:
            return e.dim, _ZERO, True
        if isinstance(e, ir.Name) and e.sym in self.prefix:
            decl = self.prefix[e.sym]
            found = self.first(decl.init)
            if found is None:
                return None
            base_type = decl.type.replace("const ", "").strip()
            if base_type == "auto":
                return found
            return self._converted(base_type, found, lambda first: ir.Cast(base_type, first, loc=decl.loc))
        if isinstance(e, ir.Cast):
            found = self.first(e.operand)
            return None if found is None else self._converted(e.type, found, lambda first: replace(e, operand=first))
        if isinstance(e, ir.Binary) and e.op in ("+", "-"):
            found = self.first(e.lhs)
            if found is not None and self.invariant(e.rhs):
                exact = found[2] and e.op == "+" and self.nonnegative(e.rhs)
                return found[0], _plus(e, found[1], self.expanded(e.rhs)), exact
            if e.op == "+" and self.invariant(e.lhs):
                found = self.first(e.rhs)
                if found is not None:
                    return found[0], _plus(e, self.expanded(e.lhs), found[1]), found[2] and self.nonnegative(e.lhs)
        return None

    def expanded(self, e: ir.Expr) -> ir.Expr:
        """``e`` with the prefix's declarations replaced by their values (converted to their
        types): the bound is computed before the loop, where they are not declared."""
        def value(n: ir.Node) -> ir.Node:
            if not (isinstance(n, ir.Name) and n.sym in self.prefix):
                return n
            decl = self.prefix[n.sym]
            return ir.Cast(_arithmetic_type(decl.type), self.expanded(decl.init), loc=n.loc)
        return ir.transform(e, value)

    @staticmethod
    def _converted(type_: str, found: tuple[str, ir.Expr, bool], wrap) -> tuple[str, ir.Expr, bool] | None:
        """``found`` seen through a conversion to ``type_``.  A conversion to a 32-bit signed type
        undoes a wrap of the unsigned arithmetic inside (``int i = threadIdx.x - 1``)."""
        spelled = " ".join(type_.split())
        if "bool" in spelled or "*" in spelled or "&" in spelled:
            return None
        dim, first, exact = found
        if _is_zero(first) and integer_kind(spelled) == (False, 32):
            return dim, first, exact  # (unsigned int)0u is 0u
        return dim, wrap(first), exact or integer_kind(spelled) == (True, 32)

    def nonnegative(self, e: ir.Expr) -> bool:
        """Provably >= 0 (so adding it to a thread index cannot wrap a block's indices)."""
        if isinstance(e, ir.Literal):
            return e.text[:1].isdigit()
        if isinstance(e, ir.Builtin):
            return True
        if isinstance(e, ir.Name):
            symbol = self.symbols.get(e.sym)
            # Only types that arithmetic keeps unsigned: two unsigned shorts add and multiply as ints.
            kind = None if symbol is None else unpromoted_integer_kind(symbol.type)
            return kind is not None and not kind[0]
        if isinstance(e, ir.Binary) and e.op in ("+", "*", "/", "%", ">>", "&", "|"):
            return self.nonnegative(e.lhs) and self.nonnegative(e.rhs)
        return False

    def invariant(self, e: ir.Expr) -> bool:
        """``e`` has the same value for every thread of the block when the loop starts."""
        for n in e.walk():
            if isinstance(n, ir.Name):
                if n.sym in self.prefix:  # (int bid = blockIdx.x + gridDim.x * blockIdx.y) * blockDim.x
                    decl = self.prefix[n.sym]
                    if _arithmetic_type(decl.type) is None or not self.invariant(decl.init):
                        return False
                elif n.sym in self.varying or not n.sym:
                    return False
            elif isinstance(n, ir.Builtin):
                if n.var == "threadIdx":
                    return False
            elif isinstance(n, ir.Binary):
                if n.op not in _VALUE_OPS:
                    return False
            elif isinstance(n, ir.Unary):
                if n.op not in ("+", "-", "~", "!"):
                    return False
            elif not isinstance(n, (ir.Literal, ir.Cast, ir.Conditional, ir.SizeOf, ir.Member,
                                    ir.Index, ir.BuiltinVector)):
                return False
        return True


def _arithmetic_type(type_: str) -> str | None:
    """``type_`` without ``const`` where it is an integer or floating type (a value converted to
    it by a cast is the value a declaration of it holds), else None."""
    plain = " ".join(w for w in type_.split() if w != "const")
    return plain if integer_kind(plain) is not None or plain in ("float", "double") else None


def _plus(e: ir.Binary, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
    """``lhs op rhs`` simplified where a zero adds nothing: both sides then are unsigned."""
    if _is_zero(rhs) and e.op in ("+", "-") and _unsigned(lhs):
        return lhs
    if _is_zero(lhs) and e.op == "+" and _unsigned(rhs):
        return rhs
    return replace(e, lhs=lhs, rhs=rhs)


def _is_zero(e: ir.Expr) -> bool:
    """``0u``, or ``0u`` converted to ``unsigned int`` (a thread index at thread 0)."""
    while isinstance(e, ir.Cast) and " ".join(e.type.split()) in ("unsigned int", "unsigned"):
        e = e.operand
    return e is _ZERO


def _unsigned(e: ir.Expr) -> bool:
    """Provably of type ``unsigned int``: builtin vector components, and sums and products of
    them with each other or with small integer literals."""
    if isinstance(e, ir.Builtin):
        return e.var != "warpSize"
    if isinstance(e, ir.Cast):
        return " ".join(e.type.split()) in ("unsigned int", "unsigned")
    if isinstance(e, ir.Binary) and e.op in ("+", "*"):
        small = lambda x: isinstance(x, ir.Literal) and x.text.isdigit() and len(x.text) < 10  # noqa: E731
        return (_unsigned(e.lhs) and (_unsigned(e.rhs) or small(e.rhs))) or (small(e.lhs) and _unsigned(e.rhs))
    return False
