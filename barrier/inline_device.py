"""Pass ``inline-device``: inline calls to ``__device__`` functions that contain ``__syncthreads()``
(or use ``__shared__`` variables).

Requires: ``parallel-loops``.  Guarantees: no thread loop calls a function that synchronizes,
directly or through its callees, so every barrier of the kernel is visible to the barrier
analyses and to the lowering.  Such functions are no longer emitted as functions (the host text
keeps a comment in their place): all their callers are kernels, where they are inlined.

A call is inlined where it stands as a statement, as the initializer of a declaration, or
inside the expression of a statement (``float m = block_sum(buf, v) / count;``): its value is
computed first into a fresh variable.  The body runs in its own braces with each parameter
declared and initialized from its argument; locals and parameters get names not used in the
kernel, so an argument never refers to the parameter that shadows it.  A ``return`` before the
end sets a fresh ``<fn>_returned`` flag (and the result) and leaves the loops and ``switch``es
around it; the statements after anything that may return run under ``if (!<fn>_returned)``
(``if (<fn>_returned) break;`` inside a loop), so a barrier after it is one that every thread
still in the function reaches, as the uniformity analysis checks.  A call in a loop condition or
on one side of ``&&``, ``||`` or ``?:`` is a located error (it would run a barrier conditionally).

A function that declares ``__shared__`` variables (the block-reduce helper's
``static __shared__ T warp_sums[32]``) or uses namespace-scope ones is inlined too.  Each such
declaration is one variable per block, shared by every call of the function in the block: it
moves to the block level (the ``GridLoop``) once per declaration and instantiated type, under a
name fresh in the kernel, and every inlined copy refers to it.

Before::

    __device__ float block_sum(float *buf, float v) { buf[t] = v; __syncthreads(); ...; return buf[0]; }
    ThreadLoop { float m = block_sum(s, x) / n; }

After::

    ThreadLoop {
        float block_sum_result;
        { float *buf = s; float v = x; buf[t] = v; Barrier; ...; block_sum_result = buf[0]; }
        float m = block_sum_result / n;
    }
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from barrier.parallel_loops import split_shared, with_namespace_shared
from foundation import ir
from foundation.diagnostics import CompileError, Diagnostic, unsupported
from foundation.passes import PassContext, map_kernels, register

#: Nesting of inlined synchronizing functions beyond which the call graph is taken to recurse.
MAX_DEPTH = 16


def synchronizing_functions(bodies: dict[str, ir.DeviceFunction], block_storage: set[str] = frozenset()) -> set[str]:
    """Names of the functions that contain a barrier, directly or through calls; also those
    that use ``__shared__`` variables (``block_storage``: a name of those is enough) and their
    callers: all of these are inlined."""
    calls = {name: {ir.callee_name(n.func) for n in fn.body.walk() if isinstance(n, ir.Call)}
             for name, fn in bodies.items()}
    found = {name for name, fn in bodies.items() if ir.contains(fn.body, ir.Barrier)
             or ir.contains(fn.body, ir.WarpCollective) or _writes_volatile_parameter(fn)} | set(block_storage)
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in found and callees & found:
                found.add(name)
                changed = True
    return found


def _writes_volatile_parameter(fn: ir.DeviceFunction) -> bool:
    """Legacy warp-synchronous helpers (``void warp_reduce(volatile float *s, int t)``) are inlined
    too: ``warp-collectives`` orders their stores across the lanes of a warp."""
    volatile = {p.sym for p in fn.params if "volatile" in p.type and ("*" in p.type or "[" in p.type)}
    for n in fn.body.walk():
        target = n.target if isinstance(n, ir.Assign) else None
        while isinstance(target, ir.Index):
            target = target.base
        if isinstance(target, ir.Name) and target.sym in volatile:
            return True
    return False


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside of <>, () and []."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return parts + [last] if last else parts


def _plain_type(type_: str) -> str:
    for qualifier in ("const ", "volatile "):
        type_ = type_.replace(qualifier, "")
    return type_.rstrip("&").strip()


def _argument_type(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> str | None:
    """The type a by-value template parameter deduces from ``e``, when the IR tells it exactly: a
    variable, an element of a pointer or array variable, a cast; else None."""
    if isinstance(e, ir.Name) and e.sym in symbols:
        type_ = _plain_type(symbols[e.sym].type)
        return None if "[" in type_ or "(" in type_ else type_
    if isinstance(e, ir.Cast):
        return _plain_type(e.type)
    if isinstance(e, ir.Index) and isinstance(e.base, ir.Name) and e.base.sym in symbols:
        base = _plain_type(symbols[e.base.sym].type)
        if "[" in base:
            element = base[:base.index("[")].strip()
            rest = base[base.index("]") + 1:]
            return None if rest else _plain_type(element)
        if base.endswith("*") and "(" not in base:
            return _plain_type(base[:-1])
    return None


def parameter_type(type_: str) -> str:
    """A parameter's type as C++ adjusts it: an array of T is a pointer to T (``float x[4][8]``
    is ``float (*x)[8]``), so that the inlined function writes the caller's array, not a copy."""
    stripped = type_.strip()
    if not stripped.endswith("]") or "(" in stripped:
        return type_
    first = stripped.index("[")
    element, rest = stripped[:first].rstrip(), stripped[stripped.index("]", first) + 1:]
    return f"{element} (*){rest}" if rest else f"{element} *"


