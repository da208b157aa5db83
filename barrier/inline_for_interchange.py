"""Pass ``inline-for-interchange``: inline a call to a ``__device__`` function whose loop
``loop-interchange`` would then move out of the thread loop.

``inline-device`` inlines only the functions that synchronize; a call to any other function
stays a call, and ``loop-interchange`` sees a call, not a loop.  streamcluster's cost kernel
spends its time in such a function: each thread sums the squared differences of its point and
another over 256 feature-major coordinates (``coord[i * num + p1]``), a stride of ``num`` floats
per thread that the threads together would read contiguously.

A call is inlined where ``loop-interchange`` looks for loops (a statement of a thread loop, or
of a bounds guard ``if (...)`` at its top), as the initializer of a declaration or in an
expression statement, not under ``&&``, ``||`` or ``?:``.  The function has a ``for`` loop at
the top of its body, returns only at its end, declares no ``static`` or ``__shared__`` data, is
no template and calls no other function this pass would inline.  The inlined body is spliced
into the statements around the call (its names are fresh in the kernel, so nothing is
shadowed), and a parameter that nothing assigns, bound to a variable of the same type that
nothing assigns, reads that variable directly (its value is the same wherever it is read): the
subscripts then show the thread index that ``loop-interchange`` measures strides by.  The
inlining is kept only where ``loop-interchange`` would then move one of the inlined loops, and
the threads are independent (``thread_independence``).  Each thread runs the same operations in
the same order as the call did, so results are bit-identical.

Before::

    __device__ float dist(int a, int b, int n, int dim, float *x) {
        float s = 0; for (int i = 0; i < dim; i++) { float t = x[i * n + a] - x[i * n + b]; s += t * t; }
        return s;
    }
    ThreadLoop { int p = ...; if (p < n) { float c = dist(p, q, n, dim, x) * w[p]; out[p] = c; } }

After (then ``loop-interchange`` moves the ``i`` loop out of the thread loop)::

    ThreadLoop { int p = ...; if (p < n) {
        float dist_result; int b = q; float s = 0;
        for (int i = 0; i < dim; i++) { float t = x[i * n + p] - x[i * n + b]; s += t * t; }
        dist_result = s;
        float c = dist_result * w[p]; out[p] = c; } }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.inline_device import Inliner
from barrier.accesses import is_reference_type
from barrier.kernel_facts import kernel_facts
from barrier.loop_interchange import loop_to_move
from foundation import ir
from foundation.integer_types import integer_kind
from foundation.passes import PassContext, map_kernels, register


def inlinable_functions(ctx: PassContext) -> dict[str, ir.DeviceFunction]:
    """The ``__device__`` functions whose calls this pass may inline (see the module's text)."""
    found: dict[str, ir.DeviceFunction] = {}
    for name, fn in ctx.device_bodies.items():
        body = ir.as_block(fn.body)
        if fn.template or name in ctx.synchronizing or name in ctx.unreadable_device_bodies:
            continue
        if not any(isinstance(s, ir.For) for s in body.stmts):
            continue
        if any(isinstance(n, ir.Return) and n is not body.stmts[-1] for n in body.walk()):
            continue
        if any(isinstance(n, ir.VarDecl) and n.storage != "auto" for n in body.walk()):
            continue
        if any(isinstance(n, (ir.Barrier, ir.WarpCollective, ir.WarpSync, ir.Goto, ir.Label)) for n in body.walk()):
            continue
        found[name] = fn
    calls = {name: {ir.callee_name(n.func) for n in fn.body.walk() if isinstance(n, ir.Call)}
             for name, fn in found.items()}
    return {name: fn for name, fn in found.items() if not calls[name] & set(found)}


def _unconditional_calls(e: ir.Expr, names: set[str], conditional: bool = False) -> bool | None:
    """Whether ``e`` calls a function of ``names`` (True), and only where every evaluation of
    ``e`` runs the call, and not in the arguments of another (None where some call is not so)."""
    found = False
    if isinstance(e, ir.Call) and ir.callee_name(e.func) in names:
        if conditional:
            return None
        if any(isinstance(n, ir.Call) and ir.callee_name(n.func) in names for a in e.args for n in a.walk()):
            return None
        found = True
    lazy = isinstance(e, ir.Conditional) or (isinstance(e, ir.Binary) and e.op in ("&&", "||"))
    for i, child in enumerate(c for c in e.children() if isinstance(c, ir.Expr)):
        inner = _unconditional_calls(child, names, conditional or (lazy and i > 0))
        if inner is None:
            return None
        found |= inner
    return found


def _calls_to_inline(s: ir.Stmt, names: set[str]) -> bool:
    if isinstance(s, ir.VarDecl) and s.init is not None:
        return bool(_unconditional_calls(s.init, names))
    if isinstance(s, ir.ExprStmt):
        return bool(_unconditional_calls(s.expr, names))
    return False


@register
@dataclass(frozen=True)
class InlineForInterchange:
    name = "inline-for-interchange"
    required = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        functions = inlinable_functions(ctx)
        if not functions:
            return program
        return map_kernels(program, lambda k: self.kernel(k, ctx, set(functions)))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext, names: set[str]) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        if grid is None or ir.contains(grid, ir.FiberLoop):
            return kernel
        inlined_loops = {n.loc for name in names for n in ctx.device_bodies[name].body.walk() if isinstance(n, ir.For)}
        stmts = list(grid.body.stmts)
        for i, s in enumerate(stmts):
            if not isinstance(s, ir.ThreadLoop) or s.kept or s.exit_flag:
                continue
            found = self.thread_loop(s, kernel, ctx, names)
            if found is None:
                continue
            inlined, params, called = found
            inlined = _parameters_as_arguments(inlined, params, kernel_facts(_with(kernel, grid, i, inlined), ctx))
            attempt = _with(kernel, grid, i, inlined)
            moved = loop_to_move(inlined, kernel_facts(attempt, ctx), attempt, ctx)
            if moved is None or moved.loc not in inlined_loops:
                continue
            ctx.report(kernel).inlined.extend({"function": name, "line": line, "loop_line": moved.loc.line}
                                              for name, line in called)
            kernel, grid = attempt, ir.grid_loop(attempt)
        return kernel

    def thread_loop(self, loop: ir.ThreadLoop, kernel: ir.Kernel, ctx: PassContext,
                    names: set[str]) -> tuple[ir.ThreadLoop, set[int], list[tuple[str, int]]] | None:
        """``loop`` with the calls it holds where ``loop-interchange`` looks inlined and
        spliced, the symbols of the inlined declarations, and the functions inlined with the
        lines of their calls; None where
        it holds no such call."""
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        inliner = Inliner(ctx, set(names), used)
        params: set[int] = set()
        called: list[tuple[str, int]] = []

        def splice(stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...] | None:
            out: list[ir.Stmt] = []
            changed = False
            for s in stmts:
                if not _calls_to_inline(s, names):
                    out.append(s)
                    continue
                calls = [n for n in s.walk() if isinstance(n, ir.Call) and ir.callee_name(n.func) in names]
                called.extend((ir.callee_name(c.func), c.loc.line) for c in calls)
                pre, rest = inliner.hoist(s)
                for p in _result_declared_where_set(pre):
                    if not isinstance(p, ir.Block):
                        out.append(p)
                        continue
                    out.extend(p.stmts)  # the braces go: the inlined names are fresh in the kernel
                    params.update(d.sym for d in p.stmts if isinstance(d, ir.VarDecl))
                if rest is not None:
                    out.append(rest)
                changed = True
            return tuple(out) if changed else None

        body = loop.body.stmts
        top = splice(body)
        changed = top is not None
        body = top if top is not None else body
        guarded = []
        for s in body:
            if isinstance(s, ir.If) and s.otherwise is None:
                inner = splice(ir.as_block(s.then).stmts)
                if inner is not None:
                    s = replace(s, then=ir.Block(inner, loc=s.then.loc))
                    changed = True
            guarded.append(s)
        if not changed:
            return None
        return replace(loop, body=replace(loop.body, stmts=tuple(guarded))), params, called


