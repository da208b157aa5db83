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


def called_functions(fn: ir.DeviceFunction) -> set[str]:
    """The functions ``fn`` calls: names of non-member functions, keys of member functions'
    overload sets (``ir.member_key``)."""
    found = set()
    for n in fn.body.walk():
        if isinstance(n, ir.Call):
            found.add(n.member or ir.callee_name(n.func))
        elif isinstance(n, ir.IndirectCall) and n.member:
            found.add(n.member)
    return found


def synchronizing_functions(bodies: dict[str, ir.DeviceFunction], block_storage: set[str] = frozenset(),
                            members: dict[str, tuple[ir.MemberFunction, ...]] | None = None,
                            overloads: dict[str, ir.DeviceFunction] | None = None) -> set[str]:
    """Names of the functions that contain a barrier, directly or through calls; also those
    that use ``__shared__`` variables (``block_storage``: a name of those is enough) and their
    callers: all of these are inlined.  ``members``: member functions by the key of their
    overload set, which is in the answer where one of the set synchronizes.  ``overloads``: the
    overloads of overloaded names (by declaration, ``PassContext.device_overloads``); a name is in
    the answer where one of its overloads synchronizes."""
    groups = {name: (fn,) for name, fn in bodies.items()} | dict(members or {})
    for fn in (overloads or {}).values():
        groups[fn.name] = groups.get(fn.name, ()) + (fn,)
    calls = {name: set().union(*map(called_functions, fns)) for name, fns in groups.items()}
    found = {name for name, fns in groups.items() for fn in fns if ir.contains(fn.body, ir.Barrier)
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
    """``text`` split at the commas outside of <>, () and [].  Inside parentheses or brackets, ``<``
    and ``>`` are comparisons (``(n < 32 ? n : 32)``, as a constant's value is written), not
    template brackets."""
    parts, nested, angles, start = [], 0, 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            nested += 1
        elif ch in ")]":
            nested -= 1
        elif ch == "<" and nested == 0:
            angles += 1
        elif ch == ">" and nested == 0:
            angles -= 1
        elif ch == "," and nested == 0 and angles == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return parts + [last] if last else parts


def _plain_type(type_: str) -> str:
    for qualifier in ("const ", "volatile "):
        type_ = type_.replace(qualifier, "")
    return type_.rstrip("&").strip()


def _argument_type(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> str | None:
    """The type of the argument ``e`` (without a reference, an array as the pointer it decays to),
    when the IR tells it exactly: a variable, an element of a pointer or array variable, a cast,
    pointer arithmetic on one of these (``smem + offset``); else None."""
    if isinstance(e, ir.Name) and e.sym in symbols:
        type_ = symbols[e.sym].type.strip().rstrip("&").strip()
        if "(" in type_:
            return None
        if "[" in type_:  # an array decays to a pointer to its first element
            first = type_.index("[")
            rest = type_[type_.index("]", first) + 1:]
            return None if rest else type_[:first].strip() + " *"
        return type_
    if isinstance(e, ir.Unary) and e.op == "*" and isinstance(e.operand, ir.Name):
        # A reference parameter of an inlined function (a pointer to the object it is bound to).
        pointer = _argument_type(e.operand, symbols)
        return pointer[:-1].strip() if pointer is not None and pointer.endswith("*") else None
    if isinstance(e, ir.Cast):
        return e.type.strip().rstrip("&").strip()
    if isinstance(e, ir.Index) and isinstance(e.base, ir.Name) and e.base.sym in symbols:
        base = _argument_type(e.base, symbols)
        return base[:-1].strip() if base is not None and base.endswith("*") else None
    if isinstance(e, ir.Binary) and e.op in ("+", "-"):
        # pointer + integer (either way round), pointer - integer: the pointer's type
        left, right = _argument_type(e.lhs, symbols), _argument_type(e.rhs, symbols)
        if left is not None and left.endswith("*") and (e.op == "+" or _is_integer_operand(e.rhs, right)):
            return left if right is None or not right.endswith("*") else None
        if e.op == "+" and right is not None and right.endswith("*") and (left is None or not left.endswith("*")):
            return right
    return None


def _is_integer_operand(e: ir.Expr, type_: str | None) -> bool:
    """Whether the IR tells that ``e`` is no pointer: an integer literal, or a known non-pointer type."""
    if isinstance(e, ir.Literal):
        return e.text.rstrip("uUlL").isdigit()
    return type_ is not None and not type_.endswith("*") and "[" not in type_


_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|__restrict)\b")


def _levels(type_: str) -> list[str]:
    """``type_`` (without a reference) as its pointee levels: ``const float * const *`` is
    ``["const float", "const", ""]``: the qualifiers of the innermost type, then of each pointer."""
    return [part.strip() for part in type_.split("*")]


def _deduced_from(declared: str, argument: str, names: list[str]) -> tuple[str, str] | None:
    """The template parameter a function parameter declared ``declared`` deduces from an argument
    of type ``argument``, and what it deduces, as C++ does for the shapes ``T``, ``T &``,
    ``const T &``, ``T *``, ``const T *``, ``T **`` ...: the argument's type with the parameter's
    pointers and the qualifiers it spells taken off; None for other shapes."""
    declared = declared.strip()
    by_reference = declared.endswith("&")
    levels = _levels(declared.rstrip("&").strip())
    innermost = _QUALIFIERS.sub("", levels[0]).split()
    if len(innermost) != 1 or innermost[0] not in names or any(_QUALIFIERS.sub("", q).strip() for q in levels[1:]):
        return None
    name = innermost[0]
    found = _levels(argument)
    pointers = len(levels) - 1
    if len(found) - 1 < pointers:
        return None
    # T keeps the argument's levels beyond the parameter's pointers; what the parameter's own
    # level spells (``const T``) is not part of T, and a by-value parameter drops the
    # argument's top-level qualifiers.
    kept = found[:len(found) - pointers]
    last = kept[-1]
    if pointers == 0 and not by_reference:
        last = _QUALIFIERS.sub("", last).strip()
    else:
        for qualifier in _QUALIFIERS.findall(levels[0]):
            last = re.sub(rf"\b{qualifier}\b", "", last).strip()
    kept[-1] = last
    text = " *".join(kept).strip()
    text = re.sub(r"\s+", " ", text)
    return (name, text) if text else None


def parameter_type(type_: str) -> str:
    """A parameter's type as C++ adjusts it: an array of T is a pointer to T (``float x[4][8]``
    is ``float (*x)[8]``), so that the inlined function writes the caller's array, not a copy."""
    stripped = type_.strip()
    if not stripped.endswith("]") or re.search(r"\(\s*[*&]", stripped):
        return type_  # not an array, or a pointer or reference to one (``T (*)[N]``)
    first = stripped.index("[")
    depth, end = 0, first
    for end in range(first, len(stripped)):  # the first extent's `]` (an extent may index: `a[b[0]]`)
        depth += {"[": 1, "]": -1}.get(stripped[end], 0)
        if depth == 0:
            break
    element, rest = stripped[:first].rstrip(), stripped[end + 1:]
    return f"{element} (*){rest}" if rest else f"{element} *"


#: An array, or a reference to one: ``float [4]``, ``const Vec (&)[N]``: its element and extent.
_ARRAY = re.compile(r"^(?:const\s+|volatile\s+)*(.+?)\s*(?:\(\s*[&*]\s*\w*\s*\))?\s*\[([^\[\]]+)\]$")


def _deduce(params: tuple[ir.Param, ...], args: tuple[ir.Expr, ...], names: list[str],
            symbols: dict[int, ir.Symbol]) -> dict[str, str]:
    """Template parameters deduced from the call's arguments, where the IR knows the argument's
    type exactly: a function parameter declared ``T``, ``T &``, ``const T *`` ... takes the
    argument's type less what the declaration spells (``_deduced_from``; inside a template the
    arguments have the caller's own parameter types, and clang resolves nothing before the
    instantiation); one declared ``T (&)[N]`` (an array by reference) an array variable's
    element type and extent."""
    args = args[len(args) - len(params):] if len(args) >= len(params) else args
    deduced: dict[str, str] = {}
    for param, arg in zip(params, args):
        found = _argument_type(arg, symbols)
        pair = None if found is None else _deduced_from(param.type, found, names)
        if pair is not None:
            deduced.setdefault(*pair)
            continue
        array = _ARRAY.match(param.type.strip())
        if isinstance(arg, ir.Unary) and arg.op == "*" and isinstance(arg.operand, ir.Name):
            arg = arg.operand  # a reference parameter of an inlined function: a pointer to an array
        if array is None or not isinstance(arg, ir.Name) or arg.sym not in symbols:
            continue
        given = _ARRAY.match(symbols[arg.sym].type.strip())
        if given is None:
            continue
        for pattern, value in ((_plain_type(array.group(1)), _plain_type(given.group(1))),
                               (array.group(2).strip(), given.group(2).strip())):
            if pattern in names and pattern not in deduced:
                deduced[pattern] = value
    return deduced


def _header_params(header: str) -> list[str]:
    header = header.strip()
    return _split_top_level(header[header.index("<") + 1:header.rindex(">")]) if header else []


def _param_name(param: str) -> str:
    return param.split("=", 1)[0].split()[-1].lstrip(".")


def _type_pattern(names: list[str]) -> re.Pattern:
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")


def _complete(params: list[str], given: list[str], deduced: dict[str, str]) -> list[str]:
    """The arguments of template parameters ``params``: ``given`` (written), then deduced ones,
    then defaults (in which the parameters before are replaced by their arguments); as many as
    could be found."""
    names = [_param_name(p) for p in params]
    args = list(given)
    for name, param in list(zip(names, params))[len(args):]:
        if name in deduced:
            args.append(deduced[name])
        elif "=" in param:
            bound = dict(zip(names, args))
            default = param.split("=", 1)[1].strip()
            args.append(_type_pattern(list(bound)).sub(lambda m: bound[m.group(1)], default) if bound else default)
        else:
            break
    return args


def _template_arguments(spelled: str) -> list[str] | None:
    """The arguments of the last template-id of ``spelled`` (``ns::C<int, N>``: int, N), or None."""
    spelled = spelled.strip()
    if not spelled.endswith(">"):
        return None
    depth = 0
    for i in range(len(spelled) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(spelled[i], 0)
        if depth == 0:
            return _split_top_level(spelled[i + 1:-1])
    return None


def substitute(fn: ir.DeviceFunction, params: list[str], args: list[str]) -> ir.DeviceFunction:
    """``fn`` with the template parameters ``params`` (as their header declares them) bound to
    ``args``: they are replaced in every type spelling, and a non-type parameter's uses become
    its value."""
    names = [_param_name(p) for p in params]
    binding = dict(zip(names, args))
    if not binding:
        return fn
    pattern = _type_pattern(names)

    def type_text(text: str) -> str:
        return pattern.sub(lambda m: binding[m.group(1)], text)

    values = {n for n, p in zip(names, params) if not p.startswith(("typename", "class", "template"))}

    def rewrite(node: ir.Node) -> ir.Node:
        if isinstance(node, ir.Name) and node.name in values:
            return ir.Literal(f"({binding[node.name]})", loc=node.loc)
        if isinstance(node, ir.Name) and "::" in node.name:  # C<T>::member
            return replace(node, name=type_text(node.name))
        if isinstance(node, (ir.VarDecl, ir.Cast, ir.Construct, ir.Param)):
            return replace(node, type=type_text(node.type))
        if isinstance(node, ir.SizeOf) and node.type is not None:
            return replace(node, type=type_text(node.type))
        if isinstance(node, ir.Call) and ("<" in node.func or "::" in node.func or node.member):
            return replace(node, func=type_text(node.func), receiver_type=type_text(node.receiver_type),
                           template_args=type_text(node.template_args))
        if isinstance(node, ir.IndirectCall) and node.member:
            return replace(node, receiver_type=type_text(node.receiver_type), template_args=type_text(node.template_args))
        if isinstance(node, ir.Member) and "<" in node.member:
            return replace(node, member=type_text(node.member))
        if isinstance(node, ir.WarpCollective):
            return replace(node, type=type_text(node.type))
        return node

    params_ir = tuple(ir.transform(p, rewrite) for p in fn.params)
    return replace(fn, return_type=type_text(fn.return_type), params=params_ir,
                   body=ir.transform(fn.body, rewrite), template="")


def specialize(fn: ir.DeviceFunction, call: ir.Call, symbols: dict[int, ir.Symbol],
               args: tuple[ir.Expr, ...] | None = None) -> ir.DeviceFunction:
    """A function template as the call instantiates it, for inlining: the template arguments the
    call writes (``warp_sum<float>(v)``), or those deduced from arguments whose type the IR knows
    exactly (a variable ``v`` declared ``float``), replace the parameters in every type spelling,
    and a non-type parameter's uses become its value.  Otherwise the call is a located error
    asking for the arguments.  ``args``: the call's arguments for the function's parameters
    (without the builtin vectors passed first), where known."""
    params = _header_params(fn.template)
    names = [_param_name(p) for p in params]
    if any("..." in p for p in params):
        raise unsupported(call.loc, f"inlining the variadic function template '{call.func}', which synchronizes")
    written = call.func[call.func.index("<") + 1:call.func.rindex(">")] if "<" in call.func else ""
    if call.template_args:  # the arguments clang resolved the call to, deduced ones included
        written = call.template_args[1:-1]
    deduced = _deduce(fn.params, call.args if args is None else args, names, symbols)
    args = _complete(params, _split_top_level(written), deduced)
    if len(args) != len(names):
        raise unsupported(call.loc, f"inlining the function template '{call.func}', which synchronizes, with "
                          "deduced template arguments (write them: "
                          f"{ir.callee_name(call.func)}<{', '.join(names)}>(...))")
    return substitute(fn, params, args)


def _callee_text(call: ir.Call | ir.IndirectCall) -> str:
    if isinstance(call, ir.Call):
        return call.func
    return f"{call.receiver_type}::{ir.callee_name(call.callee.member)}" if isinstance(call.callee, ir.Member) \
        else call.receiver_type


def specialize_member(fn: ir.MemberFunction, call: ir.Call | ir.IndirectCall,
                      symbols: dict[int, ir.Symbol]) -> ir.MemberFunction:
    """A member function as the call instantiates it: the class template's parameters bound to
    the arguments of the object's class as the call spells it (``Exchange<int, B>``, defaults
    after them), the member template's to those written after its name or deduced from the
    call's arguments; see :func:`specialize`."""
    what = _callee_text(call)
    class_params = _header_params(fn.class_template)
    member_params = _header_params(fn.template)
    if any("..." in p for p in class_params + member_params):
        raise unsupported(call.loc, f"inlining '{what}', a member of a variadic template, which synchronizes")
    class_args: list[str] = []
    if class_params:
        given = _template_arguments(call.receiver_type)
        if given is None:
            raise unsupported(call.loc, f"inlining '{what}', which synchronizes, on an object whose class template "
                              f"arguments cuda2cpu cannot read ('{call.receiver_type}': name the class with them)")
        class_args = _complete(class_params, given, {})
        if len(class_args) != len(class_params):
            raise unsupported(call.loc, f"inlining '{what}', which synchronizes: the arguments of its class "
                              f"template ('{call.receiver_type}')")
    fn = substitute(fn, class_params, class_args)
    if not member_params:
        return fn
    names = [_param_name(p) for p in member_params]
    explicit = _split_top_level(call.template_args[1:-1]) if call.template_args else []
    own = fn.params[1:] if not fn.static else fn.params
    args = _complete(member_params, explicit, _deduce(own, call.args, names, symbols))
    if len(args) != len(names):
        raise unsupported(call.loc, f"inlining the member function template '{what}', which synchronizes, with "
                          f"template arguments cuda2cpu cannot deduce (write them: {ir.callee_name(what)}"
                          f"<{', '.join(names)}>(...))")
    return substitute(fn, member_params, args)


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
        if isinstance(e, ir.IndirectCall):
            return bool(e.member) and e.member in self.ctx.member_bodies
        if not isinstance(e, ir.Call):
            return False
        return e.member in self.ctx.member_bodies if e.member else ir.callee_name(e.func) in self.sync

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
                raise unsupported(call.loc, f"a call to '{_callee_text(call)}' (which synchronizes) in a loop header")
        if isinstance(s, ir.ExprStmt) and self.is_sync_call(s.expr):
            return self.inline(s.expr, None), None
        pre: list[ir.Stmt] = []

        def replace_calls(e: ir.Expr, conditional: bool = False) -> ir.Expr:
            if self.is_sync_call(e):
                if conditional:
                    raise unsupported(e.loc, f"a call to '{_callee_text(e)}' (which synchronizes) that runs only "
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
            raise unsupported(call.loc, f"the value of the void function '{_callee_text(call)}'")
        name = self.fresh(f"{fn.name}_result")
        sym = self.ctx.fresh_sym(name, fn.return_type, "local", call.loc)
        decl = ir.VarDecl(sym, name, fn.return_type, loc=call.loc)
        return ir.Name(name, sym, loc=call.loc), [decl] + self.inline(call, ir.Name(name, sym, loc=call.loc))

    def member_function(self, call: ir.Call | ir.IndirectCall) -> ir.MemberFunction:
        """The member function the call calls, as it instantiates it: among the overloads, those
        that take as many arguments, then those whose parameters take the arguments whose type
        the IR spells (a tag ``Int2Type<false>()``: CUB's dispatch)."""
        what = _callee_text(call)
        candidates = []
        for fn in self.ctx.member_bodies[call.member]:
            own = fn.params if fn.static else fn.params[1:]
            if len(own) != len(call.args):
                continue
            try:
                candidates.append(specialize_member(fn, call, self.ctx.symbols))
            except CompileError:
                if len(self.ctx.member_bodies[call.member]) == 1:
                    raise
        if len(candidates) > 1:
            candidates = [fn for fn in candidates if _takes_spelled_arguments(fn, call.args)]
        if not candidates and call.member in self.ctx.unreadable_members:
            first, *rest = self.ctx.unreadable_members[call.member].diagnostics
            note = Diagnostic("note", call.loc, f"'{what}' is inlined into the kernel here (it synchronizes or uses "
                                                "__shared__ memory)")
            raise CompileError([replace(first, notes=first.notes + (note,)), *rest])
        if len(candidates) != 1:
            if not candidates and len(self.ctx.member_bodies[call.member]) == 1:
                raise unsupported(call.loc, f"a call of '{what}', which synchronizes, with default arguments")
            raise unsupported(call.loc, f"a call of the overloaded member function '{what}', which synchronizes: "
                              "cuda2cpu cannot tell which overload it calls (give the overloads their own names)")
        fn = candidates[0]
        if fn.virtual:
            raise unsupported(call.loc, f"a call of the virtual member function '{what}', which synchronizes (cuda2cpu "
                              "inlines such functions into the kernel, which needs the function the call resolves "
                              "to: make it non-virtual)")
        return fn

    def function(self, call: ir.Call | ir.IndirectCall) -> ir.DeviceFunction:
        if call.member:
            return self.member_function(call)
        name = ir.callee_name(call.func)
        # An overloaded name has no body of its own: the call names the overload it means.
        key = name if name in self.ctx.device_bodies or not call.decl else call.decl
        fn = self.ctx.device_bodies.get(name) or self.ctx.device_overloads.get(call.decl)
        if fn is None and key in self.ctx.unreadable_device_bodies:
            # The construct that stops the conversion, with where the function is inlined.
            first, *rest = self.ctx.unreadable_device_bodies[key].diagnostics
            note = Diagnostic("note", call.loc, f"'{name}' is inlined into the kernel here (it synchronizes or "
                                                "uses __shared__ memory)")
            raise CompileError([replace(first, notes=first.notes + (note,)), *rest])
        if fn is None:
            raise unsupported(call.loc, f"inlining the overloaded '{call.func}', which synchronizes, uses __shared__ "
                              "memory or a warp intrinsic, at a call that does not tell which overload it means (in a "
                              "template, on arguments of dependent type, more than one takes that many arguments: "
                              "give each overload its own name)")
        if fn.template:
            return specialize(fn, call, self.ctx.symbols, self.own_arguments(call, fn))
        if "<" in call.func:
            raise unsupported(call.loc, f"inlining the function template '{call.func}', which synchronizes")
        return fn

    def names_referenced_type(self, arg: ir.Expr, pointer_type: str) -> bool:
        """Is ``arg`` a variable (not a reference, not an array) of the type a reference parameter,
        bound to it as ``pointer_type`` (the referenced type and ``*``), refers to?"""
        symbol = self.ctx.symbols.get(arg.sym) if isinstance(arg, ir.Name) and arg.sym else None
        if symbol is None or symbol.kind not in ("local", "param", "shared", "global"):
            return False
        if any(c in symbol.type for c in "&[(") or not pointer_type.rstrip().endswith("*"):
            return False
        return _without_const(pointer_type.rstrip()[:-1]) == _without_const(symbol.type)

    def own_arguments(self, call: ir.Call | ir.IndirectCall, fn: ir.DeviceFunction,
                      bound: int = 0) -> tuple[ir.Expr, ...]:
        """The call's arguments for ``fn``'s parameters after the first ``bound`` (those of the
        object): without the builtin vectors a function reading them gets first
        (``ir.pass_builtins_to_calls``), and with the default arguments of the parameters the
        call leaves out (``ir.Param.default_value``)."""
        args = call.args
        if isinstance(call, ir.Call) and not call.member:
            leading = self.ctx.device_builtins.get(ir.callee_name(call.func), ())
            if len(args) >= len(leading) and all(isinstance(a, ir.BuiltinVector) and a.var == v
                                                 for a, v in zip(args, leading)):
                args = args[len(leading):]
        wanted = fn.params[bound:]
        if len(args) > len(wanted):
            args = args[len(args) - len(wanted):]
        for param in wanted[len(args):]:
            if param.default_value is None:
                raise unsupported(call.loc, f"a call to '{fn.name}', which synchronizes, that leaves out the argument "
                                  f"of '{param.name}' (write it: cuda2cpu cannot read its default '{param.default}')"
                                  if param.default else f"a call to '{fn.name}' with too few arguments")
            args += (param.default_value,)
        return args

    def block_variable(self, decl: ir.VarDecl) -> tuple[str, int]:
        """The kernel's name and symbol for the ``__shared__`` declaration ``decl`` of an inlined
        function: the same for every call of the function (and instantiation with the same
        type)."""
        key = (decl.sym, decl.type)
        if key not in self.block_names:
            name = self.fresh(decl.name)
            self.block_names[key] = (name, self.ctx.fresh_sym(name, decl.type, "shared", decl.loc))
        return self.block_names[key]

    def receiver(self, call: ir.Call | ir.IndirectCall,
                 fn: ir.DeviceFunction) -> tuple[list[ir.Stmt], tuple[ir.Expr, ...], ir.Expr | None]:
        """What binds a member function's ``self`` (``this``): the argument ``&obj`` for
        ``obj.f()``, ``p`` for ``p->f()``.  A temporary object (``C(s).f()``) is declared first,
        and ``self`` stands for its address (no pointer to it is kept: the object itself lives
        across the body's barriers).  Nothing for a static member function."""
        if not isinstance(fn, ir.MemberFunction) or fn.static:
            return [], (), None
        if not isinstance(call, ir.IndirectCall) or not isinstance(call.callee, ir.Member):
            raise unsupported(call.loc, f"a call of the member function '{_callee_text(call)}' without an object")
        obj = call.callee.base
        if call.callee.arrow:
            return [], (obj,), None
        if _is_lvalue(obj, self.ctx.symbols):
            return [], (ir.Unary("&", obj, loc=obj.loc),), None
        name = self.fresh(f"{fn.name}_object")
        type_ = fn.params[0].type.rstrip().rstrip("*").rstrip()
        sym = self.ctx.fresh_sym(name, type_, "local", call.loc)
        return [ir.VarDecl(sym, name, type_, obj, loc=obj.loc)], (), \
            ir.Unary("&", ir.Name(name, sym, loc=obj.loc), loc=obj.loc)

    def inline(self, call: ir.Call | ir.IndirectCall, result: ir.Name | None) -> list[ir.Stmt]:
        fn = self.function(call)
        if self.depth >= MAX_DEPTH:
            raise unsupported(call.loc, f"recursion through '{_callee_text(call)}', which synchronizes")
        body = ir.as_block(fn.body)
        early_return = any(isinstance(n, ir.Return) and not (body.stmts and n is body.stmts[-1]) for n in body.walk())
        before, bound_self, self_value = self.receiver(call, fn)
        if self_value is not None:  # `self` stands for the temporary object's address
            fn = replace(fn, params=fn.params[1:],
                         body=ir.transform(fn.body, lambda n: self_value if isinstance(n, ir.Name)
                                           and n.sym == fn.params[0].sym else n))
            body = ir.as_block(fn.body)
        args = bound_self + self.own_arguments(call, fn, len(bound_self))
        renamed: dict[int, tuple[str, int]] = {}
        # A reference parameter bound to an object is a pointer to it (uses read through it): a
        # reference cannot be kept per thread across a barrier, a pointer can.  One bound to a
        # temporary (a const reference) is a copy of it.
        param_types = {p.sym: _bound_parameter_type(p.type, a, self.ctx.symbols) for p, a in zip(fn.params, args)}
        through_pointer = {p.sym for p in fn.params if param_types[p.sym] != parameter_type(p.type)
                           and _is_reference(p.type) and _is_lvalue(dict(zip((q.sym for q in fn.params), args))[p.sym],
                                                                     self.ctx.symbols)}
        # One bound to a variable of its type is that variable: the body names it (no pointer to
        # keep per thread, and the analyses see which variable each use is).
        aliased = {p.sym: a for p, a in zip(fn.params, args)
                   if p.sym in through_pointer and self.names_referenced_type(a, param_types[p.sym])}
        through_pointer -= aliased.keys()
        for n in list(fn.params) + [d for d in body.walk() if isinstance(d, ir.VarDecl)]:
            if n.sym in aliased:
                continue
            if isinstance(n, ir.VarDecl) and n.storage != "auto":
                renamed[n.sym] = self.block_variable(n)
                continue
            new_name = self.fresh(n.name)
            type_ = param_types[n.sym] if isinstance(n, ir.Param) else n.type
            renamed[n.sym] = (new_name, self.ctx.fresh_sym(new_name, type_, "local", n.loc))

        def rename(node: ir.Node) -> ir.Node:
            if isinstance(node, ir.Name) and node.sym in aliased:
                return replace(aliased[node.sym], loc=node.loc)
            if isinstance(node, ir.Name) and node.sym in through_pointer:
                pointer = replace(node, name=renamed[node.sym][0], sym=renamed[node.sym][1])
                return ir.Unary("*", pointer, loc=node.loc)
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
        params = [ir.VarDecl(renamed[p.sym][1], renamed[p.sym][0], param_types[p.sym],
                             ir.Unary("&", a, loc=a.loc) if p.sym in through_pointer else a, loc=call.loc)
                  for p, a in zip(fn.params, args) if p.sym not in aliased]
        self.depth += 1
        try:
            inner = self.stmts(tuple(before + params + stmts))
        finally:
            self.depth -= 1
        return [ir.Block(inner, loc=call.loc)]


def _without_const(type_: str) -> str:
    """A type's spelling without ``const`` (a const reference to a variable reads it as it is)."""
    return " ".join(w for w in type_.replace("*", " * ").split() if w != "const")


def _is_reference(type_: str) -> bool:
    type_ = type_.strip()
    return (type_.endswith("&") and not type_.endswith("&&")) or bool(re.search(r"\(\s*&\s*\)", type_))


def _bound_parameter_type(type_: str, arg: ir.Expr, symbols: dict[int, ir.Symbol]) -> str:
    """The type an inlined function's parameter is declared with: an array is a pointer
    (:func:`parameter_type`); a reference bound to an object a pointer to it (``T &`` ->
    ``T *``, ``T (&)[N]`` -> ``T (*)[N]``), one bound to a temporary a value."""
    if not _is_reference(type_):
        return parameter_type(type_)
    if not _is_lvalue(arg, symbols):
        return re.sub(r"\(\s*&\s*\)", "", type_).rstrip().rstrip("&").rstrip()
    if type_.strip().endswith("&"):
        return type_.strip()[:-1].rstrip() + " *"
    return re.sub(r"\(\s*&\s*\)", "(*)", type_)


def _is_lvalue(e: ir.Expr, symbols: dict[int, ir.Symbol]) -> bool:
    """Does ``e`` name an object (whose address ``this`` can be), not a temporary?"""
    if isinstance(e, ir.Name):
        return True
    if isinstance(e, ir.Index) or (isinstance(e, ir.Unary) and e.op == "*"):
        return True
    if isinstance(e, ir.Member):
        return e.arrow or _is_lvalue(e.base, symbols)
    return False


def _normalized(type_: str) -> str:
    type_ = re.sub(r"\(\s*([\w:]+)\s*\)", r"\1", type_)
    return re.sub(r"\s+", "", _plain_type(type_.replace("typename ", "")))


def _takes_spelled_arguments(fn: ir.MemberFunction, args: tuple[ir.Expr, ...]) -> bool:
    """Can ``fn`` take ``args`` as far as the IR spells their types: does a parameter that takes
    a constructed object (a tag ``Int2Type<false>()``) have the object's type?"""
    own = fn.params if fn.static else fn.params[1:]
    for param, arg in zip(own, args):
        if isinstance(arg, ir.Construct) and _normalized(arg.type) != _normalized(param.type):
            return False
    return True


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
        if not sync and not ctx.member_bodies:
            return program
        return map_kernels(program, lambda k: self.kernel(k, ctx, sync))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext, sync: set[str]) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        assert grid is not None, "inline-device runs after parallel-loops"
        used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        inliner = Inliner(ctx, sync, used)
        if not any(map(inliner.is_sync_call, grid.walk())):
            return kernel
        stmts = tuple(inliner.inside(s) if isinstance(s, ir.ThreadLoop) else s for s in grid.body.stmts)
        static = tuple(d for d in inliner.hoisted if d.storage == "shared")
        dynamic = tuple(d for d in inliner.hoisted if d.storage == "shared_dynamic")
        new_grid = replace(grid, body=replace(grid.body, stmts=static + stmts), dynamic_shared=grid.dynamic_shared + dynamic)
        return ir.replace_grid_loop(kernel, with_namespace_shared(new_grid, ctx))