def _deduce(fn: ir.DeviceFunction, call: ir.Call, names: list[str], symbols: dict[int, ir.Symbol]) -> dict[str, str]:
    """Type parameters deduced from the call's arguments: a function parameter declared ``T`` (by
    value, possibly const) takes the type of its argument, when the IR knows it exactly."""
    args = call.args[len(call.args) - len(fn.params):] if len(call.args) >= len(fn.params) else call.args
    deduced: dict[str, str] = {}
    for param, arg in zip(fn.params, args):
        declared = param.type.replace("const ", "").strip()
        if declared in names and declared not in deduced:
            found = _argument_type(arg, symbols)
            if found is not None:
                deduced[declared] = found
    return deduced


def specialize(fn: ir.DeviceFunction, call: ir.Call, symbols: dict[int, ir.Symbol]) -> ir.DeviceFunction:
    """A function template as the call instantiates it, for inlining: the template arguments the
    call writes (``warp_sum<float>(v)``), or those deduced from arguments whose type the IR knows
    exactly (a variable ``v`` declared ``float``), replace the parameters in every type spelling,
    and a non-type parameter's uses become its value.  Otherwise the call is a located error
    asking for the arguments."""
    header = fn.template.strip()
    params = _split_top_level(header[header.index("<") + 1:header.rindex(">")])
    names = [p.split("=", 1)[0].split()[-1] for p in params]
    if any("..." in p for p in params):
        raise unsupported(call.loc, f"inlining the variadic function template '{call.func}', which synchronizes")
    written = call.func[call.func.index("<") + 1:call.func.rindex(">")] if "<" in call.func else ""
    if call.template_args:  # the arguments clang resolved the call to, deduced ones included
        written = call.template_args[1:-1]
    args = _split_top_level(written)
    deduced = _deduce(fn, call, names, symbols)
    defaults = [p.split("=", 1)[1].strip() if "=" in p else None for p in params]
    for name, default in list(zip(names, defaults))[len(args):]:
        if name in deduced:
            args.append(deduced[name])
        elif default is not None:
            args.append(default)
        else:
            break
    if len(args) != len(names):
        raise unsupported(call.loc, f"inlining the function template '{call.func}', which synchronizes, with "
                          "deduced template arguments (write them: "
                          f"{ir.callee_name(call.func)}<{', '.join(names)}>(...))")
    binding = dict(zip(names, args))
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")

    def type_text(text: str) -> str:
        return pattern.sub(lambda m: binding[m.group(1)], text)

    values = {n for n, p in zip(names, params) if not p.startswith(("typename", "class"))}

    def rewrite(node: ir.Node) -> ir.Node:
        if isinstance(node, ir.Name) and node.name in values:
            return ir.Literal(f"({binding[node.name]})", loc=node.loc)
        if isinstance(node, (ir.VarDecl, ir.Cast, ir.Construct, ir.Param)):
            return replace(node, type=type_text(node.type))
        if isinstance(node, ir.SizeOf) and node.type is not None:
            return replace(node, type=type_text(node.type))
        if isinstance(node, ir.Call) and "<" in node.func:
            return replace(node, func=type_text(node.func))
        if isinstance(node, ir.WarpCollective):
            return replace(node, type=type_text(node.type))
        return node

    params_ir = tuple(ir.transform(p, rewrite) for p in fn.params)
    return replace(fn, return_type=type_text(fn.return_type), params=params_ir,
                   body=ir.transform(fn.body, rewrite), template="")


