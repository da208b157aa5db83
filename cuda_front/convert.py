"""Convert libclang cursors of device code into cuda2cpu IR.

One :class:`Converter` per translation unit.  It turns the body of each ``__global__`` function
(and of each ``__device__`` function that needs translation) into IR statements and expressions,
records every declaration it meets in a symbol table, and raises :class:`CompileError` at the
first construct it cannot represent faithfully, located at that construct.

Before (CUDA)::

    __global__ void k(float *a) { a[threadIdx.x] = 0; __syncthreads(); }

After (IR)::

    Kernel(name='k', params=(Param('a', 'float *'),),
           body=Block((ExprStmt(Assign('=', Index(Name('a'), Builtin('threadIdx', 'x')),
                                       Literal('0'))),
                       Barrier())))
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from pathlib import Path

import clang.cindex as ci

from cuda_front import clang_ext
from cuda_front.clang_ext import location, tokens_text
from cuda_front import inline_ptx, members, warp_front
from cuda_front.standard_math import device_math_function
from foundation import device_math, ir
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc, error, unsupported

K = ci.CursorKind

BUILTIN_VARS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
BARRIER_FUNCTIONS = frozenset({"__syncthreads"})
#: Device-side calls with no faithful CPU meaning yet; each is a located error.
UNSUPPORTED_CALLS = {
    "__shfl": "the pre-CUDA-9 shuffle __shfl() without a mask (use __shfl_sync)",
    "__shfl_up": "the pre-CUDA-9 shuffle __shfl_up() without a mask (use __shfl_up_sync)",
    "__shfl_down": "the pre-CUDA-9 shuffle __shfl_down() without a mask (use __shfl_down_sync)",
    "__shfl_xor": "the pre-CUDA-9 shuffle __shfl_xor() without a mask (use __shfl_xor_sync)",
    "__cudaPushCallConfiguration": "a kernel launch from device code (dynamic parallelism)",
}
#: What clang calls for ``k<<<...>>>(...)``: in device code, a child of the launch's call.
LAUNCH_CONFIGURATION = "__cudaPushCallConfiguration"

_CAST_STYLES = {
    K.CSTYLE_CAST_EXPR: "c",
    K.CXX_STATIC_CAST_EXPR: "static",
    K.CXX_REINTERPRET_CAST_EXPR: "reinterpret",
    K.CXX_CONST_CAST_EXPR: "const",
}

_OPERATOR_NAMES = {
    "operator+", "operator-", "operator*", "operator/", "operator%", "operator^", "operator&",
    "operator|", "operator~", "operator!", "operator=", "operator<", "operator>", "operator+=",
    "operator-=", "operator*=", "operator/=", "operator%=", "operator^=", "operator&=",
    "operator|=", "operator<<", "operator>>", "operator>>=", "operator<<=", "operator==",
    "operator!=", "operator<=", "operator>=", "operator&&", "operator||", "operator++",
    "operator--", "operator[]", "operator()", "operator->", "operator,",
}


#: Deepest nesting of statements and expressions converted to IR.  The passes and the printer
#: recurse on the IR; at this depth every stage runs within ``transpiler.deep_stack``'s stack and in
#: reasonable time (a walk of a chain costs its length times its depth).
MAX_NESTING = 1000


def too_deeply_nested(cursor: ci.Cursor) -> CompileError:
    return CompileError([error(location(cursor), f"code nested too deeply: more than {MAX_NESTING} levels of "
                                                 "statements and expressions in device code")])


def symbol_id(cursor: ci.Cursor) -> int:
    """The symbol id of a declaration: unique in the translation unit (not ``cursor.hash``,
    32 bits that distinct declarations share)."""
    if not cursor.kind.is_declaration():
        raise ValueError(f"a symbol id asked of a {cursor.kind.name} cursor, not a declaration")
    return clang_ext.identity(cursor)


#: What glibc's assert() calls when its condition is false.
ASSERT_FAIL = "__assert_fail"
#: In device code it calls CUDA's device assert instead: ``ir.DEVICE_ASSERT_FAIL``.


def _is_c_library_clock(decl: ci.Cursor | None) -> bool:
    """Whether a call of ``clock`` names the C library's ``clock()`` (declared at file scope,
    defined nowhere in the program), not a function of the program's own."""
    if decl is None or decl.get_definition() is not None:
        return False
    return decl.semantic_parent is not None and decl.semantic_parent.kind in (K.TRANSLATION_UNIT, K.LINKAGE_SPEC)


def device_assert(args: tuple[ir.Expr, ...], loc: SourceLoc) -> ir.Call:
    """``__assert_fail(expression, file, line, function)`` in device code as CUDA's device assert."""
    where = tuple(ir.Builtin(var, dim, loc=loc) for var in ("blockIdx", "threadIdx") for dim in "xyz")
    return ir.Call(ir.DEVICE_ASSERT_FAIL, (*args, *where), loc=loc)