def _with(kernel: ir.Kernel, grid: ir.GridLoop, i: int, stmt: ir.Stmt) -> ir.Kernel:
    """``kernel`` with the ``i``-th statement of its grid loop ``grid`` replaced by ``stmt``."""
    stmts = grid.body.stmts[:i] + (stmt,) + grid.body.stmts[i + 1:]
    return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=stmts)))


def _result_declared_where_set(pre: list[ir.Stmt]) -> list[ir.Stmt]:
    """``T f_result; { ...; f_result = v; }`` (an inlined call's value) becomes
    ``{ ...; T f_result = v; }``: the result is not a value the moved loop must carry per
    thread."""
    out: list[ir.Stmt] = []
    for k, s in enumerate(pre):
        following = pre[k + 1] if k + 1 < len(pre) else None
        if (isinstance(s, ir.VarDecl) and s.init is None and isinstance(following, ir.Block) and following.stmts
                and _sets(following.stmts[-1], s.sym)
                and sum(isinstance(n, ir.Name) and n.sym == s.sym for n in following.walk()) == 1):
            last = following.stmts[-1].expr
            pre[k + 1] = replace(following, stmts=following.stmts[:-1] + (replace(s, init=last.value, loc=last.loc),))
            continue
        out.append(s)
    return out


def _sets(s: ir.Stmt, sym: int) -> bool:
    return (isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and s.expr.op == "="
            and isinstance(s.expr.target, ir.Name) and s.expr.target.sym == sym)