@dataclass
class Inliner:
    ctx: PassContext
    sync: set[str]
    used_names: set[str]
    depth: int = 0
    #: The kernel's name and symbol for each ``__shared__`` declaration of an inlined function,
    #: by the declaration's symbol and type (a template's instantiations differ by type): one
    #: variable per block for all calls, as in CUDA.
    block_names: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)
    #: Their declarations, hoisted to the block (``GridLoop``) level.
    hoisted: list[ir.VarDecl] = field(default_factory=list)

    def is_sync_call(self, e: ir.Node) -> bool:
        return isinstance(e, ir.Call) and ir.callee_name(e.func) in self.sync

    def fresh(self, base: str) -> str:
        name = base
        n = 1
        while name in self.used_names:
            name = f"{base}_{n}"
            n += 1
        self.used_names.add(name)
        return name

    # ------------------------------------------------------------------------- statements

    def stmts(self, stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for s in stmts:
            if not any(self.is_sync_call(n) for n in s.walk()):
                out.append(s)
                continue
            s = self.inside(s)
            pre, s = self.hoist(s)
            out.extend(pre)
            if s is not None:
                out.append(s)
        return tuple(out)

    def sub(self, s: ir.Stmt | None) -> ir.Stmt | None:
        if s is None or not any(self.is_sync_call(n) for n in s.walk()):
            return s
        block = ir.as_block(s)
        return replace(block, stmts=self.stmts(block.stmts))

    def inside(self, s: ir.Stmt) -> ir.Stmt:
        """Inline the calls in the statements nested in ``s``."""
        if isinstance(s, (ir.Block, ir.ThreadLoop)):
            return self.sub(s) if isinstance(s, ir.Block) else replace(s, body=self.sub(s.body))
        if isinstance(s, ir.If):
            return replace(s, then=self.sub(s.then), otherwise=self.sub(s.otherwise))
        if isinstance(s, (ir.For, ir.While, ir.DoWhile, ir.Switch, ir.Case)):
            return replace(s, body=self.sub(s.body))
        return s

    def hoist(self, s: ir.Stmt) -> tuple[list[ir.Stmt], ir.Stmt | None]:
        """Inline the calls of ``s``'s own expressions before it."""
        for e in self.loop_parts(s):
            call = next((n for n in e.walk() if self.is_sync_call(n)), None)
            if call is not None:
                raise unsupported(call.loc, f"a call to '{call.func}' (which synchronizes) in a loop header")
        if isinstance(s, ir.ExprStmt) and self.is_sync_call(s.expr):
            return self.inline(s.expr, None), None
        pre: list[ir.Stmt] = []

        def replace_calls(e: ir.Expr, conditional: bool = False) -> ir.Expr:
            if self.is_sync_call(e):
                if conditional:
                    raise unsupported(e.loc, f"a call to '{e.func}' (which synchronizes) that runs only "
                                      "under a condition")
                if any(self.is_sync_call(n) for a in e.args for n in a.walk()):
                    raise unsupported(e.loc, "a call to a synchronizing function in the arguments of another")
                result, stmts = self.inline_value(e)
                pre.extend(stmts)
                return result
            cond_children = isinstance(e, ir.Conditional) or (isinstance(e, ir.Binary) and e.op in ("&&", "||"))
            first = True

            def child(c):
                nonlocal first
                lazy = conditional or (cond_children and not first)
                first = False
                return replace_calls(c, lazy) if isinstance(c, ir.Expr) else c

            return ir.map_children(e, child)

        if isinstance(s, ir.VarDecl) and s.init is not None:
            s = replace(s, init=replace_calls(s.init))
        elif isinstance(s, ir.ExprStmt):
            s = replace(s, expr=replace_calls(s.expr))
        elif isinstance(s, ir.Return) and s.value is not None:
            s = replace(s, value=replace_calls(s.value))
        elif isinstance(s, (ir.If, ir.Switch)):
            s = replace(s, cond=replace_calls(s.cond))
        return pre, s

    @staticmethod
    def loop_parts(s: ir.Stmt) -> list[ir.Node]:
        if isinstance(s, ir.For):
            return [p for p in (s.init, s.cond, s.step) if p is not None]
        if isinstance(s, (ir.While, ir.DoWhile)):
            return [s.cond]
        return []

    # --------------------------------------------------------------------------- inlining

    def inline_value(self, call: ir.Call) -> tuple[ir.Expr, list[ir.Stmt]]:
        fn = self.function(call)
        if fn.return_type.strip() == "void":
            raise unsupported(call.loc, f"the value of the void function '{call.func}'")
        name = self.fresh(f"{fn.name}_result")
        sym = self.ctx.fresh_sym(name, fn.return_type, "local", call.loc)
        decl = ir.VarDecl(sym, name, fn.return_type, loc=call.loc)
        return ir.Name(name, sym, loc=call.loc), [decl] + self.inline(call, ir.Name(name, sym, loc=call.loc))

    def function(self, call: ir.Call) -> ir.DeviceFunction:
        name = ir.callee_name(call.func)
        fn = self.ctx.device_bodies.get(name)
        if fn is None and name in self.ctx.unreadable_device_bodies:
            # The construct that stops the conversion, with where the function is inlined.
            first, *rest = self.ctx.unreadable_device_bodies[name].diagnostics
            note = Diagnostic("note", call.loc, f"'{name}' is inlined into the kernel here (it synchronizes or "
                                                "uses __shared__ memory)")
            raise CompileError([replace(first, notes=first.notes + (note,)), *rest])
        if fn is None:
            raise unsupported(call.loc, f"inlining '{call.func}', which synchronizes, uses __shared__ memory or a "
                              "warp intrinsic, while it is overloaded (give each overload its own name)")
        if fn.template:
            return specialize(fn, call, self.ctx.symbols)
        if "<" in call.func:
            raise unsupported(call.loc, f"inlining the function template '{call.func}', which synchronizes")
        return fn

    def block_variable(self, decl: ir.VarDecl) -> tuple[str, int]:
        """The kernel's name and symbol for the ``__shared__`` declaration ``decl`` of an inlined
        function: the same for every call of the function (and instantiation with the same
        type)."""
        key = (decl.sym, decl.type)
        if key not in self.block_names:
            name = self.fresh(decl.name)
            self.block_names[key] = (name, self.ctx.fresh_sym(name, decl.type, "shared", decl.loc))
        return self.block_names[key]

    def inline(self, call: ir.Call, result: ir.Name | None) -> list[ir.Stmt]:
        fn = self.function(call)
        if self.depth >= MAX_DEPTH:
            raise unsupported(call.loc, f"recursion through '{call.func}', which synchronizes")
        body = ir.as_block(fn.body)
        early_return = any(isinstance(n, ir.Return) and not (body.stmts and n is body.stmts[-1]) for n in body.walk())
        args = call.args[len(call.args) - len(fn.params):] if len(call.args) >= len(fn.params) else call.args
        if len(args) != len(fn.params):
            raise unsupported(call.loc, f"a call to '{fn.name}' with default arguments, which synchronizes")
        renamed: dict[int, tuple[str, int]] = {}
        for n in list(fn.params) + [d for d in body.walk() if isinstance(d, ir.VarDecl)]:
            if isinstance(n, ir.VarDecl) and n.storage != "auto":
                renamed[n.sym] = self.block_variable(n)
                continue
            new_name = self.fresh(n.name)
            type_ = parameter_type(n.type) if isinstance(n, ir.Param) else n.type
            renamed[n.sym] = (new_name, self.ctx.fresh_sym(new_name, type_, "local", n.loc))

        def rename(node: ir.Node) -> ir.Node:
            if isinstance(node, ir.Name) and node.sym in renamed:
                return replace(node, name=renamed[node.sym][0], sym=renamed[node.sym][1])
            if isinstance(node, ir.VarDecl) and node.sym in renamed:
                return replace(node, name=renamed[node.sym][0], sym=renamed[node.sym][1])
            return node

        body = ir.transform(body, rename)
        stripped, shared = split_shared(body)
        body = ir.as_block(stripped)
        known = {d.sym for d in self.hoisted}
        self.hoisted.extend(d for d in shared if d.sym not in known)
        body = ir.pass_builtins_to_calls(body, self.ctx.device_builtins)
        stmts = list(body.stmts)
        if early_return:
            name = self.fresh(f"{fn.name}_returned")
            flag = ir.Name(name, self.ctx.fresh_sym(name, "bool", "local", call.loc), loc=call.loc)
            stmts = [ir.VarDecl(flag.sym, name, "bool", ir.Literal("false", loc=call.loc), loc=call.loc),
                     *_returns_as_flag(tuple(stmts), result, flag, breakable=False)]
        elif stmts and isinstance(stmts[-1], ir.Return):
            ret = stmts.pop()
            if ret.value is not None:
                stmts.append(ir.ExprStmt(ir.Assign("=", result, ret.value, loc=ret.loc) if result is not None
                                         else ret.value, loc=ret.loc))
        params = [ir.VarDecl(renamed[p.sym][1], renamed[p.sym][0], parameter_type(p.type), a, loc=call.loc)
                  for p, a in zip(fn.params, args)]
        self.depth += 1
        try:
            inner = self.stmts(tuple(params + stmts))
        finally:
            self.depth -= 1
        return [ir.Block(inner, loc=call.loc)]


def _returns_as_flag(stmts: tuple[ir.Stmt, ...], result: ir.Name | None, flag: ir.Name,
                     breakable: bool) -> list[ir.Stmt]:
    """``stmts`` of an inlined function without ``return``: each sets ``result`` and ``flag``
    (and breaks out of the loop or ``switch`` around it, when ``breakable``); what follows a
    statement that may return runs only while ``flag`` is false."""
    loc = flag.loc
    out: list[ir.Stmt] = []
    for i, s in enumerate(stmts):
        out.append(_return_as_flag(s, result, flag, breakable))
        if isinstance(s, ir.Return):
            return out  # what follows is never reached
        if not ir.contains(s, ir.Return) or i + 1 == len(stmts):
            continue
        if breakable:
            out.append(ir.If(flag, ir.Break(loc=loc), loc=loc))
            continue
        rest = _returns_as_flag(stmts[i + 1:], result, flag, breakable)
        out.append(ir.If(ir.Unary("!", flag, loc=loc), ir.Block(tuple(rest), loc=loc), loc=loc))
        return out
    return out


def _return_as_flag(s: ir.Stmt, result: ir.Name | None, flag: ir.Name, breakable: bool) -> ir.Stmt:
    if isinstance(s, ir.Return):
        done: list[ir.Stmt] = []
        if s.value is not None:
            done.append(ir.ExprStmt(ir.Assign("=", result, s.value, loc=s.loc) if result is not None else s.value,
                                    loc=s.loc))
        done.append(ir.ExprStmt(ir.Assign("=", flag, ir.Literal("true", loc=s.loc), loc=s.loc), loc=s.loc))
        if breakable:
            done.append(ir.Break(loc=s.loc))
        return ir.Block(tuple(done), loc=s.loc)
    if not ir.contains(s, ir.Return):
        return s
    if isinstance(s, ir.Block):
        return replace(s, stmts=tuple(_returns_as_flag(s.stmts, result, flag, breakable)))
    if isinstance(s, ir.If):
        otherwise = None if s.otherwise is None else _return_as_flag(s.otherwise, result, flag, breakable)
        return replace(s, then=_return_as_flag(s.then, result, flag, breakable), otherwise=otherwise)
    if isinstance(s, (ir.For, ir.While, ir.DoWhile, ir.Switch)):
        return replace(s, body=_return_as_flag(s.body, result, flag, True))
    if isinstance(s, ir.Case):
        return replace(s, body=_return_as_flag(s.body, result, flag, breakable))
    raise unsupported(s.loc, "a return inside this statement, before the end of a function that synchronizes "
                             "(it is inlined into the kernel)")


@register
@dataclass(frozen=True)
class InlineDevice:
    name = "inline-device"
    required = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        sync = set(ctx.synchronizing) | synchronizing_functions(ctx.device_bodies)
        if not sync:
            return program
        return map_kernels(program, lambda k: self.kernel(k, ctx, sync))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext, sync: set[str]) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        assert grid is not None, "inline-device runs after parallel-loops"
        if not any(isinstance(n, ir.Call) and ir.callee_name(n.func) in sync for n in grid.walk()):
            return kernel
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        inliner = Inliner(ctx, sync, used)
        stmts = tuple(inliner.inside(s) if isinstance(s, ir.ThreadLoop) else s for s in grid.body.stmts)
        static = tuple(d for d in inliner.hoisted if d.storage == "shared")
        dynamic = tuple(d for d in inliner.hoisted if d.storage == "shared_dynamic")
        new_grid = replace(grid, body=replace(grid.body, stmts=static + stmts), dynamic_shared=grid.dynamic_shared + dynamic)
        return ir.replace_grid_loop(kernel, with_namespace_shared(new_grid, ctx))
