"""Front end of the warp-level operations: CUDA's warp intrinsics, ``__syncthreads_count/and/or``
and cooperative groups become :class:`~foundation.ir.WarpCollective` nodes (or plain index
arithmetic), which the ``warp-collectives`` pass lowers.

Before::

    v += __shfl_down_sync(0xffffffff, v, 16);
    int r = tile.thread_rank();          // cg::thread_block_tile<8> tile
    int s = cg::reduce(tile, v, cg::plus<int>());
    int m = cg::reduce(tile, v, [](int a, int b) { return a > b ? a : b; });

After (IR)::

    v += WarpCollective(shfl_down, mask=0xffffffff, value=v, operand=16, width=32, type=int)
    int r = flat_thread_index & 7
    int s = WarpCollective(reduce, combine=add, mask=0xffffffffu, value=v, width=8, type=int)
    int m = WarpCollective(reduce, combine=call, operand=[](int a, int b) {...}, value=v, width=8, type=int)
"""

from __future__ import annotations

import re

import clang.cindex as ci

from cuda_front import clang_ext
from cuda_front.clang_ext import location, tokens_text
from foundation import ir
from foundation.diagnostics import CompileError, unsupported

K = ci.CursorKind

#: CUDA's warp intrinsics: name -> (operation, combining operation of a reduction).
WARP_INTRINSICS = {
    "__shfl_sync": ("shfl", ""), "__shfl_up_sync": ("shfl_up", ""), "__shfl_down_sync": ("shfl_down", ""),
    "__shfl_xor_sync": ("shfl_xor", ""), "__ballot_sync": ("ballot", ""), "__any_sync": ("any", ""),
    "__all_sync": ("all", ""), "__activemask": ("activemask", ""), "__syncwarp": ("syncwarp", ""),
    "__match_any_sync": ("match_any", ""), "__match_all_sync": ("match_all", ""),
    "__reduce_add_sync": ("reduce", "add"), "__reduce_min_sync": ("reduce", "min"),
    "__reduce_max_sync": ("reduce", "max"), "__reduce_and_sync": ("reduce", "and"),
    "__reduce_or_sync": ("reduce", "or"), "__reduce_xor_sync": ("reduce", "xor"),
}
#: ``__syncthreads_count`` and friends: block-scope collectives.
BLOCK_COLLECTIVES = {"__syncthreads_count": "count", "__syncthreads_and": "and", "__syncthreads_or": "or"}
#: cg::reduce's operator types -> the combining operation.
CG_OPERATORS = {"plus": "add", "less": "min", "greater": "max", "bit_and": "and", "bit_or": "or", "bit_xor": "xor"}

CG = "cooperative_groups::"
FULL_MASK = "0xffffffffu"


def _from_runtime(ref: ci.Cursor | None) -> bool:
    """The callee is MocCUDA's declaration (or unresolved, in a template), not a user function."""
    if ref is None or ref.location.file is None:
        return True
    return "moccuda" in ref.location.file.name or "cuda2cpu_" in ref.location.file.name


def _plain(type_: ci.Type) -> str:
    spelling = type_.spelling
    for q in ("const ", "volatile "):
        spelling = spelling.replace(q, "")
    return spelling.rstrip("&").strip()


def _group_type(cursor: ci.Cursor) -> str:
    """The group type of an object expression, looking through implicit conversions to a base
    class (``block.thread_rank()`` converts ``block`` to ``thread_group``)."""
    while cursor.kind == K.UNEXPOSED_EXPR and len(list(cursor.get_children())) == 1:
        cursor = list(cursor.get_children())[0]
    spelling = _plain(cursor.type.get_canonical())
    if not spelling.startswith(CG) and ("thread_block" in _plain(cursor.type) or "grid_group" in _plain(cursor.type)):
        spelling = CG + _plain(cursor.type).rsplit("::", 1)[-1]  # dependent: as written
    if spelling == "auto" and cursor.kind == K.DECL_REF_EXPR and cursor.referenced is not None:
        return _deduced_group_type(cursor.referenced) or spelling
    return spelling


#: The functions that make a group, and the type each returns.
_GROUP_MAKERS = {"this_thread_block": "thread_block", "coalesced_threads": "coalesced_group", "this_grid": "grid_group"}