def _arithmetic(type_: str) -> bool:
    plain = " ".join(w for w in type_.split() if w != "const")
    return integer_kind(plain) is not None or plain in ("float", "double")


def _parameters_as_arguments(loop: ir.ThreadLoop, params: set[int], facts) -> ir.ThreadLoop:
    """``int a = p; ... a ...`` becomes ``... p ...`` for the inlined parameters ``a`` of
    ``params`` where neither ``a`` nor ``p`` is ever assigned (nor its address taken): ``a``
    holds ``p``'s value wherever it is read.  Between arithmetic types of different spelling
    (``int p2 = x`` with ``long x``) the use reads ``(int)x``, the same conversion."""
    def plain(t: str) -> list[str]:
        return t.replace("const", "").split()

    bound: dict[int, ir.Expr] = {}
    for n in loop.walk():
        if not (isinstance(n, ir.VarDecl) and n.sym in params and isinstance(n.init, ir.Name)):
            continue
        arg = n.init
        symbol = facts.symbols.get(arg.sym)
        if symbol is None or symbol.kind not in ("local", "param") or n.sym in facts.mutable or arg.sym in facts.mutable:
            continue
        if "volatile" in n.type + symbol.type or any(is_reference_type(t) or "[" in t for t in (n.type, symbol.type)):
            continue
        if plain(n.type) == plain(symbol.type):
            bound[n.sym] = arg
        elif _arithmetic(n.type) and _arithmetic(symbol.type):
            bound[n.sym] = ir.Cast(" ".join(plain(n.type)), arg, loc=arg.loc)
    if not bound:
        return loop

    def rewrite(node: ir.Node) -> ir.Node:
        if isinstance(node, ir.Name) and node.sym in bound:
            return bound[node.sym]
        if isinstance(node, ir.Block):
            return replace(node, stmts=tuple(s for s in node.stmts
                                             if not (isinstance(s, ir.VarDecl) and s.sym in bound)))
        return node
    return ir.transform(loop, rewrite)