class Converter:
    """Turns device-code cursors into IR; keeps the symbol table of everything it declared."""

    def __init__(self) -> None:
        self.symbols: dict[int, ir.Symbol] = {}
        # typedef / using names declared in the function being converted, and the types they
        # name.  The declarations are not kept (the barrier lowering may split their scope), so
        # every type spelled with one is written with what it names instead.
        self.local_aliases: dict[str, str] = {}
        # Local constants (`constexpr int threads = BLOCK;`) and their values: a type spelled with
        # one (`Exchange<int, threads>`) is written with the value, since the declarations of
        # per-block and per-thread storage of that type stand before the constant's.
        self.local_constants: dict[str, str] = {}
        #: ``__shared__`` variables declared at namespace scope that converted code uses, by
        #: symbol: each is one variable per block, declared in the kernels that use it
        #: (``parallel-loops``, ``inline-device``) like a ``__shared__`` local.
        self.namespace_shared: dict[int, ir.VarDecl] = {}
        # `namespace cg = cooperative_groups;` declared in the function: likewise written out.
        self.namespace_aliases: dict[str, str] = {}
        self.depth = 0  # statements and expressions being converted, one inside the other
        # Types the kernel being converted defines (declared at the top of its translation), and
        # the function being converted.
        self.local_types: list[ir.LocalType] = []
        self.function: ci.Cursor | None = None
        #: The class of the member function being converted (``member_function``), else None.
        self.member_context: members.MemberContext | None = None
        #: Lambdas stored in local variables of the function being converted: the variable's
        #: symbol -> the lambda (see :meth:`lambda_declaration`).
        self.lambda_variables: dict[int, LocalLambda] = {}
        #: Every lambda's body as a function for ``inline-device`` to inline at each call, by the
        #: name its calls use (one per lambda and result type: a generic lambda's differ); and
        #: the function (kernel or ``__device__`` function) each was declared in.
        self.lambda_functions: dict[str, ir.DeviceFunction] = {}
        self.lambda_owners: dict[str, str] = {}
        self.lambda_keys: dict[str, tuple] = {}  # a lambda function's name -> (lambda, result type)
        # Symbols of the variables the converter makes (a lambda's captured copies): above every
        # declaration's address, which is the symbol of what clang declared.
        self.next_made_sym = 1 << 62
        self.conversions = 0  # function bodies converted (a body converted twice has its own lambdas)
        #: The USRs of the definitions of each overloaded ``__device__`` function of the unit, by
        #: name: calls of them name the overload they mean (``resolved_declaration``).
        self.overloaded_device_functions: dict[str, set[str]] = {}
        #: The ``wmma::load_matrix_sync``/``store_matrix_sync`` call being converted as a
        #: statement of its own (``wmma_call``), the only place where it may stand.
        self.wmma_statement_call: ci.Cursor | None = None
        #: The errors of the inline assembly of the function being converted, raised together
        #: at its end.
        self.inline_assembly_errors: list[Diagnostic] = []

    # ---------------------------------------------------------------------------- functions

    def kernel(self, cursor: ci.Cursor) -> ir.Kernel:
        params = self.params(cursor)
        body = self.function_body(cursor)
        specialization = specialization_arguments(cursor)
        return ir.Kernel(cursor.spelling, params, body,
                         template="template <>" if specialization else template_header(cursor),
                         qualifiers=_qualifiers(cursor), template_args=template_arguments(cursor),
                         specialization=specialization, local_types=tuple(self.local_types), loc=location(cursor))

    def member_function(self, cursor: ci.Cursor) -> ir.MemberFunction:
        """A member function of a class of the program, for inlining (``ir.MemberFunction``): a
        non-static one gets the first parameter ``self`` for ``this``."""
        loc = location(cursor)
        self_sym = symbol_id(cursor) + 1  # declarations' ids are addresses: never odd
        context = members.MemberContext.of(cursor, self_sym)
        self.member_context = context
        try:
            params = self.params(cursor)
            if not context.static:
                self_type = f"{context.text} *"
                self.symbols[self_sym] = ir.Symbol(self_sym, "self", self_type, "param", loc)
                params = (ir.Param(self_sym, "self", self_type, loc=loc),) + params
            params = tuple(replace(p, type=self.type_text(p.type)) for p in params)
            body = self.function_body(cursor)
            return_type = "void" if cursor.kind == K.CONSTRUCTOR else self.type_text(cursor.result_type.spelling)
            return ir.MemberFunction(cursor.spelling, return_type, params, body,
                                     template=members.member_header(cursor), class_text=context.text,
                                     class_template=members.class_header(context.cls), static=context.static,
                                     virtual=cursor.is_virtual_method(), loc=loc)
        finally:
            self.member_context = None

    def device_function(self, cursor: ci.Cursor) -> ir.DeviceFunction:
        specialization = specialization_arguments(cursor)
        return ir.DeviceFunction(cursor.spelling, cursor.result_type.spelling, self.params(cursor),
                                 self.function_body(cursor),
                                 template="template <>" if specialization else template_header(cursor),
                                 qualifiers=_qualifiers(cursor), specialization=specialization,
                                 host=any(c.kind == K.CUDAHOST_ATTR for c in cursor.get_children()),
                                 loc=location(cursor))

    def params(self, cursor: ci.Cursor) -> tuple[ir.Param, ...]:
        params = []
        for child in cursor.get_children():
            if child.kind != K.PARM_DECL:
                continue
            name = child.spelling
            if not name and self.member_context is not None:
                name = f"unnamed_{len(params)}"  # a tag (CUB's Int2Type<false>): never read
            if not name:
                raise unsupported(location(child), "an unnamed kernel parameter")
            sym = symbol_id(child)
            self.symbols[sym] = ir.Symbol(sym, name, child.type.spelling, "param", location(child))
            default = default_argument(child)
            params.append(ir.Param(sym, name, child.type.spelling, default,
                                   self.default_value(child) if default else None, loc=location(child)))
        return tuple(params)

    def default_value(self, param: ci.Cursor) -> ir.Expr | None:
        """A parameter's default argument as IR (the last expression among its children), or
        None where the converter cannot represent it: only inlining a call that leaves the
        argument out needs it, and says so where it does."""
        found = [c for c in param.get_children() if c.kind.is_expression() or c.kind == K.UNEXPOSED_EXPR]
        if not found:
            return None
        try:
            return self.expr(found[-1])
        except CompileError:
            return None

    def function_body(self, cursor: ci.Cursor) -> ir.Block:
        self.local_aliases = {}
        self.local_constants = {}
        self.namespace_aliases = {}
        self.local_types = []
        self.function = cursor
        self.lambda_variables = {}
        self.conversions += 1
        self.inline_assembly_errors = []
        for child in cursor.get_children():
            if child.kind == K.COMPOUND_STMT:
                body = self.block(child)
                if self.inline_assembly_errors:
                    raise CompileError(list(self.inline_assembly_errors))
                for n in body.walk():
                    if isinstance(n, ir.Name) and n.sym in self.lambda_variables:
                        raise unsupported(n.loc, f"a use of the lambda '{n.name}' other than a call (device code "
                                                 "calls a lambda where it is declared: it is inlined there)")
                return body
        raise CompileError([error(location(cursor), f"'{cursor.spelling}' has no body")])

    def type_text(self, spelling: str, constants: bool = True) -> str:
        """``spelling`` with the function's local typedef/using names replaced by their types
        (whole identifiers only, not members or qualified names such as ``Traits::real``), and
        its local constants by their values (unless ``constants`` is false)."""
        for alias, namespace in self.namespace_aliases.items():
            spelling = re.sub(r"(?<![\w:.>])" + re.escape(alias) + r"(?=\s*::)", namespace, spelling)
        if self.member_context is not None:
            spelling = self.member_context.qualify_types(spelling)
        if constants:
            spelling = self.constants_text(spelling)
        if not self.local_aliases:
            return spelling
        pattern = r"(?<![\w:.>])(" + "|".join(map(re.escape, self.local_aliases)) + r")\b"
        return re.sub(pattern, lambda m: self.local_aliases[m.group(1)], spelling)

    def constants_text(self, spelling: str) -> str:
        """``spelling`` with the function's local constants written as their values."""
        if not self.local_constants:
            return spelling
        pattern = r"(?<![\w:.>])(" + "|".join(map(re.escape, self.local_constants)) + r")\b(?!\s*(::|\())"
        return re.sub(pattern, lambda m: self.local_constants[m.group(1)], spelling)

    # ---------------------------------------------------------------------------- statements

    def block(self, cursor: ci.Cursor) -> ir.Block:
        stmts: list[ir.Stmt] = []
        for child in cursor.get_children():
            stmts.extend(self.stmts(child))
        return ir.Block(tuple(stmts), loc=location(cursor))

    def stmt(self, cursor: ci.Cursor) -> ir.Stmt:
        """One statement; a declaration of several variables becomes a Block without braces
        semantics only where a single statement is required (an if/for body)."""
        result = self.stmts(cursor)
        if len(result) == 1:
            return result[0]
        return ir.Block(tuple(result), loc=location(cursor))

    def stmts(self, cursor: ci.Cursor) -> list[ir.Stmt]:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise too_deeply_nested(cursor)
            return self._stmts(cursor)
        finally:
            self.depth -= 1

    def _stmts(self, cursor: ci.Cursor) -> list[ir.Stmt]:
        kind = cursor.kind
        loc = location(cursor)
        if kind == K.COMPOUND_STMT:
            return [self.block(cursor)]
        if kind == K.DECL_STMT:
            decls = []
            for child in cursor.get_children():
                if child.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL):
                    self.local_aliases[child.spelling] = self.type_text(child.underlying_typedef_type.spelling)
                elif child.kind == K.NAMESPACE_ALIAS:
                    self.namespace_aliases[child.spelling] = self.namespace_alias_target(child)
                elif child.kind == K.STATIC_ASSERT:
                    decls.append(self.static_assert(child))
                elif child.kind in (K.STRUCT_DECL, K.CLASS_DECL, K.UNION_DECL, K.ENUM_DECL):
                    self.local_types.append(self.local_type(child))
                elif child.kind == K.VAR_DECL and _lambda_initializer(child) is not None:
                    decls.extend(self.lambda_declaration(child, _lambda_initializer(child)))
                elif child.kind != K.TYPE_REF:
                    decls.append(self.var_decl(child))
            return decls
        if kind == K.NULL_STMT:
            return [ir.Empty(loc=loc)]
        if kind == K.IF_STMT:
            return [self.if_stmt(cursor)]
        if kind == K.FOR_STMT:
            return [self.for_stmt(cursor)]
        if kind == K.WHILE_STMT:
            children = list(cursor.get_children())
            if len(children) == 3 and children[0].kind == K.VAR_DECL:
                # while (T v = e) body: each iteration declares v and leaves the loop when v
                # converts to false (a continue in the body declares it again, as C++ does).
                decl, cond, body = children
                leave = ir.If(ir.Unary("!", self.expr(cond), loc=loc), ir.Break(loc=loc), loc=loc)
                return [ir.While(ir.Literal("true", loc=loc),
                                 ir.Block((self.var_decl(decl), leave, self.stmt(body)), loc=loc), loc=loc)]
            if len(children) != 2:
                raise unsupported(loc, "this form of while statement")
            return [ir.While(self.expr(children[0]), self.stmt(children[1]), loc=loc)]
        if kind == K.DO_STMT:
            body, cond = list(cursor.get_children())
            return [ir.DoWhile(self.stmt(body), self.expr(cond), loc=loc)]
        if kind == K.RETURN_STMT:
            children = list(cursor.get_children())
            return [ir.Return(self.expr(children[0]) if children else None, loc=loc)]
        if kind == K.BREAK_STMT:
            return [ir.Break(loc=loc)]
        if kind == K.CONTINUE_STMT:
            return [ir.Continue(loc=loc)]
        if kind == K.SWITCH_STMT:
            children = list(cursor.get_children())
            if len(children) != 2:
                raise unsupported(loc, "a switch with an initializer or declaration")
            return [ir.Switch(self.expr(children[0]), self.stmt(children[1]), loc=loc)]
        if kind == K.CASE_STMT:
            value, body = list(cursor.get_children())
            return [ir.Case(self.expr(value), self.stmt(body), loc=loc)]
        if kind == K.DEFAULT_STMT:
            (body,) = list(cursor.get_children())
            return [ir.Case(None, self.stmt(body), loc=loc)]
        if kind == K.GOTO_STMT:
            # Kept as written; pass fiber-lowering gives kernels with jumps the fallback lowering.
            (target,) = list(cursor.get_children())
            return [ir.Goto(target.spelling, loc=loc)]
        if kind == K.LABEL_STMT:
            return [ir.Label(cursor.spelling, loc=loc)] + [s for c in cursor.get_children() for s in self.stmts(c)]
        if kind == K.INDIRECT_GOTO_STMT:
            raise unsupported(loc, "a computed goto in device code")
        if kind in (K.ASM_STMT, K.MS_ASM_STMT):
            # Inline PTX (cuda_front/inline_ptx.py); what it cannot translate is reported with
            # the rest of the function's inline assembly, every instruction of it.
            try:
                return [inline_ptx.translate(self, cursor)]
            except CompileError as e:
                self.inline_assembly_errors.extend(e.diagnostics)
                return [ir.Empty(loc=loc)]
        if kind == K.UNEXPOSED_STMT and _is_loop_hint(cursor):
            # `#pragma unroll [n]` before a loop: a hint, dropped (g++ unrolls on its own).
            return self.stmts(list(cursor.get_children())[-1])
        if kind.is_expression() or kind == K.UNEXPOSED_EXPR:
            if _is_barrier_call(cursor):
                return [ir.Barrier(loc=loc)]
            barrier_wait = warp_front.barrier_wait_statement(cursor)
            if barrier_wait is not None:
                return [barrier_wait]
            group_sync = warp_front.group_sync_statement(self, cursor)
            if group_sync is not None:
                return [group_sync]
            wmma_memory = warp_front.wmma_memory_statement(self, cursor)
            if wmma_memory is not None:
                return wmma_memory
            choice = _void_conditional(cursor)
            if choice is not None:
                # `c ? __syncthreads() : __syncwarp();` is `if (c) ...; else ...;`: as an if, each
                # arm may be a barrier or a warp-level synchronization.
                cond, then, other = choice.get_children()
                constant = _constant_truth(cond)
                if constant is not None:
                    # `(Z > WARP) ? __syncthreads() : __syncwarp();` with a constant condition is
                    # the arm it chooses: the other is never run, and holds no barrier.
                    return [self.stmt(then if constant else other)]
                return [ir.If(self.expr(cond), self.stmt(then), self.stmt(other), loc=loc)]
            expr = self.expr(cursor)
            return [ir.ExprStmt(expr, loc=loc)]
        raise unsupported(loc, f"the statement kind {kind.name.lower()} in device code")

    def wmma_call(self, cursor: ci.Cursor) -> ir.Expr:
        """The call of a ``wmma::load_matrix_sync``/``store_matrix_sync`` statement, which
        ``warp_front.wmma_memory_statement`` puts between syncs of the warp."""
        call = cursor
        while call.kind == K.UNEXPOSED_EXPR and len(list(call.get_children())) == 1:
            call = list(call.get_children())[0]
        self.wmma_statement_call = call
        try:
            return self.expr(cursor)
        finally:
            self.wmma_statement_call = None

    def var_decl(self, cursor: ci.Cursor) -> ir.VarDecl:
        loc = location(cursor)
        if cursor.kind != K.VAR_DECL:
            raise unsupported(loc, f"a local {cursor.kind.name.lower()} declaration in device code")
        attrs = {c.kind for c in cursor.get_children()}
        storage = "auto"
        if K.CUDASHARED_ATTR in attrs:
            extern = cursor.storage_class == ci.StorageClass.EXTERN
            storage = "shared_dynamic" if extern else "shared"
        elif cursor.storage_class == ci.StorageClass.STATIC:
            raise unsupported(loc, "a static local variable in device code")
        elif K.CUDACONSTANT_ATTR in attrs or K.CUDADEVICE_ATTR in attrs:
            raise unsupported(loc, "a __device__ or __constant__ variable declared inside a function")
        init_cursor = clang_ext.var_decl_initializer(cursor)
        if init_cursor is not None and storage != "auto" and _implicit_default_construction(init_cursor):
            init_cursor = None  # `__shared__ float4 a[N];`: clang shows the implicit constructor call
        if init_cursor is not None and _unwritten_default_construction(init_cursor, cursor):
            # `__half a[4];` or `S s;`: default-initialized as written (an explicit `= T[4]()` is
            # not C++, and `= S()` would value-initialize what the source leaves alone).
            init_cursor = None
        init = None
        type_spelling = self.type_text(cursor.type.spelling)
        if init_cursor is not None:
            if storage != "auto":
                raise unsupported(loc, "an initializer on a __shared__ variable")
            if _is_parenthesized_list(init_cursor):
                # `Stack<T, N> s(buf, t);` on a dependent type: clang keeps the arguments as a list
                # (ParenListExpr) until instantiation; it is a construction of the declared type.
                args = tuple(self.expr(c) for c in init_cursor.get_children())
                init = ir.Construct(type_spelling, args, loc=location(init_cursor))
            else:
                init = self.expr(init_cursor)
        sym = symbol_id(cursor)
        kind = "shared" if storage.startswith("shared") else "local"
        canonical = cursor.type.get_canonical().spelling
        if re.sub(r"^(const |volatile )+", "", canonical).startswith(("cooperative_groups::", "cuda::")) \
                and "::" not in type_spelling:
            # `[const] auto tile = cg::tiled_partition<16>(...)`, `auto token = bar.arrive()` (a
            # cuda::barrier's): the deduced type, spelled unqualified
            type_spelling = canonical
        if type_spelling.startswith("auto") and init is None:
            raise unsupported(loc, "an 'auto' declaration without an initializer")
        self.symbols[sym] = ir.Symbol(sym, cursor.spelling, type_spelling, kind, loc)
        if init_cursor is not None and storage == "auto" and _is_local_constant(cursor):
            written = clang_ext.written_tokens(cursor) or []  # (the initializer may start in a macro)
            equals = next((i for i, t in enumerate(written) if t.spelling == "="), None)
            value = written[equals + 1:] if equals is not None else None
            if value:
                self.local_constants[cursor.spelling] = f"({self.type_text(tokens_text(value))})"
        return ir.VarDecl(sym, cursor.spelling, type_spelling, init, storage, loc=loc,
                          constexpr=init is not None and _declared_constexpr(cursor))

    def lambda_declaration(self, var: ci.Cursor, lam: ci.Cursor) -> list[ir.Stmt]:
        """``auto f = [captures](params) { body };``: the lambda is inlined where it is called
        (``inline-device``), so the declaration keeps only what the closure holds: a copy of each
        variable captured by value, taken here as the closure takes it (``const`` unless the
        lambda is ``mutable``); the body reads the copy, and the variables captured by reference
        themselves."""
        loc = location(var)
        tokens = clang_ext.written_tokens(lam)
        if tokens is None:
            raise unsupported(loc, "a lambda spelled by a macro in device code")
        spelled = [t.spelling for t in tokens]
        close = _matching(spelled, 0)
        items = [" ".join(item) for item in _split_commas(spelled[1:close])]
        default = next((i for i in items if i in ("&", "=")), None)
        by_value, by_reference = set(), set()
        for item in items:
            if item in ("&", "="):
                continue
            if item in ("this", "* this") or "=" in item or "..." in item:
                raise unsupported(loc, f"the capture '{item}' of a lambda in device code (capture variables, by "
                                       "value or by reference)")
            (by_reference if item.startswith("&") else by_value).add(item.lstrip("& "))
        mutable = "mutable" in spelled[close:spelled.index("{") if "{" in spelled else len(spelled)]
        body_cursor = next((c for c in lam.get_children() if c.kind == K.COMPOUND_STMT), None)
        if body_cursor is None:
            raise unsupported(loc, "this lambda")
        params = []
        for child in lam.get_children():
            if child.kind == K.PARM_DECL:
                if not child.spelling:
                    raise unsupported(location(child), "an unnamed parameter of a lambda in device code")
                sym = symbol_id(child)
                self.symbols[sym] = ir.Symbol(sym, child.spelling, self.type_text(child.type.spelling), "param",
                                              location(child))
                params.append(ir.Param(sym, child.spelling, self.type_text(child.type.spelling), loc=location(child)))
        captured = _captured_variables(lam, body_cursor)
        shadowed = self.names_declared_twice()
        copies: list[ir.Stmt] = []
        renamed: dict[int, ir.Expr] = {}
        for ref in captured:
            name = ref.spelling
            value = name in by_value or (name not in by_reference and default == "=")
            if not value:
                if name in shadowed:
                    raise unsupported(loc, f"a lambda that captures '{name}' by reference where another variable "
                                           f"of the function is named '{name}' too (rename one)")
                continue
            type_ = ref.type.get_canonical()
            if type_.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY):
                raise unsupported(loc, f"a lambda in device code that captures the array '{name}' by value")
            spelling = self.type_text(ref.type.spelling).rstrip("&").strip()
            copy_name = self.fresh_local_name(f"{var.spelling}_{name}")
            copy_type = spelling if mutable or spelling.startswith("const ") else f"const {spelling}"
            copy_sym = self.next_made_sym
            self.next_made_sym += 1
            self.symbols[copy_sym] = ir.Symbol(copy_sym, copy_name, copy_type, "local", loc)
            original = ir.Name(name, symbol_id(ref), loc=loc)
            copies.append(ir.VarDecl(copy_sym, copy_name, copy_type, original, loc=loc))
            renamed[symbol_id(ref)] = ir.Name(copy_name, copy_sym, loc=loc)
        body = _substituted_block(self.block(body_cursor), renamed)
        sym = symbol_id(var)
        self.lambda_variables[sym] = LocalLambda(var.spelling, tuple(params), body, loc)
        self.symbols[sym] = ir.Symbol(sym, var.spelling, "auto", "local", loc)
        return copies

    def lambda_call(self, lam: LocalLambda, cursor: ci.Cursor, args: tuple[ir.Expr, ...], loc: SourceLoc) -> ir.Call:
        """A call of a local lambda: a call of its body as a function that ``inline-device``
        inlines here.  The result's type is the call's (a generic lambda's calls may differ)."""
        result = self.type_text(cursor.type.spelling)
        if "&" in result or "dependent" in result:
            raise unsupported(loc, f"a call of the lambda '{lam.name}' whose result is a reference or depends on a "
                                   "template parameter (give the lambda a return type: -> T)")
        result = re.sub(r"^(const |volatile )+", "", result)
        key = (lam.name, lam.loc, result, self.conversions)
        name = next((n for n, k in self.lambda_keys.items() if k == key), None)
        if name is None:
            name = f"{lam.name}__lambda{len(self.lambda_functions) + 1}"
            self.lambda_keys[name] = key
            self.lambda_functions[name] = ir.DeviceFunction(lam.name, result, lam.params, lam.body, loc=lam.loc)
            self.lambda_owners[name] = self.function.spelling if self.function is not None else ""
        return ir.Call(name, args, loc=loc)

    def names_declared_twice(self) -> set[str]:
        """Names that two variables or parameters of the function being converted have."""
        seen: dict[str, int] = {}
        for n in self.function.walk_preorder() if self.function is not None else ():
            if n.kind in (K.VAR_DECL, K.PARM_DECL) and n.spelling:
                seen[n.spelling] = seen.get(n.spelling, 0) + 1
        return {name for name, count in seen.items() if count > 1}

    def fresh_local_name(self, base: str) -> str:
        """``base``, or ``base_N``: a name no declaration or reference of the function spells."""
        taken = {n.spelling for n in self.function.walk_preorder()} if self.function is not None else set()
        taken |= {s.name for s in self.symbols.values()}
        name, n = base, 1
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        return name

    def local_type(self, cursor: ci.Cursor) -> ir.LocalType:
        """A type defined in a kernel's body, kept as written for the top of the translation
        (:class:`ir.LocalType`); one that names what the kernel declares before it could not
        move there, nor can a type of a ``__device__`` function (which may be inlined)."""
        loc = location(cursor)
        what = f"a local {cursor.kind.name.lower().replace('_decl', '')} definition"
        if self.function is None or not _is_kernel(self.function):
            raise unsupported(loc, f"{what} in a __device__ function (define it outside the function)")
        tokens = clang_ext.written_tokens(cursor)
        if tokens is None or not cursor.spelling or cursor.is_anonymous():
            raise unsupported(loc, f"{what} that is unnamed or spelled by a macro")
        for n in cursor.walk_preorder():
            ref = n.referenced if n.kind in (K.DECL_REF_EXPR, K.TYPE_REF, K.TEMPLATE_REF) else None
            if ref is not None and ref.semantic_parent is not None and ref.semantic_parent == self.function \
                    and ref.kind not in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER):
                raise unsupported(location(n), f"{what} that uses the kernel's local '{ref.spelling}' "
                                               "(define the type outside the kernel)")
        return ir.LocalType(tokens_text(tokens) + ";", loc=loc)

    def namespace_alias_target(self, cursor: ci.Cursor) -> str:
        """The namespace a local ``namespace a = b::c;`` names, fully qualified."""
        refs = [c.referenced for c in cursor.get_children() if c.kind == K.NAMESPACE_REF]
        if not refs or refs[-1] is None:
            raise unsupported(location(cursor), "this local namespace alias")
        names, scope = [], refs[-1]
        while scope is not None and scope.kind == K.NAMESPACE:
            names.append(scope.spelling)
            scope = scope.semantic_parent
        return "::".join(reversed(names))

    def static_assert(self, cursor: ci.Cursor) -> ir.ExprStmt:
        """A local ``static_assert(c, "why")``, kept: it prints as the call it looks like (and
        checks at g++'s compile time what nvcc's would)."""
        args = tuple(self.expr(c) for c in cursor.get_children())
        return ir.ExprStmt(ir.Call("static_assert", args, loc=location(cursor)), loc=location(cursor))

    def if_stmt(self, cursor: ci.Cursor) -> ir.If | ir.Block:
        loc = location(cursor)
        children = list(cursor.get_children())
        tokens = [t.spelling for t, _ in zip(cursor.get_tokens(), range(2))]
        constexpr = tokens == ["if", "constexpr"]
        declared = 0
        while declared < len(children) and children[declared].kind in (K.VAR_DECL, K.DECL_STMT):
            declared += 1
        if declared and len(children) - declared in (2, 3):
            # if (T v = e) a else b, if (init; cond) a, if (init; T v = e) a: the declarations in a
            # block of their own around the if, in order.
            decls: list[ir.Stmt] = []
            # (libclang gives the condition's variable before the initializer statement.)
            for c in sorted(children[:declared], key=lambda c: c.extent.start.offset):
                decls.extend(self.stmts(c) if c.kind == K.DECL_STMT else [self.var_decl(c)])
            cond, *branches = children[declared:]
            inner = ir.If(self.expr(cond), *(self.stmt(b) for b in branches), loc=loc, constexpr=constexpr)
            return ir.Block((*decls, inner), loc=loc)
        if declared or _if_has_initializer(cursor):
            raise unsupported(loc, "an if whose initializer statement is an expression (write it before the if)")
        if len(children) == 2:
            return ir.If(self.expr(children[0]), self.stmt(children[1]), loc=loc, constexpr=constexpr)
        if len(children) == 3:
            return ir.If(self.expr(children[0]), self.stmt(children[1]), self.stmt(children[2]), loc=loc,
                         constexpr=constexpr)
        raise unsupported(loc, "this form of if statement")

    def for_stmt(self, cursor: ci.Cursor) -> ir.For:
        """libclang omits absent for-header parts, so place the children by the header's ';'."""
        loc = location(cursor)
        children = list(cursor.get_children())
        body = children[-1]
        header = children[:-1]
        if clang_ext.expanded_from_macro(cursor):
            return self.macro_for_stmt(cursor, header, body)
        semis = _for_header_semicolons(cursor)
        if semis is None:
            raise unsupported(loc, "a range-based for loop in device code")
        first_semi, second_semi = semis
        init = cond = step = None
        for part in header:
            start = part.extent.start.offset
            if clang_ext.from_macro(part):
                start = clang_ext.spelling_offset(part.extent.start)
            if start < first_semi:
                init = self.stmt(part) if part.kind == K.DECL_STMT else ir.ExprStmt(self.expr(part), loc=location(part))
            elif start < second_semi:
                if part.kind == K.VAR_DECL:
                    raise unsupported(location(part), "a declaration in a for condition")
                cond = self.expr(part)
            else:
                step = self.expr(part)
        return ir.For(init, cond, step, self.stmt(body), loc=loc)

    def macro_for_stmt(self, cursor: ci.Cursor, header: list[ci.Cursor], body: ci.Cursor) -> ir.For:
        """A ``for`` written by a macro (``#define GRID_LOOP(i, n) for (int i = ...; i < n; ...)``).

        Its tokens are not readable where it stands, so the header parts are placed by count:
        libclang lists only the parts present, which is unambiguous when all three or none are."""
        loc = location(cursor)
        if any(part.kind == K.VAR_DECL for part in header):
            raise unsupported(loc, "a declaration in a for condition")
        if len(header) == 0:
            return ir.For(None, None, None, self.stmt(body), loc=loc)
        if len(header) != 3:
            raise unsupported(loc, "a for loop spelled by a macro with an empty header part "
                                   "(write all three parts, or the loop outside the macro)")
        first, cond, step = header
        init = self.stmt(first) if first.kind == K.DECL_STMT else ir.ExprStmt(self.expr(first), loc=location(first))
        return ir.For(init, self.expr(cond), self.expr(step), self.stmt(body), loc=loc)

    # ---------------------------------------------------------------------------- expressions

    def expr(self, cursor: ci.Cursor) -> ir.Expr:
        result = self.expr_or_none(cursor)
        if result is None:
            raise unsupported(location(cursor), "an implicit expression in this position")
        return result

    def expr_or_none(self, cursor: ci.Cursor) -> ir.Expr | None:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise too_deeply_nested(cursor)
            return self._expr_or_none(cursor)
        finally:
            self.depth -= 1

    def _expr_or_none(self, cursor: ci.Cursor) -> ir.Expr | None:
        kind = cursor.kind
        loc = location(cursor)
        children = list(cursor.get_children())
        if kind == K.UNEXPOSED_EXPR:
            return self.unexposed(cursor, children)
        if kind == K.PAREN_EXPR:
            return self.expr(children[0])
        if kind == K.DECL_REF_EXPR:
            return self.decl_ref(cursor)
        if kind == K.OVERLOADED_DECL_REF:
            return ir.Name(cursor.spelling, 0, loc=loc)
        if kind == K.MEMBER_REF_EXPR:
            return self.member(cursor, children)
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            return ir.Index(self.expr(children[0]), self.expr(children[1]), loc=loc)
        if kind == K.CALL_EXPR:
            return self.call(cursor, children)
        if kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL, K.STRING_LITERAL):
            return ir.Literal(self.literal_text(cursor), loc=loc)
        if kind == K.CXX_BOOL_LITERAL_EXPR:
            value = clang_ext.evaluate(cursor)
            return ir.Literal("true" if value else "false", loc=loc)
        if kind == K.CXX_NULL_PTR_LITERAL_EXPR:
            return ir.Literal("nullptr", loc=loc)
        if kind == K.GNU_NULL_EXPR:
            return ir.Literal("NULL", loc=loc)
        if kind == K.UNARY_OPERATOR:
            op = clang_ext.unary_operator(cursor)
            if op.startswith("post"):
                return ir.Unary(op[4:], self.expr(children[0]), postfix=True, loc=loc)
            if op == "__extension__":  # only silences pedantic warnings (glibc's assert)
                return self.expr(children[0])
            if op not in ("+", "-", "!", "~", "*", "&", "++", "--"):
                raise unsupported(loc, f"the unary operator '{op}'")
            return ir.Unary(op, self.expr(children[0]), loc=loc)
        if kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            op = clang_ext.binary_operator(cursor)
            lhs, rhs = self.expr(children[0]), self.expr(children[1])
            if op in (".*", "->*"):
                raise unsupported(loc, f"the pointer-to-member operator '{op}'")
            if op.endswith("=") and op not in ("==", "!=", "<=", ">="):
                return ir.Assign(op, lhs, rhs, loc=loc)
            return ir.Binary(op, lhs, rhs, loc=loc)
        if kind == K.CONDITIONAL_OPERATOR:
            c, t, e = (self.expr(ch) for ch in children)
            return ir.Conditional(c, t, e, loc=loc)
        if kind in _CAST_STYLES:
            operand = [c for c in children if c.kind != K.TYPE_REF and c.kind != K.TEMPLATE_REF]
            return ir.Cast(self.type_text(cursor.type.spelling), self.expr(operand[-1]), _CAST_STYLES[kind], loc=loc)
        if kind == K.CXX_FUNCTIONAL_CAST_EXPR:
            return self.functional_cast(cursor, children)
        if kind == K.INIT_LIST_EXPR:
            return ir.InitList(tuple(self.expr(c) for c in children), loc=loc)
        if kind == K.COMPOUND_LITERAL_EXPR:
            return self.compound_literal(cursor, children)
        if kind == K.CXX_UNARY_EXPR:
            return self.sizeof(cursor, children)
        if kind == K.LAMBDA_EXPR:
            raise unsupported(loc, "a lambda in device code other than one stored in a local variable "
                                   "(auto f = [...](...) {...};) and called")
        if kind == K.CXX_NEW_EXPR:
            return self.placement_new(cursor, children)
        if kind == K.CXX_DELETE_EXPR:
            raise unsupported(loc, "delete in device code (device-side heap allocation)")
        if kind == K.CXX_THIS_EXPR:
            if self.member_context is None:
                raise unsupported(loc, "'this' in device code")
            return self.member_context.self_name(loc)
        if kind == K.CXX_THROW_EXPR:
            raise unsupported(loc, "throw in device code")
        if kind == K.StmtExpr:
            return self.statement_expression(cursor, children)
        if kind == K.SIZE_OF_PACK_EXPR:
            # sizeof...(Pack): the pack's name is the identifier in the parentheses.
            written = clang_ext.written_tokens(cursor)
            if written is None or [t.spelling for t in written[:3]] != ["sizeof", "...", "("] or len(written) != 5:
                raise unsupported(loc, "sizeof...(pack) spelled by a macro")
            return ir.SizeOf("sizeof...", type=written[3].spelling, loc=loc)
        if kind == K.PACK_EXPANSION_EXPR:
            # f(args...) in a variadic template: the pattern followed by '...', as a postfix operator.
            (pattern,) = [c for c in children if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
            return ir.Unary("...", self.expr(pattern), postfix=True, loc=loc)
        raise unsupported(loc, f"the expression kind {kind.name.lower()} in device code")

    def unexposed(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr | None:
        """Implicit conversions and other wrappers clang does not expose: see through them."""
        exprs = [c for c in children if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if not children:
            # A defaulted argument or an implicit value: nothing was written in the source.
            if cursor.extent.start.line == 0 or cursor.extent.start.offset == cursor.extent.end.offset:
                return None
            tokens = clang_ext.written_tokens(cursor)
            if tokens is None:
                raise unsupported(location(cursor), "this implicit expression inside a macro")
            text = tokens_text(tokens)
            if text:
                return ir.Name(text, 0, loc=location(cursor))
            return None
        if len(exprs) == 1 and len(children) == 1:
            return self.expr_or_none(exprs[0])
        if any(c.kind == K.TYPE_REF for c in children) and len(exprs) <= 1:
            # T(x) on a dependent type inside a template (CXXUnresolvedConstructExpr).
            type_text = self.type_text(_type_ref_text(cursor))
            args = tuple(self.expr(c) for c in exprs)
            if type_text:
                return ir.Construct(type_text, args, loc=location(cursor))
        if len(exprs) == 1:
            return self.expr_or_none(exprs[0])
        raise unsupported(location(cursor), "this implicit expression")

    def decl_ref(self, cursor: ci.Cursor) -> ir.Expr:
        loc = location(cursor)
        name = cursor.spelling
        if name in BUILTIN_VARS and is_builtin_decl(cursor.referenced):
            return ir.BuiltinVector(name, loc=loc)
        if name == "warpSize" and is_builtin_decl(cursor.referenced):
            return ir.Builtin("warpSize", "", loc=loc)
        ref = cursor.referenced
        sym = 0
        if ref is not None and is_namespace_shared(ref):
            return ir.Name(ref.spelling, self.namespace_shared_decl(ref).sym, loc=loc)
        if ref is not None and ref.kind.is_declaration():  # not an overload set still to resolve (in templates)
            sym = symbol_id(ref)
            if sym not in self.symbols:
                self.symbols[sym] = ir.Symbol(sym, name, ref.type.spelling, _global_kind(ref), location(ref))
        written = self.type_text(_qualified_name(cursor), constants=False)
        context = self.member_context
        if context is not None and "::" not in written and ref is not None \
                and ref.kind in (K.VAR_DECL, K.ENUM_CONSTANT_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE) and context.owns(ref):
            # A static member or an enumerator of the class, spelled through it (inlined, the
            # code is no longer in the class's scope).
            written = f"{context.text}::{written}"
        return ir.Name(written, sym, loc=loc)

    def namespace_shared_decl(self, ref: ci.Cursor) -> ir.VarDecl:
        """The per-block declaration that stands for the namespace-scope ``__shared__`` variable
        ``ref``, under its unqualified name, with its type spelled in full (the kernel may be in
        another namespace)."""
        sym = symbol_id(ref)
        if sym not in self.namespace_shared:
            extern = ref.storage_class == ci.StorageClass.EXTERN
            if clang_ext.var_decl_initializer(ref) is not None and not extern:
                init = clang_ext.var_decl_initializer(ref)
                if not _implicit_default_construction(init):
                    raise unsupported(location(ref), "an initializer on a __shared__ variable")
            type_spelling = ref.type.get_canonical().spelling
            self.symbols[sym] = ir.Symbol(sym, ref.spelling, type_spelling, "shared", location(ref))
            self.namespace_shared[sym] = ir.VarDecl(sym, ref.spelling, type_spelling, None,
                                                    "shared_dynamic" if extern else "shared", loc=location(ref))
        return self.namespace_shared[sym]

    def member(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        loc = location(cursor)
        bases = [c for c in children if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if not bases and self.member_context is not None:
            name = cursor.spelling or tokens_text(clang_ext.written_tokens(cursor) or [])
            return ir.Member(self.member_context.self_name(loc), name, True, loc=loc)
        if not bases:
            raise unsupported(loc, "an implicit member access (this->member) in device code")
        base_cursor = bases[0]
        base = self.expr(base_cursor)
        if isinstance(base, ir.BuiltinVector):
            if cursor.spelling not in ("x", "y", "z"):
                raise unsupported(loc, f"the member '{cursor.spelling}' of {base.var}")
            return ir.Builtin(base.var, cursor.spelling, loc=loc)
        name = cursor.spelling or _dependent_member_name(cursor, base_cursor)
        return ir.Member(base, name, _is_arrow(cursor, base_cursor), loc=loc)

    def call(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        loc = location(cursor)
        name = cursor.spelling
        ref = cursor.referenced
        if name in UNSUPPORTED_CALLS:
            raise unsupported(loc, UNSUPPORTED_CALLS[name])
        if name in BARRIER_FUNCTIONS:
            raise unsupported(loc, "__syncthreads() used as a value")
        if (self.wmma_statement_call is None or cursor != self.wmma_statement_call) \
                and warp_front.wmma_memory_call(cursor):
            raise unsupported(loc, f"wmma::{name} inside an expression (write it as a statement of its own)")
        if any(c.kind == K.CALL_EXPR and c.spelling == LAUNCH_CONFIGURATION for c in children):
            # k<<<...>>>(...) in device code: the configuration is a child, not an argument.
            raise unsupported(loc, UNSUPPORTED_CALLS[LAUNCH_CONFIGURATION])
        operator = None if name else _unresolved_operator(children)
        if operator is not None:
            # An operator on operands of dependent type, with overloads in scope (in templates).
            operands = list(cursor.get_arguments())
            name = operator.spelling
            if name in ("operator++", "operator--") and len(operands) == 1 \
                    and operator.extent.start.offset > operands[0].extent.start.offset:
                return ir.Unary(name[len("operator"):], self.expr(operands[0]), postfix=True, loc=loc)
            return _operator_call(name, tuple(self.expr(c) for c in operands), loc)
        construct = None if name else self.builtin_type_construct(cursor, children)
        if construct is not None:
            return construct
        collective = warp_front.collective(self, cursor, children)
        if collective is not None:
            return collective
        arg_cursors = list(cursor.get_arguments())
        args = tuple(a for a in (self.expr_or_none(c) for c in arg_cursors) if a is not None)
        if ref is not None and ref.kind == K.CONSTRUCTOR:
            return self.constructor_call(cursor, args, loc)
        if name == "operator()" and args and isinstance(args[0], ir.Name) and args[0].sym in self.lambda_variables:
            return self.lambda_call(self.lambda_variables[args[0].sym], cursor, args[1:], loc)
        if name in _OPERATOR_NAMES:
            return _operator_call(name, args, loc)
        callee_cursors = children[: len(children) - len(arg_cursors)]
        if not callee_cursors:
            return ir.Call(name, args, loc=loc)
        callee_cursor = callee_cursors[0]
        if callee_cursor.kind == K.TEMPLATE_REF and callee_cursor.referenced is not None \
                and callee_cursor.referenced.kind in (K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION) \
                and not clang_ext.from_macro(cursor):
            # C<T>(args) on a dependent class template (SharedMemory<T>()): a construction of the
            # type written before the parentheses.
            tokens = list(cursor.get_tokens())
            depth, paren = 0, None
            for i, tok in enumerate(tokens):
                depth += {"<": 1, ">": -1, ">>": -2}.get(tok.spelling, 0)
                if tok.spelling == "(" and depth == 0:
                    paren = i
                    break
            if paren is not None:
                # The operands are the children after the parenthesis: those before it are
                # template arguments (C<T, N>(x) lists N too).
                opening = tokens[paren].extent.start.offset
                operands = args or tuple(self.expr(c) for c in children[1:]
                                         if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)
                                         and c.extent.start.offset > opening)
                return ir.Construct(self.type_text(tokens_text(tokens[:paren])), operands, loc=loc)
        if callee_cursor.kind == K.TYPE_REF:
            # T(x) on a dependent type inside a template: a construction (or a conversion).
            # libclang lists its operands as children, not as call arguments.
            operands = args or tuple(self.expr(c) for c in children[1:]
                                     if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF))
            return ir.Construct(self.type_text(callee_cursor.spelling), operands, loc=loc)
        member_call = self.member_call(cursor, callee_cursor, args)
        if member_call is not None:
            return member_call
        callee = self.expr(callee_cursor)
        if isinstance(callee, ir.Name):
            if callee.name in UNSUPPORTED_CALLS:
                raise unsupported(loc, UNSUPPORTED_CALLS[callee.name])
            if callee.name in BARRIER_FUNCTIONS:
                raise unsupported(loc, "__syncthreads() used as a value")
            if callee.name == ASSERT_FAIL:
                return device_assert(args, loc)
            if callee.name == "clock" and not args and _is_c_library_clock(callee_cursor.referenced):
                return ir.Call(ir.DEVICE_CLOCK, (), loc=loc)
            # Template arguments that name local constants (`block_sum<NUM_WARPS>(...)`) are written
            # with their values: an inlined function's body uses them where they are not declared.
            func = self.constants_text(callee.name) if "<" in callee.name else callee.name
            name = ir.callee_name(callee.name)
            return ir.Call(func, args, callee.sym, template_args=_instantiated_arguments(ref),
                           decl=self.resolved_declaration(name, ref, callee_cursor, len(arg_cursors)),
                           device_math=device_math_function(cursor) if name in device_math.C_FUNCTIONS else "",
                           loc=loc)
        return ir.IndirectCall(callee, args, loc=loc)

    def member_call(self, cursor: ci.Cursor, callee_cursor: ci.Cursor, args: tuple[ir.Expr, ...]) -> ir.Expr | None:
        """A call of a member function of a class of the program (``obj.f(a)``, ``p->f(a)``,
        ``C<T>::f(a)``, ``f(a)`` in a member function), marked with the key of its overload set
        and the object's class as spelled, so that ``inline-device`` can inline it where it
        synchronizes; None for any other call."""
        loc = location(cursor)
        while callee_cursor.kind == K.UNEXPOSED_EXPR and len(list(callee_cursor.get_children())) == 1:
            callee_cursor = next(iter(callee_cursor.get_children()))  # a static member's decay to a pointer
        kind = callee_cursor.kind
        context = self.member_context
        written_args = _written_template_arguments(callee_cursor)
        if kind == K.MEMBER_REF_EXPR:
            bases = [c for c in callee_cursor.get_children() if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF,
                                                                              K.NAMESPACE_REF)]
            if not bases or (bases[0].kind == K.OVERLOADED_DECL_REF and len(bases) == 1):
                # f(a) in a member function: this->f(a)
                if context is None:
                    return None
                name = callee_cursor.spelling or (bases[0].spelling if bases else _last_identifier(callee_cursor))
                return self.implicit_member_call(name, args, written_args, loc)
            base = bases[0]
            cls = members.class_of_type(base.type)
            if cls is None:
                return None
            name = callee_cursor.spelling or _dependent_member_name(callee_cursor, base)
            callee = ir.Member(self.expr(base), name + written_args, _is_arrow(callee_cursor, base), loc=loc)
            return ir.IndirectCall(callee, args, member=ir.member_key(cls.get_usr(), name),
                                   receiver_type=self.receiver_type(base, cls), template_args=written_args, loc=loc)
        if kind not in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
            return None
        ref = callee_cursor.referenced
        cls = None
        if ref is not None and members.is_member_function(ref):
            cls = members.pattern_class(ref.semantic_parent)
        elif kind == K.OVERLOADED_DECL_REF and context is not None and any(map(context.owns, _overloads(callee_cursor))):
            cls = context.cls
        elif ref is None:  # C<T>::f or Alias::f on a dependent class: the qualifier names it
            qualifier = next((c for c in callee_cursor.get_children() if c.kind in (K.TEMPLATE_REF, K.TYPE_REF)), None)
            if qualifier is not None and qualifier.kind == K.TEMPLATE_REF:
                cls = members.pattern_class(qualifier.referenced)
            elif qualifier is not None and qualifier.referenced is not None:
                alias = qualifier.referenced
                named = alias.underlying_typedef_type if alias.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL) \
                    else qualifier.type
                cls = members.class_of_type(named) or members.pattern_class(named.get_declaration())
        if cls is None:
            return None
        written = self.type_text(_qualified_name(callee_cursor))
        start = _name_start(written)
        name = written[start:].split("<", 1)[0].strip()
        key = ir.member_key(cls.get_usr(), name)
        if start < len(written):  # C<T>::f(a)
            sym = symbol_id(ref) if ref is not None and ref.kind.is_declaration() else 0
            return ir.Call(written, args, sym, template_args=written_args or _instantiated_arguments(ref), member=key,
                           receiver_type=written[:start - 2], loc=loc)
        if context is None or context.cls.get_usr() != cls.get_usr():
            return None
        return self.implicit_member_call(name, args, written_args, loc)

    def implicit_member_call(self, name: str, args: tuple[ir.Expr, ...], template_args: str,
                             loc: SourceLoc) -> ir.IndirectCall:
        """``f(a)`` in a member function of ``f``'s class: ``self->f(a)`` (the inliner drops the
        object where ``f`` is static)."""
        context = self.member_context
        key = ir.member_key(context.cls.get_usr(), name)
        if context.static:  # only a static member can be called so
            return ir.Call(f"{context.text}::{name}{template_args}", args, member=key, receiver_type=context.text,
                           template_args=template_args, loc=loc)
        self_name = ir.Name("self", context.self_sym, loc=loc)
        return ir.IndirectCall(ir.Member(self_name, name + template_args, True, loc=loc), args,
                               member=ir.member_key(context.cls.get_usr(), name), receiver_type=context.text,
                               template_args=template_args, loc=loc)

    def receiver_type(self, base: ci.Cursor, cls: ci.Cursor) -> str:
        """The class of the object ``base`` (or that it points to) as the source spells it
        (``Exchange<int, B>``), for the inliner to read the class template's arguments from."""
        spelled = self.type_text(base.type.spelling)
        spelled = re.sub(r"^(const|volatile)\s+|\s*(\*|&&|&|\bconst\b|\bvolatile\b)\s*$", "", spelled.strip())
        while spelled != (stripped := re.sub(r"\s*(\*|&&|&|\bconst\b|\bvolatile\b)\s*$", "", spelled).strip()):
            spelled = stripped
        if cls.kind == K.CLASS_TEMPLATE and "<" not in spelled:
            canonical = base.type.get_canonical()
            while canonical.kind in (ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
                canonical = canonical.get_pointee().get_canonical()
            spelled = re.sub(r"^(const|volatile)\s+", "", canonical.spelling)
        return spelled

    def resolved_declaration(self, name: str, ref: ci.Cursor | None, callee: ci.Cursor, arg_count: int) -> str:
        """Which of the overloads of a ``__device__`` function the call means (``ir.Call.decl``):
        the one clang resolved it to (the template, for a template's specialization); in a template,
        on arguments of dependent type, the only one of the overload set that takes ``arg_count``
        arguments, if the set holds every ``__device__`` definition of the name in the unit (one
        elsewhere could be found by argument-dependent lookup at the instantiation).  "" for a
        name that is not overloaded, or a call that does not tell."""
        if name not in self.overloaded_device_functions:
            return ""
        if ref is not None and ref.kind == K.FUNCTION_DECL:
            return (clang_ext.specialized_template(ref) or ref).get_usr()
        overload_set = clang_ext.overload_set(callee)
        if overload_set is None:
            return ""
        candidates = clang_ext.overloaded_declarations(overload_set)
        if not self.overloaded_device_functions[name] <= {c.get_usr() for c in candidates}:
            return ""
        viable = [c for c in candidates if _takes(c, arg_count)]
        return viable[0].get_usr() if len(viable) == 1 else ""

    def statement_expression(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        """A GNU statement expression that names values and computes one from them, the
        type-generic min/max macros' ``({ __typeof__(x) _x = (x); __typeof__(y) _y = (y);
        _x < _y ? _x : _y; })``: each name stands for its initializer converted to its type
        (``(int)(x) < (int)(y) ? (int)(x) : (int)(y)``).  That evaluates an initializer once per
        use, so it must be free of side effects (no assignment, increment or call); any other
        statement expression is a located error."""
        loc = location(cursor)
        what = ("a GNU statement expression ({ ... }) in device code, other than declarations of values without side "
                "effects followed by an expression (write it as statements)")
        items = list(children[0].get_children()) if children and children[0].kind == K.COMPOUND_STMT else []
        if not items or items[-1].kind == K.DECL_STMT or not (items[-1].kind.is_expression()
                                                                  or items[-1].kind == K.UNEXPOSED_EXPR):
            raise unsupported(loc, what)
        values: dict[int, ir.Expr] = {}
        for item in items[:-1]:
            decls = list(item.get_children()) if item.kind == K.DECL_STMT else []
            if len(decls) != 1 or decls[0].kind != K.VAR_DECL or clang_ext.var_decl_initializer(decls[0]) is None:
                raise unsupported(location(item), what)
            var = decls[0]
            type_name = var.type.get_canonical().spelling
            init = self.expr(clang_ext.var_decl_initializer(var))
            if "dependent" in type_name or "type-parameter" in type_name or not _free_of_side_effects(init):
                raise unsupported(location(var), what)
            values[symbol_id(var)] = _substituted(ir.Cast(type_name, init, "c", loc=location(var)), values)
        return _substituted(self.expr(items[-1]), values)

    def builtin_type_construct(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr | None:
        """``int(x)`` on a dependent operand inside a template (``int(vals[j])`` where ``vals`` is
        ``float[N]``): libclang gives an unnamed call whose children are the operands only, the
        type being the tokens before the parenthesis.  None for other unnamed calls."""
        if not children or clang_ext.from_macro(cursor) or cursor.extent.start.file is None:
            return None
        tokens = _file_tokens_of(cursor)
        paren = next((i for i, t in enumerate(tokens) if t.spelling == "("), None)
        if not paren or children[0].extent.start.offset <= tokens[paren].extent.start.offset \
                or any(t.kind != ci.TokenKind.KEYWORD for t in tokens[:paren]):
            return None
        operands = tuple(self.expr(c) for c in children)
        return ir.Construct(self.type_text(tokens_text(tokens[:paren])), operands, loc=location(cursor))

    def constructor_call(self, cursor: ci.Cursor, args: tuple[ir.Expr, ...], loc: SourceLoc) -> ir.Expr:
        type_name = self.type_text(cursor.type.spelling)
        # A copy or move of a value of the same class is written as the value itself.
        if len(args) == 1:
            only = list(cursor.get_arguments())[0]
            if only.type.get_canonical().spelling.replace("const ", "") == cursor.type.get_canonical().spelling:
                return args[0]
        return ir.Construct(type_name, args, loc=loc)

    def functional_cast(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        loc = location(cursor)
        exprs = [c for c in children if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        opening = _opening_after_type(cursor)
        if opening is not None:
            # C<T, 4>(x): the template's non-type arguments are children too, before the parenthesis.
            exprs = [c for c in exprs if c.extent.end.offset > opening]
        type_name = self.type_text(cursor.type.spelling)
        if len(exprs) == 1:
            inner = exprs[0]
            while inner.kind == K.UNEXPOSED_EXPR and len(list(inner.get_children())) == 1:
                inner = list(inner.get_children())[0]
            if inner.kind == K.CALL_EXPR and inner.referenced is not None and inner.referenced.kind == K.CONSTRUCTOR:
                args = tuple(a for a in (self.expr_or_none(c) for c in inner.get_arguments()) if a is not None)
                return ir.Construct(type_name, args, loc=loc)
            if inner.kind == K.INIT_LIST_EXPR:
                init = self.expr(inner)
                return ir.Construct(type_name, init.elements, braces=True, loc=loc)
            return ir.Cast(type_name, self.expr(exprs[0]), "functional", loc=loc)
        args = tuple(self.expr(c) for c in exprs)
        return ir.Construct(type_name, args, loc=loc)

    def placement_new(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        """``new (p) T(args)`` (or ``T{args}``, or ``T``) constructs a ``T`` in storage the code
        provides: ``moccuda::construct_at<T>(p, args)`` (``construct_braced`` for braces) does the
        same in the translation, where the call is seen writing through ``p``.  Other forms
        allocate (``new T``, arrays, other placement arguments): a located error."""
        loc = location(cursor)
        tokens = [t.spelling for t in clang_ext.written_tokens(cursor) or []]
        if tokens[:1] == ["::"]:  # ::new (p) T: the global placement new, the same here
            tokens = tokens[1:]
        exprs = [c for c in children if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if len(tokens) < 4 or tokens[:2] != ["new", "("] or not exprs:
            raise unsupported(loc, "new in device code other than placement new (device-side heap allocation: "
                                   "allocate with cudaMalloc on the host and pass the pointer)")
        placement = exprs[0]
        depth, end, commas = 0, None, 0
        for i, token in enumerate(tokens[1:], 1):
            commas += depth == 1 and token == ","
            depth += token in ("(", "[", "{")
            depth -= token in (")", "]", "}")
            if depth == 0:
                end = i
                break
        rest = tokens[end + 1:] if end is not None else []
        opening = next((t for t in rest if t in ("[", "(", "{")), None)
        if opening == "[" or commas or len(exprs) > 2:
            raise unsupported(loc, "placement new of an array or with several placement arguments in device code "
                                   "(construct the elements one by one: new (p + i) T(...))")
        element = self.type_text(cursor.type.get_pointee().spelling)
        pointer = self.expr(placement)
        if len(exprs) == 1:
            return ir.Call(f"moccuda::construct_at<{element}>", (pointer,), loc=loc)
        init = exprs[1]
        if init.kind == K.INIT_LIST_EXPR:
            return ir.Call(f"moccuda::construct_braced<{element}>",
                           (pointer, *(self.expr(c) for c in init.get_children())), loc=loc)
        if init.kind == K.CALL_EXPR and init.type.get_canonical() == cursor.type.get_pointee().get_canonical() \
                and (init.spelling == cursor.type.get_pointee().get_declaration().spelling or not init.spelling):
            args = [c for c in init.get_children() if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
            return ir.Call(f"moccuda::construct_at<{element}>", (pointer, *(self.expr(a) for a in args)), loc=loc)
        return ir.Call(f"moccuda::construct_at<{element}>", (pointer, self.expr(init)), loc=loc)

    def compound_literal(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        """The C99 compound literal ``(float2){a, b}`` (a GNU extension in C++, which nvcc
        accepts) is the braced construction ``float2{a, b}`` of the same temporary."""
        loc = location(cursor)
        lists = [c for c in children if c.kind == K.INIT_LIST_EXPR]
        if cursor.type.get_canonical().kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY) or len(lists) != 1:
            raise unsupported(loc, "a compound literal of array type in device code")
        elements = tuple(self.expr(c) for c in lists[0].get_children())
        return ir.Construct(self.type_text(cursor.type.spelling), elements, braces=True, loc=loc)

    def sizeof(self, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr:
        loc = location(cursor)
        tokens = [t.spelling for t in clang_ext.written_tokens(cursor) or []]
        op = tokens[0] if tokens and tokens[0] in ("sizeof", "alignof", "__alignof__", "_Alignof") else None
        if op is None:  # spelled by a macro's body: its value
            value = clang_ext.evaluate(cursor)
            if value is None:
                raise unsupported(loc, "sizeof/alignof inside a macro on a dependent type")
            return ir.Literal(f"{value}ul", loc=loc)
        op = "sizeof" if op == "sizeof" else "alignof"
        exprs = [c for c in children if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if exprs:
            return ir.SizeOf(op, operand=self.expr(exprs[0]), loc=loc)
        # sizeof(type): the written type is the text between the parentheses, unless a macro
        # spells part of it (one defined in the function body is not in effect where the
        # translation is printed): then its value.
        written = clang_ext.written_tokens(cursor)[2:-1]
        if any(t.kind == ci.TokenKind.IDENTIFIER and _is_macro_use(cursor.translation_unit, t) for t in written):
            value = clang_ext.evaluate(cursor)
            if value is None:
                raise unsupported(loc, "sizeof/alignof of a type spelled with a macro, on a dependent type")
            return ir.Literal(f"{value}ul", loc=loc)
        return ir.SizeOf(op, type=self.type_text(tokens_text(written)), loc=loc)

    def literal_text(self, cursor: ci.Cursor) -> str:
        tokens = clang_ext.written_tokens(cursor) or []
        if len(tokens) == 1 and tokens[0].kind == ci.TokenKind.LITERAL and not clang_ext.from_macro(cursor):
            return tokens[0].spelling
        if cursor.kind == K.STRING_LITERAL and cursor.spelling.startswith('"'):
            # Made by a macro (assert's #expr, __FILE__): libclang spells the literal, escaped.
            return cursor.spelling
        value = clang_ext.evaluate(cursor)
        if value is None:
            raise unsupported(location(cursor), "a literal spelled through a macro")
        type_name = cursor.type.get_canonical().spelling
        if isinstance(value, float):
            text = repr(value)
            if text in ("inf", "-inf", "nan"):
                raise unsupported(location(cursor), "a non-finite literal")
            return text + ("f" if type_name == "float" else "")
        suffix = {"unsigned int": "u", "long": "l", "unsigned long": "ul", "long long": "ll",
                  "unsigned long long": "ull"}.get(type_name, "")
        if type_name == "char":
            return f"(char){value}"
        return f"{value}{suffix}"


# ------------------------------------------------------------------------------------ helpers


def _is_macro_use(tu: ci.TranslationUnit, token) -> bool:
    """Is ``token`` the name of a macro being expanded (the parse keeps a detailed record)?"""
    found = ci.Cursor.from_location(tu, token.location)
    # The expansion that starts at the token (not one whose argument the token is in).
    return (found.kind == K.MACRO_INSTANTIATION and found.spelling == token.spelling
            and found.extent.start.offset == token.extent.start.offset)


@dataclass(frozen=True)
class LocalLambda:
    """A lambda stored in a local variable: its parameters, and its body as the IR of the
    variable's function (captured-by-value variables read the copies the declaration made)."""

    name: str
    params: tuple[ir.Param, ...]
    body: ir.Block
    loc: SourceLoc


def _lambda_initializer(var: ci.Cursor) -> ci.Cursor | None:
    """The lambda a variable is initialized with (``auto f = [...] {...};``), or None."""
    init = clang_ext.var_decl_initializer(var)
    while init is not None and init.kind == K.UNEXPOSED_EXPR and len(list(init.get_children())) == 1:
        init = next(init.get_children())
    return init if init is not None and init.kind == K.LAMBDA_EXPR else None


def _captured_variables(lam: ci.Cursor, body: ci.Cursor) -> list[ci.Cursor]:
    """The local variables of the functions around the lambda that its body names (what it
    captures, explicitly or by a default), each once, in the order first named."""
    found: dict = {}
    inner = {clang_ext.identity(n) for n in lam.walk_preorder() if n.kind in (K.VAR_DECL, K.PARM_DECL)}
    for n in body.walk_preorder():
        ref = n.referenced if n.kind == K.DECL_REF_EXPR else None
        if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL) or clang_ext.identity(ref) in inner:
            continue
        parent = ref.semantic_parent
        if parent is None or parent.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD):
            continue  # a global or a member
        if ref.kind == K.VAR_DECL and ref.storage_class == ci.StorageClass.STATIC:
            continue
        found.setdefault(clang_ext.identity(ref), ref)
    return list(found.values())


def _matching(tokens: list[str], start: int) -> int:
    """The index of the bracket that closes the one at ``start``."""
    pairs = {"[": "]", "(": ")", "{": "}", "<": ">"}
    opening, depth = tokens[start], 0
    for i in range(start, len(tokens)):
        if tokens[i] == opening:
            depth += 1
        elif tokens[i] == pairs[opening]:
            depth -= 1
            if depth == 0:
                return i
    return len(tokens)


def _split_commas(tokens: list[str]) -> list[list[str]]:
    """``tokens`` split at the commas outside brackets."""
    items, current, depth = [], [], 0
    for t in tokens:
        depth += 1 if t in ("(", "[", "{") else -1 if t in (")", "]", "}") else 0
        if t == "," and depth == 0:
            items.append(current)
            current = []
        else:
            current.append(t)
    return items + [current] if current else items


def _substituted_block(block: ir.Block, values: dict[int, ir.Expr]) -> ir.Block:
    if not values:
        return block
    return ir.transform(block, lambda n: values[n.sym] if isinstance(n, ir.Name) and n.sym in values else n)


def default_argument(param: ci.Cursor) -> str:
    """The default argument written in a parameter's declaration (``int *p = NULL``: ``NULL``),
    or ""."""
    spelled = [t.spelling for t in clang_ext.written_tokens(param) or []]
    depth = 0
    for i, token in enumerate(spelled):
        depth += 1 if token in ("(", "[", "{", "<") else -1 if token in (")", "]", "}", ">") else 0
        if token == "=" and depth == 0:
            return " ".join(spelled[i + 1:])
    return ""


def _is_parenthesized_list(init: ci.Cursor) -> bool:
    """Is a variable's initializer the ``(a, b)`` of a direct initialization that a template
    leaves unresolved (clang's ParenListExpr, unexposed): its tokens are the parentheses around
    its children, each an expression."""
    if init.kind != K.UNEXPOSED_EXPR or clang_ext.from_macro(init):
        return False
    children = list(init.get_children())
    if not children or any(not (c.kind.is_expression() or c.kind == K.UNEXPOSED_EXPR) for c in children):
        return False
    tokens = clang_ext.written_tokens(init) or []
    return (len(tokens) >= 2 and tokens[0].spelling == "(" and tokens[-1].spelling == ")"
            and tokens[0].extent.start.offset < children[0].extent.start.offset)


def _is_loop_hint(cursor: ci.Cursor) -> bool:
    """True for the statement clang makes of ``#pragma unroll`` (or ``nounroll``) and its loop."""
    tokens = [t.spelling for t in itertools.islice(cursor.get_tokens(), 3)]
    children = list(cursor.get_children())
    return (tokens[:2] == ["#", "pragma"] and len(tokens) == 3 and tokens[2] in ("unroll", "nounroll")
            and len(children) == 1 and children[0].kind in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT))


def _is_barrier_call(cursor: ci.Cursor) -> bool:
    while cursor.kind == K.UNEXPOSED_EXPR:
        children = list(cursor.get_children())
        if len(children) != 1:
            return False
        cursor = children[0]
    return cursor.kind == K.CALL_EXPR and cursor.spelling in BARRIER_FUNCTIONS


def is_namespace_shared(ref: ci.Cursor) -> bool:
    """Is ``ref`` a ``__shared__`` variable declared outside any function?"""
    if ref.kind != K.VAR_DECL or ref.semantic_parent is None:
        return False
    if ref.semantic_parent.kind not in (K.TRANSLATION_UNIT, K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
        return False
    return any(c.kind == K.CUDASHARED_ATTR for c in ref.get_children())


def _instantiated_arguments(ref: ci.Cursor | None) -> str:
    """The template arguments of the function template specialization a call resolved to
    (deduced or written), as ``<int, 3>``; "" for a plain function, or where any is not a type
    or an integer."""
    if ref is None or ref.kind != K.FUNCTION_DECL:
        return ""
    count = ref.get_num_template_arguments()
    if count <= 0:
        return ""
    args = []
    for i in range(count):
        try:
            kind = ref.get_template_argument_kind(i)
        except ValueError:  # a kind the bindings do not name (a template, a pack, an expression)
            return ""
        if kind == ci.TemplateArgumentKind.TYPE:
            args.append(ref.get_template_argument_type(i).spelling)
        elif kind == ci.TemplateArgumentKind.INTEGRAL:
            args.append(str(ref.get_template_argument_value(i)))
        else:
            return ""
    return "<" + ", ".join(args) + ">"


def _declared_constexpr(var: ci.Cursor) -> bool:
    """Is the variable written ``constexpr`` (libclang has no query for it: the declaration's
    tokens before its name say it)?"""
    for tok in clang_ext.written_tokens(var) or ():
        if tok.spelling == var.spelling:
            return False
        if tok.spelling == "constexpr":
            return True
    return False


def _is_local_constant(var: ci.Cursor) -> bool:
    """A local ``constexpr`` (or ``const``) variable of integral or enumeration type: a value
    that may appear in a type (an array's extent, a template argument)."""
    canonical = var.type.get_canonical()
    if canonical.kind not in _INTEGRAL_KINDS or not canonical.is_const_qualified():
        return False
    return True


_INTEGRAL_KINDS = frozenset({ci.TypeKind.BOOL, ci.TypeKind.CHAR_S, ci.TypeKind.CHAR_U, ci.TypeKind.SCHAR,
                             ci.TypeKind.UCHAR, ci.TypeKind.SHORT, ci.TypeKind.USHORT, ci.TypeKind.INT,
                             ci.TypeKind.UINT, ci.TypeKind.LONG, ci.TypeKind.ULONG, ci.TypeKind.LONGLONG,
                             ci.TypeKind.ULONGLONG, ci.TypeKind.ENUM})


def _opening_after_type(cursor: ci.Cursor) -> int | None:
    """Where the ``(`` or ``{`` after the type of ``T<...>(x)`` is (an offset), or None."""
    tokens = clang_ext.written_tokens(cursor)
    if not tokens or clang_ext.expanded_from_macro(cursor):
        return None
    depth = 0
    for tok in tokens:
        depth += {"<": 1, ">": -1, ">>": -2}.get(tok.spelling, 0)
        if tok.spelling in ("(", "{") and depth <= 0:
            return tok.extent.start.offset
    return None


def _written_template_arguments(callee: ci.Cursor) -> str:
    """The template arguments written after a member function's name (``obj.f<true, 4>(x)``:
    ``<true, 4>``), or ""."""
    tokens = clang_ext.written_tokens(callee)
    if not tokens:
        return ""
    spelled = [t.spelling for t in tokens]
    if not spelled or spelled[-1] not in (">", ">>"):
        return ""
    depth, i = 0, len(spelled) - 1
    while i >= 0:
        depth += {">": 1, ">>": 2, "<": -1}.get(spelled[i], 0)
        if depth <= 0:
            break
        i -= 1
    if i <= 0 or not (spelled[i - 1][:1].isalpha() or spelled[i - 1][:1] == "_"):
        return ""
    return "<" + tokens_text(tokens[i + 1:-1]).replace(",", ", ") + ">"


def _last_identifier(cursor: ci.Cursor) -> str:
    tokens = [t for t in clang_ext.written_tokens(cursor) or [] if t.kind == ci.TokenKind.IDENTIFIER]
    if not tokens:
        raise unsupported(location(cursor), "a member function call spelled by a macro")
    return tokens[0].spelling if len(tokens) == 1 else tokens[-1].spelling


def _overloads(cursor: ci.Cursor) -> list[ci.Cursor]:
    count = ci.conf.lib.clang_getNumOverloadedDecls(cursor)
    return [ci.conf.lib.clang_getOverloadedDecl(cursor, i) for i in range(count)]


def _name_start(qualified: str) -> int:
    """Where the last name of ``C<T>::f<U>`` starts (the ``::`` before it ends there)."""
    depth = 0
    for i in range(len(qualified) - 1, 0, -1):
        ch = qualified[i]
        if ch == ">":
            depth += 1
        elif ch == "<":
            depth -= 1
        elif depth == 0 and qualified[i - 1:i + 1] == "::":
            return i + 1
    return len(qualified)


def _constant_truth(cond: ci.Cursor) -> bool | None:
    """Whether a condition clang evaluates as a constant (``Z_COUNT > WARP_SZ`` on constants) is
    true; None when it is not a constant (or is value-dependent, in a template)."""
    if "dependent" in cond.type.spelling:
        return None
    value = clang_ext.evaluate(cond)
    return None if value is None else bool(value)


def _void_conditional(cursor: ci.Cursor) -> ci.Cursor | None:
    """The ``c ? a : b`` of an expression statement whose value is unused because it is void."""
    while cursor.kind == K.UNEXPOSED_EXPR:
        children = list(cursor.get_children())
        if len(children) != 1:
            return None
        cursor = children[0]
    if cursor.kind == K.CONDITIONAL_OPERATOR and cursor.type.kind == ci.TypeKind.VOID:
        return cursor
    return None


def _is_kernel(function: ci.Cursor) -> bool:
    return any(c.kind == K.CUDAGLOBAL_ATTR for c in function.get_children())


def is_builtin_decl(ref: ci.Cursor | None) -> bool:
    """True for the builtin index variables declared by MocCUDA's header (not a user's own)."""
    if ref is None or ref.location.file is None:
        return False
    return Path(ref.location.file.name).name == "cuda_runtime.h" or "moccuda" in ref.location.file.name


def _global_kind(ref: ci.Cursor) -> str:
    if ref.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD):
        return "function"
    if ref.kind == K.VAR_DECL:
        return "global"
    if ref.kind == K.ENUM_CONSTANT_DECL:
        return "constant"
    return "other"


def _qualified_name(cursor: ci.Cursor) -> str:
    """The name as written, with its namespace qualifiers and explicit template arguments."""
    name = cursor.spelling
    if clang_ext.from_macro(cursor) or clang_ext.expanded_from_macro(cursor):
        qualifiers = [c.spelling for c in cursor.get_children()
                      if c.kind in (K.NAMESPACE_REF, K.TYPE_REF, K.TEMPLATE_REF)]
        return "::".join(qualifiers + [name])
    text = tokens_text(cursor.get_tokens())
    return text if text and name in text else name


def _implicit_default_construction(init: ci.Cursor) -> bool:
    """Is ``init`` a constructor call with no arguments that nothing in the source wrote?"""
    ref = init.referenced
    return (init.kind == K.CALL_EXPR and ref is not None and ref.kind == K.CONSTRUCTOR
            and not list(init.get_arguments()))


def _unwritten_default_construction(init: ci.Cursor, var: ci.Cursor) -> bool:
    """Is ``init`` the default construction clang shows for ``T v;`` (its only token is the
    variable's name), not a written ``T v{}`` or ``T v = T()``?"""
    return _implicit_default_construction(init) and [t.spelling for t in init.get_tokens()] in ([], [var.spelling])


def _type_ref_text(cursor: ci.Cursor) -> str:
    refs = [c for c in cursor.get_children() if c.kind == K.TYPE_REF]
    return refs[0].spelling if refs else ""


def _is_arrow(cursor: ci.Cursor, base: ci.Cursor) -> bool:
    base_type = base.type.get_canonical()
    if base_type.kind == ci.TypeKind.POINTER:
        return True
    if base_type.kind in (ci.TypeKind.RECORD, ci.TypeKind.ELABORATED, ci.TypeKind.TYPEDEF,
                          ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        return False
    # A dependent type: read the operator written after the base.
    tokens = clang_ext.written_tokens(cursor)
    if tokens is None:
        raise unsupported(location(cursor), "a member access on a value of dependent type inside a macro")
    end = base.extent.end.offset
    for tok in tokens:
        if tok.extent.start.offset >= end and tok.spelling in (".", "->"):
            return tok.spelling == "->"
    return False


def _dependent_member_name(cursor: ci.Cursor, base: ci.Cursor) -> str:
    """The member named in ``base.name`` / ``base->name`` when ``base`` has a dependent type (libclang
    does not spell it): the identifier written after the operator."""
    end = base.extent.end.offset
    tokens = [t.spelling for t in clang_ext.written_tokens(cursor) or [] if t.extent.start.offset >= end]
    if tokens[:1] in (["."], ["->"]) and len(tokens) >= 2 and tokens[1] == "template":
        tokens = tokens[:1] + tokens[2:]
    if len(tokens) >= 2 and tokens[0] in (".", "->") and (tokens[1][:1].isalpha() or tokens[1][:1] == "_") \
            and (len(tokens) == 2 or (tokens[2] == "<" and tokens[-1] in (">", ">>"))):
        return tokens[1]  # (template arguments after it: obj.f<true>(x), read by the call)
    raise unsupported(location(cursor), "this member access on a value of dependent type "
                                        f"('{' '.join(tokens) or 'spelled by a macro'}')")


def _takes(function: ci.Cursor, arg_count: int) -> bool:
    """Can ``function`` (a function or function template) be called with ``arg_count`` arguments:
    no fewer than its parameters without a default, no more than its parameters (any number with a
    parameter pack or C's ``...``)?  True for a declaration it cannot tell (a using-declaration)."""
    if function.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
        return True
    params = [c for c in function.get_children() if c.kind == K.PARM_DECL]
    spellings = [[t.spelling for t in p.get_tokens()] for p in params]
    required = sum(1 for tokens in spellings if "=" not in tokens)
    c_variadic = function.type.kind == ci.TypeKind.FUNCTIONPROTO and function.type.is_function_variadic()
    variadic = c_variadic or any("..." in tokens for tokens in spellings)
    return required <= arg_count and (variadic or arg_count <= len(params))


def _unresolved_operator(children: list[ci.Cursor]) -> ci.Cursor | None:
    """The callee of an overloaded operator call that a template leaves unresolved: a reference
    to the overload set ``operator<op>`` (libclang lists it among the operands)."""
    for child in children:
        refs = [child] if child.kind == K.OVERLOADED_DECL_REF else [
            c for c in child.get_children() if c.kind == K.OVERLOADED_DECL_REF] if child.kind == K.DECL_REF_EXPR else []
        if len(refs) == 1 and refs[0].spelling in _OPERATOR_NAMES:
            return refs[0]
    return None


def _free_of_side_effects(e: ir.Expr) -> bool:
    """No assignment, increment, call or warp operation anywhere in ``e``: evaluating it twice
    is evaluating it once."""
    for n in e.walk():
        if isinstance(n, (ir.Assign, ir.Call, ir.IndirectCall, ir.WarpCollective)):
            return False
        if isinstance(n, ir.Unary) and n.op in ("++", "--"):
            return False
    return True


def _substituted(e: ir.Expr, values: dict[int, ir.Expr]) -> ir.Expr:
    """``e`` with each name whose symbol ``values`` holds replaced by that expression."""
    if not values:
        return e
    return ir.transform(e, lambda n: values[n.sym] if isinstance(n, ir.Name) and n.sym in values else n)


def _file_tokens_of(cursor: ci.Cursor) -> list[ci.Token]:
    """The tokens written in ``cursor``'s file range."""
    tu, file = cursor.translation_unit, cursor.extent.start.file
    written = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, file, cursor.extent.start.offset),
                                            ci.SourceLocation.from_offset(tu, file, cursor.extent.end.offset))
    return list(tu.get_tokens(extent=written))


def _operator_call(name: str, args: tuple[ir.Expr, ...], loc: SourceLoc) -> ir.Expr:
    op = name[len("operator"):]
    if op == "[]" and len(args) == 2:
        return ir.Index(args[0], args[1], loc=loc)
    if op == "()":
        return ir.IndirectCall(args[0], args[1:], loc=loc)
    if len(args) == 2 and op in ("++", "--"):
        return ir.Unary(op, args[0], postfix=True, loc=loc)
    if len(args) == 1:
        return ir.Unary(op, args[0], loc=loc)
    if len(args) == 2:
        if op.endswith("=") and op not in ("==", "!=", "<=", ">="):
            return ir.Assign(op, args[0], args[1], loc=loc)
        return ir.Binary(op, args[0], args[1], loc=loc)
    raise unsupported(loc, f"the overloaded operator '{op}' with {len(args)} operands")


def _if_has_initializer(cursor: ci.Cursor) -> bool:
    """Whether an if statement's parentheses hold a ``;`` at their top level (C++17's
    ``if (init; cond)``)."""
    tokens = [t.spelling for t in cursor.get_tokens()]
    start = tokens.index("(") if "(" in tokens else len(tokens)
    depth = 0
    for token in tokens[start:]:
        depth += token in ("(", "[", "{")
        depth -= token in (")", "]", "}")
        if depth == 0:
            return False
        if depth == 1 and token == ";":
            return True
    return False


def _for_header_semicolons(cursor: ci.Cursor) -> tuple[int, int] | None:
    tokens = list(cursor.get_tokens())
    if len(tokens) < 2 or tokens[0].spelling != "for" or tokens[1].spelling != "(":
        return None
    depth = 0
    semis = []
    for tok in tokens[1:]:
        s = tok.spelling
        if s in ("(", "[", "{"):
            depth += 1
        elif s in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        elif s == ";" and depth == 1:
            semis.append(tok.extent.start.offset)
        elif s == ":" and depth == 1:
            return None  # range-based for
    if len(semis) != 2:
        return None
    return semis[0], semis[1]


def template_header(cursor: ci.Cursor) -> str:
    """``template <...>`` as written before a function template, or ""."""
    if cursor.kind != K.FUNCTION_TEMPLATE:
        return ""
    tokens = list(cursor.get_tokens())
    if not tokens or tokens[0].spelling != "template":
        raise unsupported(location(cursor), "a function template whose header comes from a macro")
    depth = 0
    for i, tok in enumerate(tokens[1:], start=1):
        if tok.spelling == "<":
            depth += 1
        elif tok.spelling == ">":
            depth -= 1
        elif tok.spelling == ">>":
            depth -= 2
        if depth <= 0:
            return "template <" + tokens_text(tokens[2:i]).replace(",", ", ") + ">"
    raise unsupported(location(cursor), "this template header")


def specialization_arguments(cursor: ci.Cursor) -> str:
    """The template arguments written after the name of an explicit specialization of a function
    template (``template <> void k<float, 4>(...)``: ``<float, 4>``), or "" for any other
    function.  A specialization that deduces its arguments (``template <> void k(float *)``) is
    ``<>``: C++ deduces them again from the translated parameters."""
    if cursor.kind != K.FUNCTION_DECL:
        return ""
    tokens = list(cursor.get_tokens())
    if [t.spelling for t in tokens[:3]] != ["template", "<", ">"]:
        return ""
    name = next((i for i, t in enumerate(tokens) if t.spelling == cursor.spelling), None)
    if name is None or name + 1 >= len(tokens) or tokens[name + 1].spelling != "<":
        return "<>"
    depth = 0
    for i, tok in enumerate(tokens[name + 1:], start=name + 1):
        depth += {"<": 1, ">": -1, ">>": -2}.get(tok.spelling, 0)
        if depth <= 0:
            return "<" + tokens_text(tokens[name + 2:i]).replace(",", ", ") + ">"
    raise unsupported(location(cursor), "this explicit specialization's template arguments")


def template_arguments(cursor: ci.Cursor) -> str:
    """A function template's parameters as the argument list that passes them on (``<T, N>``,
    ``<Ts...>`` for a pack); "" for a plain function or one with an unnamed parameter."""
    if cursor.kind != K.FUNCTION_TEMPLATE:
        return ""
    kinds = (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER)
    args = []
    for param in cursor.get_children():
        if param.kind not in kinds:
            continue
        if not param.spelling:
            return ""
        # A pack's declaration spells `...` before its name (`typename... Ts`, `int... Ns`).
        spelled = [t.spelling for t in param.get_tokens()]
        pack = "..." in spelled[:spelled.index(param.spelling)] if param.spelling in spelled else False
        args.append(param.spelling + ("..." if pack else ""))
    return "<" + ", ".join(args) + ">"


def _qualifiers(cursor: ci.Cursor) -> str:
    # `inline` is kept: a translated inline function defined in a header that several .cu files
    # include is one function, as it was, not one definition per object file.
    # (A template may be defined in every file that uses it: it needs no `inline`.)
    inline = cursor.kind != K.FUNCTION_TEMPLATE and clang_ext.is_inline_function(cursor)
    if cursor.storage_class == ci.StorageClass.STATIC:
        return "static inline" if inline else "static"
    return "inline" if inline else ""