def _deduced_group_type(var: ci.Cursor, depth: int = 0) -> str | None:
    """The group type of ``auto g = <initializer>`` in a template, where clang leaves it undeduced
    until instantiation: read from the initializer (``cg::tiled_partition<N>(block)`` is
    ``thread_block_tile<N>``, ``cg::this_thread_block()`` a ``thread_block``, another group
    variable that variable's type); None when it is none of these."""
    init = clang_ext.var_decl_initializer(var) if var.kind == K.VAR_DECL else None
    while init is not None and init.kind == K.UNEXPOSED_EXPR and len(list(init.get_children())) == 1:
        init = next(init.get_children())
    if init is None or depth > 8:
        return None
    if init.kind == K.DECL_REF_EXPR:  # auto g = other_group;
        return _group_type(init) if _group_type(init) != "auto" else (
            _deduced_group_type(init.referenced, depth + 1) if init.referenced is not None else None)
    if init.kind != K.CALL_EXPR:
        return None
    tokens = [t.spelling for t in (clang_ext.written_tokens(init) or [])]
    paren = tokens.index("(") if "(" in tokens else len(tokens)
    head = tokens[:paren]
    names = [t for t in head if t.isidentifier() and t not in ("cg", "cooperative_groups")]
    if not names:
        return None
    maker = names[0]
    if maker in _GROUP_MAKERS and head[-1] == maker:
        return CG + _GROUP_MAKERS[maker]
    if maker == "tiled_partition" and len(head) >= 4 and head[-1] == ">" and head[head.index(maker) + 1] == "<":
        size = "".join(head[head.index(maker) + 2:-1])
        return CG + f"thread_block_tile<{size}>"
    if maker == "tiled_partition":
        return CG + "thread_group"  # tiled_partition(group, n): a size known at run time
    return None


def _tile_size(group_type: str, loc) -> ir.Expr | None:
    """N of ``cooperative_groups::thread_block_tile<N>`` (a literal, or a template parameter's
    name), None for a thread block."""
    if group_type == CG + "thread_block":
        return None
    m = re.fullmatch(r"cooperative_groups::thread_block_tile<\s*(\w+?)u?\s*>", group_type)
    if m is None:
        raise unsupported(loc, f"the cooperative group type '{group_type}' (thread_block and "
                          "thread_block_tile<N> are supported)")
    if not m.group(1).isdigit():
        return ir.Name(m.group(1), 0, loc=loc)
    n = int(m.group(1))
    if n < 1 or n > MAX_TILE or n & (n - 1):
        raise unsupported(loc, f"thread_block_tile<{n}>: tile sizes are powers of two from 1 to {MAX_TILE}")
    return ir.Literal(str(n), loc=loc)


#: The largest thread_block_tile: a whole block of CUDA's largest size.
MAX_TILE = 1024
#: What a tile of several warps offers (CUDA's thread_block_tile<N> for N > 32): no lane
#: exchanges, only its place in the block, its barrier and cg::reduce.
MULTI_WARP_METHODS = ("thread_rank", "size", "num_threads", "meta_group_rank", "meta_group_size", "sync")


def _several_warps(width: ir.Expr) -> bool:
    """Whether a tile's size, written as a number, is more than a warp."""
    return isinstance(width, ir.Literal) and width.text.isdigit() and int(width.text) > 32


