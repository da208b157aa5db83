"""Pass ``texture-span``: read a texture's consecutive texels as one array where a thread loop's
fetches are ``first + threadIdx.x``.

Requires: ``guard-folding`` (the thread loops are final).  ``tex1Dfetch`` on linear memory
returns zero for an index out of range, so each fetch is a compare and a load only some lanes
make: gcc turns a thread loop of them into one scalar load per thread (a gather), and Rodinia's
kmeans spent most of its kernel time there.  When the index a thread fetches is
``first + threadIdx.x``, with ``first`` the same for every thread of the loop, the block's
fetches are the texels ``[first, first + blockDim.x)``: if the texture is bound to linear memory,
read as its element type, and all of them are in range (tested once, before the loop, by
``moccuda::texture::linear_span``), each fetch is ``span[threadIdx.x]``, a load gcc vectorizes.
Otherwise the loop runs as it was.  Either way every thread reads the same texel, so the results
are the same bit for bit.

A fetch qualifies when its index is ``threadIdx.x`` plus or minus values no thread of the loop
changes (parameters, ``blockIdx``, ``blockDim``, variables the loop does not assign, literals),
through the loop's never-assigned declarations and through conversions to integer types of 32
bits or more: the index then steps by one from thread to thread modulo 2^32, and
``linear_span`` admits ``first`` only when no index of the range passes ``INT_MAX`` (the
``int`` that ``tex1Dfetch`` takes), so none wraps.  The index may not read memory, which a thread
could change before it fetches.  Only texture references (``texture<T, 1, M>``) qualify.

Before::

    ThreadLoop {
        unsigned point = blockIdx.x * blockDim.x + threadIdx.x;
        int addr = point + j * n;
        sum += tex1Dfetch(t_features, addr) - centre[j];
    }

After::

    {
        const auto t_features_span = moccuda::texture::linear_span(t_features,
            (int)((unsigned)(blockIdx.x * blockDim.x) + j * n), blockDim.x);
        if (t_features_span)
            ThreadLoop { ...; sum += t_features_span[threadIdx.x] - centre[j]; }
        else
            ThreadLoop { ... as before ... }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import assigned_symbols, fresh_name
from foundation import ir
from foundation.integer_types import integer_kind
from foundation.passes import PassContext, map_kernels, register

_VALUE_OPS = frozenset("+ - * / % << >> & | ^".split())
_ZERO = ir.Literal("0u")


@register
@dataclass(frozen=True)
class TextureSpan:
    name: str = "texture-span"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        used = {s.name for s in ctx.symbols.values()}
        return map_kernels(program, lambda k: ir.transform(k, lambda n: _version_loop(n, ctx, used)))


def _version_loop(node: ir.Node, ctx: PassContext, used: set[str]) -> ir.Node:
    if not isinstance(node, ir.ThreadLoop) or node.fast_body is not None or node.marks_exit:
        return node
    resolver = _Resolver.for_loop(node, ctx.symbols, ctx.device_bodies)
    spans: list[tuple[ir.Call, ir.VarDecl]] = []

    def replace_fetch(n: ir.Node) -> ir.Node:
        if not (isinstance(n, ir.Call) and ir.callee_name(n.func) == "tex1Dfetch" and len(n.args) == 2
                and _is_texture_reference(n.args[0], ctx.symbols)):
            return n
        first = resolver.first(n.args[1])
        if first is None:
            return n
        texture = n.args[0]
        name = fresh_name(f"{texture.name}_span", used)
        sym = ctx.fresh_sym(name, "const auto", "local", n.loc)
        init = ir.Call("moccuda::texture::linear_span",
                       (texture, first, ir.Builtin("blockDim", "x", loc=n.loc)), loc=n.loc)
        spans.append((n, ir.VarDecl(sym, name, "const auto", init=init, loc=n.loc)))
        return ir.Index(ir.Name(name, sym, loc=n.loc), ir.Builtin("threadIdx", "x", loc=n.loc), loc=n.loc)

    fast_body = ir.transform(node.body, replace_fetch)
    if not spans:
        return node
    cond: ir.Expr | None = None
    for _, decl in spans:
        test = ir.Name(decl.name, decl.sym, loc=decl.loc)
        cond = test if cond is None else ir.Binary("&&", cond, test, loc=decl.loc)
    fast = replace(node, body=fast_body)
    return ir.Block((*(decl for _, decl in spans), ir.If(cond, fast, node, loc=node.loc)), loc=node.loc)


def _is_texture_reference(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> bool:
    if not isinstance(e, ir.Name):
        return False
    symbol = symbols.get(e.sym)
    return symbol is not None and " ".join(symbol.type.split()).removeprefix("const ").startswith("texture<")


def _wide_integer(type_: str) -> bool:
    """An integer type of 32 bits or more: a conversion to it keeps ``first + tx`` modulo 2^32."""
    kind = integer_kind(" ".join(w for w in type_.split() if w not in ("const", "volatile")))
    return kind is not None and kind[1] >= 32


@dataclass
class _Resolver:
    """Reads an index as ``threadIdx.x`` plus a value no thread of the loop changes."""

    #: The loop body's top-level declarations that nothing assigns: an index may go through them.
    definitions: dict[int, ir.VarDecl]
    #: Variables the loop's threads declare or assign (a value read from them may differ).
    varying: set[int]
    symbols: dict[int, ir.Symbol]

    @staticmethod
    def for_loop(loop: ir.ThreadLoop, symbols: dict[int, ir.Symbol],
                 bodies: dict[str, ir.DeviceFunction]) -> "_Resolver":
        assigned = assigned_symbols(loop.body, bodies)
        declared = {n.sym for n in loop.body.walk() if isinstance(n, ir.VarDecl)}
        definitions = {s.sym: s for s in loop.body.stmts
                       if isinstance(s, ir.VarDecl) and s.storage == "auto" and s.init is not None
                       and s.sym not in assigned and "&" not in s.type and "[" not in s.type}
        # A variable whose address or reference the body takes may change through it.
        escaped = {n.operand.sym for n in loop.body.walk()
                   if isinstance(n, ir.Unary) and n.op == "&" and isinstance(n.operand, ir.Name)}
        escaped |= {n.init.sym for n in loop.body.walk()
                    if isinstance(n, ir.VarDecl) and "&" in n.type and isinstance(n.init, ir.Name)}
        varying = assigned | declared | escaped | {kv.sym for kv in loop.kept}
        return _Resolver(definitions, varying - set(definitions), symbols)

    def first(self, e: ir.Expr) -> ir.Expr | None:
        """The index at ``threadIdx.x = 0``, where ``e`` is ``threadIdx.x`` plus an invariant
        value (each thread's index is then that plus its ``threadIdx.x``, modulo 2^32); else None."""
        if isinstance(e, ir.Builtin) and e.var == "threadIdx" and e.dim == "x":
            return _ZERO
        if isinstance(e, ir.Name) and e.sym in self.definitions:
            decl = self.definitions[e.sym]
            found = self.first(decl.init)
            if found is None:
                return None
            if decl.type.replace("const", "").strip() == "auto":
                return found
            return ir.Cast(_plain(decl.type), found, loc=e.loc) if _wide_integer(decl.type) else None
        if isinstance(e, ir.Cast):
            found = self.first(e.operand)
            return None if found is None or not _wide_integer(e.type) else replace(e, operand=found)
        if isinstance(e, ir.Binary) and e.op in ("+", "-"):
            found = self.first(e.lhs)
            if found is not None and self.invariant(e.rhs):
                return replace(e, lhs=found, rhs=self.expanded(e.rhs))
            if e.op == "+" and self.invariant(e.lhs):
                found = self.first(e.rhs)
                if found is not None:
                    return replace(e, lhs=self.expanded(e.lhs), rhs=found)
        return None

    def invariant(self, e: ir.Expr) -> bool:
        """The same for every thread of the loop, and computed before it to the same value: no
        thread index, no variable a thread changes, no memory read, no call."""
        for n in e.walk():
            if isinstance(n, ir.Name):
                if n.sym in self.definitions:
                    if not self.invariant(self.definitions[n.sym].init):
                        return False
                elif n.sym in self.varying or not self._local_or_parameter(n.sym):
                    return False
            elif isinstance(n, ir.Builtin):
                if n.var == "threadIdx":
                    return False
            elif isinstance(n, ir.Binary):
                if n.op not in _VALUE_OPS:
                    return False
            elif isinstance(n, ir.Unary):
                if n.op not in ("+", "-", "~"):
                    return False
            elif not isinstance(n, (ir.Literal, ir.Cast)):
                return False
        return True

    def _local_or_parameter(self, sym: int) -> bool:
        """A kernel's parameter or local: no other code changes it while the loop runs (a
        global variable could be, through memory)."""
        symbol = self.symbols.get(sym)
        return symbol is not None and symbol.kind in ("local", "param")

    def expanded(self, e: ir.Expr) -> ir.Expr:
        """``e`` with the definitions replaced by their values converted to their types: it is
        computed before the loop, where they are not declared."""
        def value(n: ir.Node) -> ir.Node:
            if not (isinstance(n, ir.Name) and n.sym in self.definitions):
                return n
            decl = self.definitions[n.sym]
            init = self.expanded(decl.init)
            return init if decl.type.replace("const", "").strip() == "auto" else ir.Cast(_plain(decl.type), init, loc=n.loc)
        return ir.transform(e, value)


def _plain(type_: str) -> str:
    return " ".join(w for w in type_.split() if w not in ("const", "volatile"))