def collective(conv, cursor: ci.Cursor, children: list[ci.Cursor]) -> ir.Expr | None:
    """The IR of a call to a warp intrinsic or a cooperative-groups function, or None for any
    other call."""
    name = cursor.spelling or _dependent_callee(children)
    ref = cursor.referenced
    loc = location(cursor)
    args = list(cursor.get_arguments())
    if name in WARP_INTRINSICS and _from_runtime(ref):
        return _intrinsic(conv, cursor, name, args, loc)
    barrier_call = _barrier_call(conv, cursor, name, args, loc)
    if barrier_call is not None:
        return barrier_call
    if name in BLOCK_COLLECTIVES and _from_runtime(ref):
        if len(args) != 1:
            raise unsupported(loc, f"{name} with {len(args)} arguments")
        return ir.WarpCollective(BLOCK_COLLECTIVES[name], None, conv.expr(args[0]), None, ir.Literal("32"),
                                 "int", scope="block", loc=loc)
    callee = children[0] if children else None
    while callee is not None and callee.kind == K.UNEXPOSED_EXPR and len(list(callee.get_children())) == 1:
        callee = list(callee.get_children())[0]
    if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
        bases = [c for c in callee.get_children() if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if bases and _group_type(bases[0]) == CG + "thread_group":
            return _any_group_method(callee.spelling or _dependent_member(callee, loc), conv.expr(bases[0]), loc)
        if bases and _group_type(bases[0]) == CG + "coalesced_group":
            return _coalesced_method(conv, cursor, callee.spelling or _dependent_member(callee, loc),
                                     conv.expr(bases[0]), args, loc)
        if bases and _group_type(bases[0]).startswith(CG):
            return _method(conv, cursor, callee.spelling or _dependent_member(callee, loc), _group_type(bases[0]),
                           args, loc)
    if ref is not None and ref.semantic_parent is not None and ref.semantic_parent.spelling == "cooperative_groups":
        return _free_function(conv, cursor, name, args, loc)
    if ref is None and name in ("reduce", "sync", "wait", "wait_prior", "memcpy_async") and args \
            and _group_type(args[0]).startswith(CG):
        return _free_function(conv, cursor, name, args, loc)  # in a template, on a group
    if ref is None and name == "reduce" and len(args) == 3 and _group_parameter(args[0]) is not None \
            and _names_cooperative_groups(children):
        return _free_function(conv, cursor, name, args, loc)  # on a group whose type is a template parameter
    return None


def _group_parameter(arg: ci.Cursor) -> str | None:
    """The name of the template type parameter that is the type of the variable ``arg`` names
    (``Group`` of a ``Group &g`` parameter), or None."""
    while arg.kind == K.UNEXPOSED_EXPR and len(list(arg.get_children())) == 1:
        arg = next(arg.get_children())
    if arg.kind != K.DECL_REF_EXPR or arg.referenced is None or arg.referenced.kind not in (K.PARM_DECL, K.VAR_DECL):
        return None
    written = re.sub(r"\b(const|volatile)\b|[&\s]", "", arg.referenced.type.spelling)
    parameters = [c.referenced for c in arg.referenced.get_children()
                  if c.kind == K.TYPE_REF and c.referenced is not None and c.referenced.kind == K.TEMPLATE_TYPE_PARAMETER]
    return written if [p.spelling for p in parameters] == [written] else None


def _cooperative_groups_operator(arg: ci.Cursor) -> re.Match | None:
    """``cg::plus<T>()`` in a template, whose type clang leaves dependent: a match of the
    operator's name, as for a resolved operator type, or None."""
    refs = [c for c in arg.walk_preorder() if c.kind == K.TEMPLATE_REF and c.referenced is not None]
    if len(refs) != 1 or (refs[0].referenced.semantic_parent.spelling if refs[0].referenced.semantic_parent
                          else "") != "cooperative_groups":
        return None
    return re.match(r"cooperative_groups::(\w+)<", f"cooperative_groups::{refs[0].spelling}<")


def _names_cooperative_groups(children: list[ci.Cursor]) -> bool:
    """Whether a call left unresolved in a template names a function of ``cooperative_groups``
    (``cg::reduce(g, v, op)``)."""
    callee = children[0] if children else None
    overloads = [c for c in callee.walk_preorder() if c.kind == K.OVERLOADED_DECL_REF] if callee is not None else []
    return any((d.semantic_parent.spelling if d.semantic_parent else "") == "cooperative_groups"
               for ref in overloads for d in clang_ext.overloaded_declarations(ref))


#: libcu++'s ``cuda::barrier<Scope[, Completion]>``, as clang spells its canonical type.
CUDA_BARRIER = re.compile(r"cuda::barrier<\s*(.*?)\s*>")
#: Its members that wait: each is the block barrier (``__syncthreads()``) when the barrier expects
#: every thread of the block.
BARRIER_WAITS = ("arrive_and_wait", "wait")


def barrier_method(cursor: ci.Cursor) -> tuple[str, ci.Cursor] | None:
    """The member and the object of a call of a ``cuda::barrier`` member (``bar.arrive()``), or
    None for any other expression.  A located error for what cuda2cpu cannot lower: a barrier
    of another scope than the block, one with a completion function, ``arrive_and_drop``, an
    arrival that counts more than one."""
    call = cursor
    while call.kind == K.UNEXPOSED_EXPR and len(list(call.get_children())) == 1:
        call = list(call.get_children())[0]
    if call.kind != K.CALL_EXPR:
        return None
    callee = next(iter(call.get_children()), None)
    while callee is not None and callee.kind == K.UNEXPOSED_EXPR and len(list(callee.get_children())) == 1:
        callee = list(callee.get_children())[0]
    if callee is None or callee.kind != K.MEMBER_REF_EXPR:
        return None
    objects = [c for c in callee.get_children() if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
    if len(objects) != 1:
        return None
    barrier_type = _plain(objects[0].type.get_canonical())
    match = CUDA_BARRIER.fullmatch(barrier_type)
    if match is None:
        return None
    loc = location(call)
    check_block_barrier(barrier_type, loc)
    method = callee.spelling
    if method == "arrive_and_drop":
        raise unsupported(loc, "cuda::barrier::arrive_and_drop() (it changes how many threads the barrier expects: "
                               "cuda2cpu supports barriers that expect every thread of the block)")
    args = list(call.get_arguments())
    if method == "arrive" and args and _constant_value(args[0]) != 1:
        raise unsupported(loc, "cuda::barrier::arrive(n) with n other than 1 (cuda2cpu supports barriers at which "
                               "every thread of the block arrives once)")
    return method, objects[0]


def check_block_barrier(barrier_type: str, loc) -> None:
    """A located error unless ``barrier_type`` is ``cuda::barrier<cuda::thread_scope_block>``."""
    scope = CUDA_BARRIER.fullmatch(barrier_type).group(1)
    if scope != "cuda::thread_scope_block":
        raise unsupported(loc, f"{barrier_type}: cuda2cpu supports cuda::barrier<cuda::thread_scope_block> without a "
                               "completion function, expecting every thread of the block (it is __syncthreads()); "
                               "use that, or __syncthreads()")


def _constant_value(cursor: ci.Cursor) -> int | None:
    """The integer a literal argument (possibly converted) spells, else None."""
    while cursor.kind == K.UNEXPOSED_EXPR and len(list(cursor.get_children())) == 1:
        cursor = list(cursor.get_children())[0]
    if cursor.kind != K.INTEGER_LITERAL:
        return None
    text = tokens_text(cursor).rstrip("uUlL")
    try:
        return int(text, 0)
    except ValueError:
        return None


def barrier_wait_statement(cursor: ci.Cursor) -> ir.Stmt | None:
    """``bar.arrive_and_wait();`` or ``bar.wait(token);`` on a block-scoped ``cuda::barrier``: the
    block barrier, as ``__syncthreads()`` (the arrival is part of it).  None for any other
    statement."""
    found = barrier_method(cursor)
    if found is None or found[0] not in BARRIER_WAITS:
        return None
    return ir.Barrier(loc=location(cursor))


def _barrier_call(conv, cursor: ci.Cursor, name: str, args: list[ci.Cursor], loc) -> ir.Expr | None:
    """A call of a ``cuda::barrier`` member or of ``init`` in an expression: ``init(&bar, n)``
    checks at run time that ``n`` is the block's thread count (``moccuda::init_block_barrier``),
    ``bar.arrive()`` is kept (it only hands out the token); a wait used as a value is a located
    error.  None when the call is neither."""
    found = barrier_method(cursor)
    if found is not None:
        if found[0] in BARRIER_WAITS:
            raise unsupported(loc, f"cuda::barrier::{found[0]}() used as a value or in an expression (write it as a "
                                   "statement of its own: it is the block barrier, as __syncthreads())")
        return None
    if name != "init" or len(args) not in (2, 3):
        return None
    barrier_type = _plain(args[0].type.get_canonical()).rstrip("*").strip()
    if CUDA_BARRIER.fullmatch(barrier_type) is None:
        return None
    check_block_barrier(barrier_type, loc)
    if len(args) == 3:
        raise unsupported(loc, "init(&bar, n, completion): a cuda::barrier with a completion function")
    where = ir.Literal('"' + str(loc).replace("\\", "\\\\").replace('"', '\\"') + '"', loc=loc)
    return ir.Call("moccuda::init_block_barrier", (conv.expr(args[0]), conv.expr(args[1]),
                                                   ir.BuiltinVector("blockDim", loc=loc), where), loc=loc)


def _dependent_callee(children: list[ci.Cursor]) -> str:
    """The name a call in a template names through overload resolution still to come."""
    node = children[0] if children else None
    while node is not None and node.kind in (K.DECL_REF_EXPR, K.UNEXPOSED_EXPR):
        inner = [c for c in node.get_children() if c.kind != K.NAMESPACE_REF]  # cg::reduce
        node = inner[0] if len(inner) == 1 else None
    return node.spelling if node is not None and node.kind == K.OVERLOADED_DECL_REF else ""


def _dependent_member(callee: ci.Cursor, loc) -> str:
    """The member a call in a template names (libclang leaves it unnamed): the token after the
    last ``.``."""
    tokens = [t.spelling for t in callee.get_tokens()]
    if len(tokens) >= 3 and tokens[-2] in (".", "->") and tokens[-1].isidentifier():
        return tokens[-1]
    raise unsupported(loc, "a cooperative-groups member call in a template, written through a macro")


def _result_type(cursor: ci.Cursor, args: list[ci.Cursor]) -> str:
    """The type a tile collective exchanges: its result's (in a template, its value's)."""
    spelling = _plain(cursor.type)
    return spelling if "dependent" not in spelling else _plain(args[0].type)


def _value_type(cursor: ci.Cursor, ref: ci.Cursor | None, args: list[ci.Cursor], index: int) -> str:
    """The type a collective exchanges: the parameter's type of the chosen overload, else (in a
    template) the argument's type as written."""
    if ref is not None and ref.kind == K.FUNCTION_DECL:
        params = list(ref.type.argument_types())
        if index < len(params):
            return _plain(params[index])
    spelling = _plain(args[index].type)
    return _element_type(args[index]) or spelling if "dependent" in spelling else spelling


def _element_type(arg: ci.Cursor) -> str | None:
    """In a template, ``x[c][i]`` with ``x`` a ``float x[kN][kM]`` parameter: clang leaves the
    element's type dependent (the bounds are), though it is ``float``.  Peel one subscript off
    the base's type, when that type is spelled; else None."""
    while arg.kind == K.UNEXPOSED_EXPR and len(list(arg.get_children())) == 1:
        arg = next(arg.get_children())
    if arg.kind != K.ARRAY_SUBSCRIPT_EXPR:
        return None
    base = _plain(next(arg.get_children()).type)
    if base.endswith("]") and "(" not in base:
        first = base.index("[")
        element = (base[:first] + base[base.index("]", first) + 1:]).strip()
    elif base.endswith("*") and "(" not in base:
        element = base[:-1].strip()
    else:
        return None
    return element if element and "dependent" not in element and "[" not in element else None


def _intrinsic(conv, cursor: ci.Cursor, name: str, args: list[ci.Cursor], loc) -> ir.Expr:
    op, combine = WARP_INTRINSICS[name]
    exprs = [e for e in (conv.expr_or_none(a) for a in args) if e is not None]  # defaults are implicit
    mask = exprs[0] if exprs else ir.Literal(FULL_MASK, loc=loc)
    if op in ("shfl", "shfl_up", "shfl_down", "shfl_xor"):
        width = exprs[3] if len(exprs) > 3 else ir.Literal("32", loc=loc)
        return ir.WarpCollective(op, mask, exprs[1], exprs[2], width,
                                 _value_type(cursor, cursor.referenced, args, 1), loc=loc)
    width = ir.Literal("32", loc=loc)
    if op in ("ballot", "any", "all"):
        return ir.WarpCollective(op, mask, exprs[1], None, width, "int", loc=loc)
    if op in ("activemask", "syncwarp"):
        return ir.WarpCollective(op, mask, None, None, width, "int", loc=loc)
    if op == "match_any":
        return ir.WarpCollective(op, mask, exprs[1], None, width, _value_type(cursor, cursor.referenced, args, 1),
                                 loc=loc)
    if op == "match_all":
        return ir.WarpCollective(op, mask, exprs[1], exprs[2], width,
                                 _value_type(cursor, cursor.referenced, args, 1), loc=loc)
    return ir.WarpCollective(op, mask, exprs[1], None, width, _value_type(cursor, cursor.referenced, args, 1),
                             combine, loc=loc)


def _grid_method(method: str, loc) -> ir.Expr:
    """A member of the grid of a cooperative launch (``grid_group``): ``sync()`` is a grid-scope
    collective (``warp-collectives`` and ``grid-sync`` lower it), ``is_valid()`` asks the runtime
    whether the launch was cooperative, the rest is index arithmetic."""
    def b(var: str, dim: str) -> ir.Expr:
        return ir.Builtin(var, dim, loc=loc)

    def wide(e: ir.Expr) -> ir.Expr:
        return ir.Cast("unsigned long long", e, "static", loc=loc)

    zy = ir.Binary("+", ir.Binary("*", b("blockIdx", "z"), b("gridDim", "y"), loc=loc), b("blockIdx", "y"), loc=loc)
    block_rank = ir.Binary("+", ir.Binary("*", wide(zy), b("gridDim", "x"), loc=loc), b("blockIdx", "x"), loc=loc)
    blocks = ir.Binary("*", ir.Binary("*", wide(b("gridDim", "x")), b("gridDim", "y"), loc=loc), b("gridDim", "z"),
                       loc=loc)
    if method == "sync":
        return ir.WarpCollective("sync", None, None, None, ir.Literal("32", loc=loc), "int", scope="grid", loc=loc)
    if method == "is_valid":
        return ir.Call("moccuda::cooperative::grid_is_valid", (), loc=loc)
    if method == "block_rank":
        return block_rank
    if method == "num_blocks":
        return blocks
    if method == "thread_rank":
        return ir.Binary("+", ir.Binary("*", block_rank, ir.block_thread_count(loc), loc=loc),
                         ir.flat_thread_index(loc), loc=loc)
    if method in ("size", "num_threads"):
        return ir.Binary("*", blocks, ir.block_thread_count(loc), loc=loc)
    vectors = {"block_index": "blockIdx", "dim_blocks": "gridDim", "group_dim": "blockDim"}
    if method in vectors:
        return ir.BuiltinVector(vectors[method], loc=loc)
    raise unsupported(loc, f"grid_group::{method}()")


def _any_group_method(method: str, group: ir.Expr, loc) -> ir.Expr:
    """``thread_rank``, ``size`` and ``num_threads`` of a ``thread_group`` (a group of a kind
    known at run time): its ``tile`` is a tile's size, 0 for the whole block.  Its ``sync()`` is
    a statement (:func:`group_sync_statement`)."""
    tile = ir.Member(group, "tile", False, loc=loc)
    is_tile = ir.Binary("!=", tile, ir.Literal("0u", loc=loc), loc=loc)
    flat = ir.flat_thread_index(loc)

    def wide(e: ir.Expr) -> ir.Expr:
        return ir.Cast("unsigned long long", e, "static", loc=loc)

    if method == "thread_rank":
        in_tile = ir.Binary("&", flat, ir.Binary("-", tile, ir.Literal("1u", loc=loc), loc=loc), loc=loc)
        return wide(ir.Conditional(is_tile, in_tile, flat, loc=loc))
    if method in ("size", "num_threads"):
        return wide(ir.Conditional(is_tile, tile, ir.block_thread_count(loc), loc=loc))
    if method == "sync":
        raise unsupported(loc, "thread_group::sync() inside an expression (write it as a statement)")
    raise unsupported(loc, f"thread_group::{method}() (thread_rank, size, num_threads and sync are supported)")


#: nvcuda::wmma's warp-collective memory operations (mma.h): each waits for the whole warp, then
#: the warp reads or writes the tile.
WMMA_MEMORY_SYNCS = ("load_matrix_sync", "store_matrix_sync")


def wmma_memory_call(cursor: ci.Cursor) -> bool:
    """Is ``cursor`` (through implicit wrappers) a call of MocCUDA's ``wmma::load_matrix_sync``
    or ``wmma::store_matrix_sync``?"""
    while cursor.kind == K.UNEXPOSED_EXPR and len(list(cursor.get_children())) == 1:
        cursor = list(cursor.get_children())[0]
    return cursor.kind == K.CALL_EXPR and cursor.spelling in WMMA_MEMORY_SYNCS and _from_runtime(cursor.referenced)


def wmma_memory_statement(conv, cursor: ci.Cursor) -> list[ir.Stmt] | None:
    """``wmma::load_matrix_sync(...);`` or ``wmma::store_matrix_sync(...);``: the call between two
    syncs of the whole warp.  In MocCUDA every lane reads or writes the whole tile (mma.h), so the
    lanes' stores before the operation must all be done before any lane reads the tile, and every
    lane's read or write of it done before any lane goes on (and stores into memory the tile
    covers), as when the warp runs the operation together on a GPU.  None for any other
    statement."""
    if not wmma_memory_call(cursor):
        return None
    loc = location(cursor)

    def warp_sync() -> ir.Stmt:
        return ir.ExprStmt(ir.WarpCollective("syncwarp", ir.Literal(FULL_MASK, loc=loc), None, None,
                                             ir.Literal("32", loc=loc), "int", loc=loc), loc=loc)

    return [warp_sync(), ir.ExprStmt(conv.wmma_call(cursor), loc=loc), warp_sync()]


def group_sync_statement(conv, cursor: ci.Cursor) -> ir.Stmt | None:
    """``g.sync();`` or ``cg::sync(g);`` on a ``thread_group``: a barrier when ``g`` is the
    whole block, a synchronization of its tile's lanes otherwise (``if (g.tile == 0)
    __syncthreads(); else __syncwarp of the tile``).  None for any other statement."""
    call = cursor
    while call.kind == K.UNEXPOSED_EXPR and len(list(call.get_children())) == 1:
        call = list(call.get_children())[0]
    if call.kind != K.CALL_EXPR or call.spelling != "sync":
        return None
    children = list(call.get_children())
    callee = children[0] if children else None
    while callee is not None and callee.kind == K.UNEXPOSED_EXPR and len(list(callee.get_children())) == 1:
        callee = list(callee.get_children())[0]
    if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
        objects = [c for c in callee.get_children() if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
    else:
        objects = list(call.get_arguments())
    if len(objects) != 1 or _group_type(objects[0]) != CG + "thread_group":
        return None
    loc = location(call)
    tile = ir.Member(conv.expr(objects[0]), "tile", False, loc=loc)
    block = ir.ExprStmt(ir.WarpCollective("sync", None, None, None, ir.Literal("32", loc=loc), "int", scope="block",
                                          loc=loc), loc=loc)
    lanes = ir.ExprStmt(ir.WarpCollective("syncwarp", ir.Literal(FULL_MASK, loc=loc), None, None, tile, "int",
                                          loc=loc), loc=loc)
    return ir.If(ir.Binary("==", tile, ir.Literal("0u", loc=loc), loc=loc), block, lanes, loc=loc)


def _coalesced_method(conv, cursor: ci.Cursor, method: str, group: ir.Expr, args: list[ci.Cursor], loc) -> ir.Expr:
    """A member of a ``coalesced_group``: its ``mask`` (the lanes that called
    ``coalesced_threads()`` together) gives the size, a thread's rank (the group's lanes below
    it), and the masks and source lanes of its collectives."""
    mask = ir.Member(group, "mask", False, loc=loc)
    lane = ir.Binary("&", ir.flat_thread_index(loc), ir.Literal("31u", loc=loc), loc=loc)
    below = ir.Binary("-", ir.Binary("<<", ir.Literal("1u", loc=loc), lane, loc=loc), ir.Literal("1u", loc=loc),
                      loc=loc)

    def count(bits: ir.Expr) -> ir.Expr:
        return ir.Cast("unsigned long long", ir.Call("__popc", (bits,), loc=loc), "static", loc=loc)

    width = ir.Literal("32", loc=loc)
    if method == "thread_rank":
        return count(ir.Binary("&", mask, below, loc=loc))
    if method in ("size", "num_threads"):
        return count(mask)
    if method == "meta_group_rank":
        return ir.Literal("0ull", loc=loc)
    if method == "meta_group_size":
        return ir.Literal("1ull", loc=loc)
    if method == "sync":
        return ir.WarpCollective("syncwarp", mask, None, None, width, "int", loc=loc)
    exprs = [conv.expr(a) for a in args]
    if method == "shfl":
        source = ir.Call("moccuda::warp::coalesced_lane", (mask, exprs[1]), loc=loc)
        return ir.WarpCollective("shfl", mask, exprs[0], source, width, _result_type(cursor, args), loc=loc)
    if method in ("any", "all"):
        return ir.WarpCollective(method, mask, exprs[0], None, width, "int", loc=loc)
    raise unsupported(loc, f"coalesced_group::{method}() (size, num_threads, thread_rank, sync, shfl, any and all "
                           "are supported)")


def _method(conv, cursor: ci.Cursor, method: str, group_type: str, args: list[ci.Cursor], loc) -> ir.Expr:
    if group_type == CG + "grid_group":
        return _grid_method(method, loc)
    n = _tile_size(group_type, loc)
    flat = ir.flat_thread_index(loc)
    if method in ("sync", "thread_rank", "size", "num_threads") and n is None:
        if method == "sync":
            return ir.WarpCollective("sync", None, None, None, ir.Literal("32", loc=loc), "int", scope="block",
                                     loc=loc)
        if method == "thread_rank":
            return flat
        return ir.block_thread_count(loc)
    if n is None:
        vectors = {"group_index": "blockIdx", "thread_index": "threadIdx", "group_dim": "blockDim",
                   "dim_threads": "blockDim"}
        if method in vectors:
            return ir.BuiltinVector(vectors[method], loc=loc)
        raise unsupported(loc, f"thread_block::{method}()")
    width = n
    if _several_warps(width) and method not in MULTI_WARP_METHODS:
        raise unsupported(loc, f"thread_block_tile<{width.text}>::{method}(): a tile of several warps offers "
                               f"{', '.join(MULTI_WARP_METHODS)} and cg::reduce")
    if _several_warps(width) and method == "sync":  # the tiles of a block synchronize at its barrier
        return ir.WarpCollective("sync", None, None, None, ir.Literal("32", loc=loc), "int", scope="block", loc=loc)
    if isinstance(width, ir.Name) and method not in MULTI_WARP_METHODS:
        # A size that is a template's parameter: compile mode refuses an instance of several warps.
        width = ir.Call(f"{CG}lane_exchange_width<{width.name}>", (), loc=loc)
    full = ir.Literal(FULL_MASK, loc=loc)
    below = ir.Binary("-", width, ir.Literal("1", loc=loc), loc=loc)
    if method == "thread_rank":
        return ir.Binary("&", flat, below, loc=loc)
    if method in ("size", "num_threads"):
        return ir.Cast("unsigned", width, "static", loc=loc)
    if method == "meta_group_rank":
        return ir.Binary("/", flat, width, loc=loc)
    if method == "meta_group_size":
        total = ir.Binary("+", ir.block_thread_count(loc), below, loc=loc)
        return ir.Binary("/", total, width, loc=loc)
    if method == "sync":
        return ir.WarpCollective("syncwarp", full, None, None, width, "int", loc=loc)
    exprs = [conv.expr(a) for a in args]
    if method in ("shfl", "shfl_up", "shfl_down", "shfl_xor"):
        return ir.WarpCollective(method, full, exprs[0], exprs[1], width, _result_type(cursor, args), loc=loc)
    if method in ("any", "all", "ballot"):
        return ir.WarpCollective(method, full, exprs[0], None, width, "int", loc=loc)
    if method == "match_any":
        return ir.WarpCollective(method, full, exprs[0], None, width, _plain(args[0].type), loc=loc)
    if method == "match_all":
        return ir.WarpCollective(method, full, exprs[0], ir.Unary("&", exprs[1], loc=loc), width,
                                 _plain(args[0].type), loc=loc)
    raise unsupported(loc, f"thread_block_tile::{method}()")


def _operator_object(conv, arg: ci.Cursor, loc) -> ir.Expr:
    """The operator of a ``cg::reduce``: the expression, or, for a temporary of a type the
    converter cannot represent in a template (``Op<T>()`` with ``Op`` a template template
    parameter), that type as written, constructed."""
    inner = arg
    while inner.kind == K.UNEXPOSED_EXPR and len(list(inner.get_children())) == 1:
        inner = list(inner.get_children())[0]
    if inner.kind == K.LAMBDA_EXPR:
        # A lambda without captures reads only its parameters and globals: its text is the same
        # wherever phase B evaluates it, so it is kept as written (a closure literal).
        tokens = list(inner.get_tokens())
        if [t.spelling for t in tokens[:2]] != ["[", "]"]:
            raise unsupported(loc, "cg::reduce with a lambda that captures (pass a functor object, or a lambda "
                              "with an empty capture list)")
        return ir.Literal(tokens_text(tokens), loc=loc)
    try:
        return conv.expr(arg)
    except CompileError:
        tokens = list(arg.get_tokens())
        if len(tokens) < 3 or [t.spelling for t in tokens[-2:]] not in (["(", ")"], ["{", "}"]):
            raise
        return ir.Construct(tokens_text(tokens[:-2]), (), braces=tokens[-1].spelling == "}", loc=loc)


def _group_copy(conv, args: list[ci.Cursor], loc) -> ir.Expr:
    """``cg::memcpy_async(group, dst, src, bytes)``: a plain copy by the group's first thread
    (``moccuda::group_copy``); ``cg::wait(group)``, the group's barrier, makes it visible to the
    others, as the asynchronous copy is on a GPU."""
    if len(args) != 4:
        raise unsupported(loc, "cg::memcpy_async with a layout (shape) argument (write it as "
                               "memcpy_async(group, dst, src, bytes))")
    group_type = _group_type(args[0])
    if group_type == CG + "thread_group":
        rank = _any_group_method("thread_rank", conv.expr(args[0]), loc)
    elif group_type == CG + "coalesced_group" or group_type == CG + "grid_group":
        raise unsupported(loc, f"cg::memcpy_async over a {group_type.removeprefix(CG)} (over a thread block or a tile)")
    else:
        rank = _method(conv, None, "thread_rank", group_type, [], loc)
    leader = ir.Binary("==", rank, ir.Literal("0", loc=loc), loc=loc)
    return ir.Call("moccuda::group_copy", (leader, *(conv.expr(a) for a in args[1:])), loc=loc)


def _free_function(conv, cursor: ci.Cursor, name: str, args: list[ci.Cursor], loc) -> ir.Expr | None:
    if name in ("this_thread_block", "tiled_partition"):
        # Makes a group value (compile mode defines the function): spelled fully qualified, so
        # that the uniformity analysis knows it for the same in every thread of the block.
        callee = conv.expr(cursor.get_children().__iter__().__next__())
        if not isinstance(callee, ir.Name) or name not in callee.name:
            return None
        spelled = callee.name[callee.name.index(name):]
        return ir.Call(CG + spelled, tuple(conv.expr(a) for a in args), loc=loc)
    if name == "this_grid":
        return None  # makes a group value: kept as written (compile mode defines it)
    if name == "coalesced_threads":
        # The lanes that reach the call together: __activemask() there.
        active = ir.WarpCollective("activemask", ir.Literal(FULL_MASK, loc=loc), None, None, ir.Literal("32", loc=loc),
                                   "int", loc=loc)
        return ir.Construct(CG + "coalesced_group", (active,), loc=loc)
    if name in ("wait", "wait_prior") and len(args) == 1:
        # The group's copies are complete and visible to all of its threads: its barrier (the
        # copies themselves were made at cg::memcpy_async).
        name = "sync"
    if name == "sync" and len(args) == 1 and _group_type(args[0]) == CG + "coalesced_group":
        return _coalesced_method(conv, cursor, "sync", conv.expr(args[0]), [], loc)
    if name == "sync" and len(args) == 1:
        return _method(conv, cursor, "sync", _group_type(args[0]), [], loc)
    if name == "memcpy_async":
        return _group_copy(conv, args, loc)
    if name == "reduce" and len(args) == 3:
        # A group whose type is a function template's parameter: its size, which compile mode's
        # reduce_width reads from the group object (only a thread_block_tile<N> has one) once the
        # inlined call has bound the parameter.
        n = ir.Call(CG + "reduce_width", (conv.expr(args[0]),), loc=loc) if _group_parameter(args[0]) is not None \
            else _tile_size(_group_type(args[0]), loc)
        if n is None:
            raise unsupported(loc, "cg::reduce over a whole thread block (reduce over a tiled_partition)")
        op_type = _group_type(args[2])
        m = re.match(r"cooperative_groups::(\w+)<", op_type) or _cooperative_groups_operator(args[2])
        value_type = _result_type(cursor, args[1:])
        # A tile of several warps reduces at a barrier of the block (where every thread of the
        # block reaches the call; elsewhere the barrier check refuses it).  A size that is a
        # template's parameter is chosen by the lowering (barrier.warp_collectives).
        scope = "block" if _several_warps(n) else "warp"
        if m is not None and m.group(1) in CG_OPERATORS:
            return ir.WarpCollective("reduce", ir.Literal(FULL_MASK, loc=loc), conv.expr(args[1]), None, n,
                                     value_type, CG_OPERATORS[m.group(1)], scope=scope, loc=loc)
        # Any other operator (a template parameter's type, a functor, a lambda): the operator
        # object itself combines the lanes' values (``combine="call"``, the object in ``operand``).
        return ir.WarpCollective("reduce", ir.Literal(FULL_MASK, loc=loc), conv.expr(args[1]),
                                 _operator_object(conv, args[2], loc), n, value_type, "call", scope=scope, loc=loc)
    raise unsupported(loc, f"cooperative_groups::{name}")
