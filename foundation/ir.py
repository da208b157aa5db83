"""The cuda2cpu IR: kernels as structured, typed-by-spelling trees with explicit barriers.

Every node is a small frozen dataclass with a source location (``loc``, keyword-only).  Passes
never mutate nodes; they build new trees (``dataclasses.replace`` and the helpers below).

Layers, from the front end to the emitter:

* Expressions (:class:`Expr` subclasses) mirror C++ expressions.  ``threadIdx.x`` and friends are
  :class:`Builtin` nodes, variable uses are :class:`Name` nodes carrying the *symbol id* of their
  declaration (two variables named ``i`` in different scopes have different ids), so analyses
  can reason about identity without re-resolving names.
* Statements (:class:`Stmt` subclasses) are structured control flow.  ``__syncthreads()`` is a
  :class:`Barrier` statement; ``__shared__`` declarations are :class:`VarDecl` with
  ``storage="shared"`` (or ``"shared_dynamic"`` for ``extern __shared__ T a[]``).
* :class:`Kernel` and :class:`DeviceFunction` hold a function's signature and body.
* After ``omp-lower`` the kernel body is a :class:`GridLoop` (the parallel loop over blocks,
  holding per-block shared storage) whose body contains :class:`ThreadLoop` nodes (the serial
  loop over a block's threads).  Values kept across a split barrier are :class:`KeptVar` entries
  of the thread loops that use them.

Types are kept as C++ spellings (``"float *"``, ``"T"``), which is exactly what the emitter needs
and keeps templates templated: the C++ compiler instantiates the emitted templates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Iterator

from foundation.diagnostics import UNKNOWN_LOC, SourceLoc


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """Names of a node class's fields other than ``loc`` (cached: walks are hot paths)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls) if f.name != "loc")
    return names


def _loc() -> SourceLoc:
    return field(default=UNKNOWN_LOC, kw_only=True, compare=False, repr=False)


@dataclass(frozen=True)
class Node:
    loc: SourceLoc = _loc()

    def children(self) -> Iterator["Node"]:
        """The direct child nodes, in source order."""
        return iter(_child_tuple(self))

    def walk(self) -> Iterator["Node"]:
        """This node and all nodes below it, pre-order.  Keeps its own stack: a recursive
        generator would cost each node the depth of the tree and nest C calls as deep."""
        pending = [self]
        while pending:
            node = pending.pop()
            yield node
            below = node.__dict__.get("_children") or _child_tuple(node)
            if below:
                pending.extend(reversed(below))


def _child_tuple(node: Node) -> tuple[Node, ...]:
    """``node.children()``: the walks of every analysis run through here, so a node finds its
    children once (it never changes: the passes build new nodes) and keeps them with it, outside
    its fields (not compared, not printed)."""
    found = node.__dict__.get("_children")
    if found is not None:
        return found
    names = _FIELD_NAMES.get(type(node)) or _field_names(type(node))
    found = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, Node):
            found.append(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    found.append(item)
    found = tuple(found)
    object.__setattr__(node, "_children", found)
    return found


# ----------------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr(Node):
    pass


@dataclass(frozen=True)
class Literal(Expr):
    text: str  # the literal as spelled: 1, 2.0f, 'a', "s", true, nullptr


@dataclass(frozen=True)
class Name(Expr):
    """A use of a declared entity.  ``sym`` identifies the declaration (see :class:`Symbol`)."""

    name: str
    sym: int = 0


@dataclass(frozen=True)
class Builtin(Expr):
    """``threadIdx.x``, ``blockDim.y``, ..., or ``warpSize`` (``dim`` is then "")."""

    var: str  # threadIdx | blockIdx | blockDim | gridDim | warpSize
    dim: str  # x | y | z | ""


@dataclass(frozen=True)
class BuiltinVector(Expr):
    """A whole builtin vector used as a value, e.g. ``dim3 b = blockDim``."""

    var: str


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # + - ! ~ * & ++ -- (prefix), or ++ -- with postfix=True
    operand: Expr
    postfix: bool = False


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # arithmetic, comparison, logical, bitwise, comma
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Assign(Expr):
    op: str  # = += -= *= /= %= <<= >>= &= |= ^=
    target: Expr
    value: Expr


@dataclass(frozen=True)
class Conditional(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class Call(Expr):
    """A call.  ``func`` is the callee as spelled (``sum``, ``atomicAdd``, ``f<T>``, ``ns::g``);
    ``sym`` is the symbol id of a function defined in this translation unit, else 0."""

    func: str
    args: tuple[Expr, ...]
    sym: int = 0
    #: A call of a function template: the template arguments clang deduced (or that were written),
    #: ``<int, 3>``; "" otherwise or where they depend on the caller's own template parameters.
    template_args: str = ""
    #: A call of a static member function of a class of the program (``C<T>::f(x)``): the key of
    #: its overload set (:func:`member_key`), and the class as the call spells it (``C<T>``).
    member: str = ""
    receiver_type: str = ""
    #: The declaration the call resolved to, where the callee's name is overloaded
    #: (``cuda_front.convert.resolved_declaration``: a function's or function template's USR);
    #: "" when it is not overloaded or the call does not tell which overload it means.
    decl: str = ""
    #: A call of the standard library's math function: the ``moccuda::device_math`` function it
    #: means, which device code calls for SIMD loops (``cuda_front.standard_math``):
    #: ``moccuda::device_math::erff`` for ``std::erf`` on a float, or in a template, on arguments
    #: of dependent type, ``moccuda::device_math::cmath::erf``; "" otherwise.
    device_math: str = ""


#: The callee of a failing device ``assert`` (the front end's translation of ``__assert_fail`` in
#: device code; MocCUDA's cuda2cpu_device.h): it reports the block and thread, and ends the thread
#: with the context's sticky cudaErrorAssert.  The emitter wraps code that can reach it.
DEVICE_ASSERT_FAIL = "moccuda::device_assert_fail"
#: The callee of C's ``clock()`` in device code: CUDA's per-thread cycle counter, ticking at the
#: device's clock rate (the C library's ``clock()`` is the process's CPU time in microseconds).
DEVICE_CLOCK = "moccuda::clock_ticks"


@dataclass(frozen=True)
class IndirectCall(Expr):
    """A call through an expression (a function pointer or a callable object), or of a member
    function (``callee`` is then a :class:`Member`: ``obj.f``, ``p->f``, ``this->f``)."""

    callee: Expr
    args: tuple[Expr, ...]
    #: A call of a member function of a class of the program: the key of its overload set
    #: (:func:`member_key`), the object's class as spelled (``Exchange<int, B>``) and the template
    #: arguments written after the function's name (``<true, false>``), if any.
    member: str = ""
    receiver_type: str = ""
    template_args: str = ""


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(frozen=True)
class Member(Expr):
    base: Expr
    member: str
    arrow: bool = False


@dataclass(frozen=True)
class Cast(Expr):
    """``style`` is c | static | reinterpret | const | functional."""

    type: str
    operand: Expr
    style: str = "c"


@dataclass(frozen=True)
class Construct(Expr):
    """``T(args)`` or ``T{args}`` (``braces``) for a class or vector type."""

    type: str
    args: tuple[Expr, ...]
    braces: bool = False


@dataclass(frozen=True)
class InitList(Expr):
    elements: tuple[Expr, ...]


@dataclass(frozen=True)
class SizeOf(Expr):
    """``sizeof``/``alignof`` of a type (``type``) or of an expression (``operand``)."""

    op: str  # sizeof | alignof
    type: str | None = None
    operand: Expr | None = None


# ------------------------------------------------------------------------------------ statements


@dataclass(frozen=True)
class Stmt(Node):
    pass


@dataclass(frozen=True)
class Block(Stmt):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True)
class VarDecl(Stmt):
    """A variable declaration.  ``type`` is the full C++ type (arrays included: ``float[16][17]``).

    ``storage`` is "auto" (an ordinary local), "static", "shared" (``__shared__``, one per block),
    or "shared_dynamic" (``extern __shared__ T a[]``, the launch's dynamic shared memory).
    ``constexpr``: declared ``constexpr``; its initializer is a constant expression, so the
    value may be computed again anywhere in its scope, and must stay usable in constant
    expressions (``static_assert``, array extents, template arguments).
    """

    sym: int
    name: str
    type: str
    init: Expr | None = None
    storage: str = "auto"
    constexpr: bool = False


@dataclass(frozen=True)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    otherwise: Stmt | None = None
    #: ``if constexpr``: the branch not taken is discarded, not instantiated (it may not compile
    #: for the template's arguments).  A pass that replaces the condition makes a plain ``if``.
    constexpr: bool = False


@dataclass(frozen=True)
class For(Stmt):
    init: Stmt | None
    cond: Expr | None
    step: Expr | None
    body: Stmt


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass(frozen=True)
class DoWhile(Stmt):
    body: Stmt
    cond: Expr


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr | None = None


@dataclass(frozen=True)
class Barrier(Stmt):
    """``__syncthreads()``: orders the memory accesses of different threads of a block."""


@dataclass(frozen=True)
class Empty(Stmt):
    pass


@dataclass(frozen=True)
class Switch(Stmt):
    cond: Expr
    body: Stmt


@dataclass(frozen=True)
class Case(Stmt):
    """``case value: body`` (``value`` None for ``default:``)."""

    value: Expr | None
    body: Stmt


# ------------------------------------------------------------------------- lowered (OpenMP) form


@dataclass(frozen=True)
class KeptVar(Node):
    """A per-thread variable that lives across a split barrier.

    It is stored in per-block storage ``storage`` (an array indexed by the flat thread id) and
    each thread loop that touches it binds ``name`` to the thread's element by reference.
    """

    sym: int
    name: str
    type: str
    storage: str


@dataclass(frozen=True)
class ThreadLoop(Stmt):
    """The serial loop over the threads of one block (``tz``, ``ty``, ``tx`` nested).

    ``kept`` lists the kept variables this loop binds.  ``exit_flag`` names the per-block array
    recording which threads have returned (empty when no thread can return early and then meet
    a later thread loop); ``marks_exit`` says a ``return`` here sets it, ``skip_exited`` that
    threads marked by an earlier loop are skipped.
    """

    body: Block
    kept: tuple[KeptVar, ...] = ()
    exit_flag: str = ""
    marks_exit: bool = False
    skip_exited: bool = False
    #: Guards folded into the loop bounds (``guard-folding``): only threads meeting all of them run.
    bounds: tuple["ThreadBound", ...] = ()
    #: The threads' iterations carry no dependence the vectorizer must respect (``thread-simd``).
    simd: bool = False
    #: ``body`` without the guards that ``fast_bounds`` describe, run instead of it when every
    #: thread of the block passes them (``guard-folding``).
    fast_body: Block | None = None
    fast_bounds: tuple["ThreadBound", ...] = ()
    #: The thread dimensions from the outermost serial loop to the innermost (``thread-order``
    #: puts the one that indexes memory with unit stride last; any order is a valid schedule).
    nesting: tuple[str, str, str] = ("z", "y", "x")
    #: Per-block accumulators that every thread adds to with ``+=``, in any order
    #: (``reassociate-reductions``, opt-in): the loop's SIMD lanes, or OpenMP threads, each sum
    #: their own part (``reduction(+:...)``), which changes the rounding of a floating-point sum.
    sums: tuple["Name", ...] = ()
    #: A divisibility guard folded into the loop (``guard-folding``): only the threads whose
    #: index is a multiple of a divisor run, every ``divisor``-th along its dimension.
    stride: "ThreadStride | None" = None
    #: Subscripts that C++ computes in 32-bit arithmetic and that the loop also runs computed in
    #: 64 bits, behind a block-level test that the two agree for every thread (``wide-subscripts``).
    wide: tuple["WideSubscript", ...] = ()
    #: The body as a row's work and each thread's (``row-licm``): the blocks schedule computes
    #: ``row.prelude`` once per row of the innermost dimension and runs its threads' loop only
    #: where ``row.guard`` holds.  ``body`` stays the whole body, which other schedules run.
    row: "RowSplit | None" = None


@dataclass(frozen=True)
class RowSplit(Node):
    """A thread loop's body split at its innermost dimension (``row-licm``): the declarations
    ``prelude``, which no index along that dimension reaches, computed once per row; ``guard``, a
    condition of the same kind that encloses the rest of the body (None: none); ``then``, what
    each thread of the row runs where the guard holds (or always), and ``otherwise`` where it
    does not (None: nothing)."""

    prelude: tuple[VarDecl, ...]
    guard: Expr | None
    then: Block
    otherwise: Block | None = None


@dataclass(frozen=True)
class GridLoop(Stmt):
    """The OpenMP-parallel loop over the blocks of the grid.

    ``body`` runs once per block: per-block declarations (``__shared__`` arrays, kept-value
    storage) followed by thread loops.  ``dynamic_shared`` names the variables bound to the
    launch's dynamic shared memory.
    """

    body: Block
    dynamic_shared: tuple[VarDecl, ...] = ()
    #: Code kept as written reaches the block's dynamic shared memory too (an ``extern
    #: __shared__`` array in a member function, ``SharedMemory<T>``): each block binds it for
    #: ``moccuda::block_dynamic_shared()`` even without ``dynamic_shared`` declarations.
    binds_dynamic_shared: bool = False
    #: Code kept as written (a functor's ``operator()``, a member function) reads ``threadIdx``,
    #: ``blockIdx``, ``blockDim`` or ``gridDim`` as ``moccuda::ambient()``: the block sets the
    #: OpenMP thread's copy before its code and before each thread's code (never as SIMD lanes).
    sets_ambient_index: bool = False
    #: How OpenMP runs blocks and threads (``schedule`` pass): "blocks" (parallel blocks, serial
    #: threads), "nested" (parallel threads inside parallel blocks) or "flat" (one collapsed loop).
    schedule: str = "blocks"
    #: The block size (x, y, z) every launch of the kernel gives (``constant-block``): the kernel
    #: declares ``blockDim`` as these constants instead of the launch's, which lets gcc unroll and
    #: drop thread loops of one iteration.  None: the launch's.
    block_extent: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class ThreadBound(Node):
    """Threads ``t`` along ``dim`` (x, y or z) run only while ``first + t < limit`` (``<=`` when
    ``inclusive``), where ``first`` is the guarded index at ``t = 0``: a guard such as
    ``if (i < n)`` folded into the thread loop's bound so that the loop stays vectorizable.
    A ``lower`` bound is the other side: threads run only while ``first + t >= limit`` (``>``
    when not ``inclusive``), so the loop starts past the threads that fail it."""

    dim: str
    first: Expr
    limit: Expr
    inclusive: bool = False
    lower: bool = False


@dataclass(frozen=True)
class ThreadStride(Node):
    """Threads ``t`` along ``dim`` run only where ``(first + t) % divisor == 0``, ``first`` the
    guarded index at ``t = 0``: a guard such as ``if ((tx + 1) % i == 0)`` folded into a thread
    loop that starts at the first such thread and steps by ``divisor``.  Folded only where
    ``divisor > 0`` and ``first >= 0`` are known, so the threads are those of the mathematical
    remainder whatever types the guard computed it in."""

    dim: str
    first: Expr
    divisor: Expr


@dataclass(frozen=True)
class WideSubscript(Node):
    """``subscript``, a thread loop's array subscript of a 32-bit type (``signed`` or not), is
    ``exact`` in terms of the block's values and ``threadIdx`` (the loop's locals replaced by
    their initializers), affine in the thread indices with the constant ``step`` along ``dim``,
    the loop's innermost dimension.  Where the exact value of ``exact``, computed without
    wrapping, lies in the type's range at every corner of the loop's threads, it is the value
    C++ computes, and the loop may compute it in 64 bits: ``exact`` at the loop's first thread
    along ``dim``, plus ``step`` per thread (pass ``wide-subscripts``)."""

    subscript: Expr
    exact: Expr
    #: ``subscript`` with only the loop's locals that depend on ``threadIdx.<dim>`` replaced by
    #: their initializers: what the loop's copy evaluates at its first thread along ``dim``.
    along: Expr
    signed: bool
    dim: str
    step: int


# --------------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Param(Node):
    sym: int
    name: str
    type: str
    default: str = ""  # the default argument as written (``= NULL``'s ``NULL``), or ""
    #: The default argument as IR, for inlining a call that leaves it out (``tx = threadIdx.x``);
    #: None where there is none or the converter cannot represent it.
    default_value: Expr | None = None


@dataclass(frozen=True)
class Symbol:
    """What a symbol id stands for.  ``kind``: local | param | shared | global | function."""

    sym: int
    name: str
    type: str
    kind: str
    loc: SourceLoc = UNKNOWN_LOC


@dataclass(frozen=True)
class LocalType(Node):
    """A class, struct, union or enum defined inside a kernel, as written (``text``, with its
    ``;``).  It is declared at the top of the translated kernel: the lowering may split the
    scope it stood in, and per-thread storage of its type is declared outside that scope."""

    text: str


@dataclass(frozen=True)
class Kernel(Node):
    """A ``__global__`` function.  ``template`` is its template header as written, or ""."""

    name: str
    params: tuple[Param, ...]
    body: Stmt
    template: str = ""
    qualifiers: str = ""  # e.g. 'static' or 'extern "C"', kept as written
    #: The template's parameters passed on as arguments (``<T, N>``, ``<Ts...>``), or "".
    template_args: str = ""
    #: An explicit specialization (``template <> __global__ void k<float>(float *)``): its
    #: template arguments as written (``<float>``), printed after the name; ``template`` is then
    #: ``template <>``.
    specialization: str = ""
    #: The types the kernel defines in its body (:class:`LocalType`), in source order.
    local_types: tuple[LocalType, ...] = ()


@dataclass(frozen=True)
class DeviceFunction(Node):
    """A ``__device__`` function that needs translation (it uses builtin indices).

    ``builtins`` lists the builtin vectors it reads (directly or through callees), which become
    leading parameters of the translated function.
    """

    name: str
    return_type: str
    params: tuple[Param, ...]
    body: Stmt
    builtins: tuple[str, ...] = ()
    template: str = ""
    qualifiers: str = ""
    #: An explicit specialization (``template <> float mul<float>(float a, float b)``): its
    #: template arguments as written after the name (``<float>``), or ``<>`` where C++ deduces
    #: them (``template <> float mul(float a, float b)``); "" for any other function.
    specialization: str = ""
    #: Declared ``__host__ __device__``: host code may call it too.
    host: bool = False


@dataclass(frozen=True)
class MemberFunction(DeviceFunction):
    """A member function of a class of the program, for inlining where it synchronizes.  A
    non-static one has a first parameter ``self`` (``this``), a pointer to ``class_text``; its
    body reads the members through it (``self->m``).  ``class_text`` is the class as its own
    members name it, with its template parameters (``::ns::Exchange<T, N>``), ``class_template``
    the class's template header ("" for a class that is not a template), ``template`` the member
    template's own."""

    class_text: str = ""
    class_template: str = ""
    static: bool = False
    virtual: bool = False


def member_key(class_usr: str, name: str) -> str:
    """The key of the overload set ``name`` of the class whose (primary template's) USR is
    ``class_usr``."""
    return f"{class_usr}::{name}"


@dataclass(frozen=True)
class Program(Node):
    """The device code of one translation unit."""

    kernels: tuple[Kernel, ...]
    device_functions: tuple[DeviceFunction, ...] = ()


BUILTIN_TYPES = {"threadIdx": "uint3", "blockIdx": "uint3", "blockDim": "dim3", "gridDim": "dim3"}


# ------------------------------------------------------------------------------------- helpers


def map_children(node: Node, fn) -> Node:
    """Rebuild ``node`` with ``fn`` applied to each direct child node (tuples element-wise)."""
    changes = {}
    for name in _field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            new = fn(value)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple) and any(isinstance(v, Node) for v in value):
            new_tuple = tuple(fn(v) if isinstance(v, Node) else v for v in value)
            if any(a is not b for a, b in zip(new_tuple, value)):
                changes[name] = new_tuple
    return replace(node, **changes) if changes else node


def transform(node: Node, fn) -> Node:
    """Bottom-up rewrite: children first, then ``fn`` on the rebuilt node."""
    return fn(map_children(node, lambda child: transform(child, fn)))


def exits_from_nested_loop(node: Node, depth: int = 0) -> bool:
    """A ``return`` (or ``NextThread``) inside a loop or switch of ``node``: in a thread loop it
    leaves the user's loop too, so it prints as a jump to the end of the thread's iteration."""
    if isinstance(node, (Return, NextThread)):
        return depth > 0
    inner = depth + 1 if isinstance(node, (For, While, DoWhile, Switch)) else depth
    return any(exits_from_nested_loop(c, inner) for c in node.children())


def callee_name(func: str) -> str:
    """The function a call names, without template arguments and qualifiers: ``ns::f<T>`` -> ``f``."""
    return func.split("<", 1)[0].rsplit("::", 1)[-1]


def pass_builtins_to_calls(node: Node, needs: dict[str, tuple[str, ...]]) -> Node:
    """Calls to translated device functions get the builtin vectors they read (``needs``, by
    function name) as leading arguments."""

    def rewrite(n: Node) -> Node:
        if isinstance(n, Call) and callee_name(n.func) in needs:
            extra = tuple(BuiltinVector(v, loc=n.loc) for v in needs[callee_name(n.func)])
            return replace(n, args=extra + n.args)
        return n

    return transform(node, rewrite)


def contains(node: Node, kind: type) -> bool:
    return any(isinstance(n, kind) for n in node.walk())


def as_block(stmt: Stmt | None) -> Block:
    if stmt is None:
        return Block(())
    if isinstance(stmt, Block):
        return stmt
    return Block((stmt,), loc=stmt.loc)


# ------------------------------------------------------------------------ lowered kernel shape
#
# After ``parallel-loops`` a kernel body is a GridLoop, or (once ``parallel-licm`` hoisted
# launch-level code) a Block of that code ending in the GridLoop.


def grid_loop(kernel: Kernel) -> GridLoop | None:
    """The kernel's grid loop: its body, or the last statement of the block around it."""
    body = kernel.body
    if isinstance(body, Block) and body.stmts and isinstance(body.stmts[-1], GridLoop):
        body = body.stmts[-1]
    return body if isinstance(body, GridLoop) else None


def replace_grid_loop(kernel: Kernel, grid: GridLoop) -> Kernel:
    if isinstance(kernel.body, Block):
        return replace(kernel, body=replace(kernel.body, stmts=kernel.body.stmts[:-1] + (grid,)))
    return replace(kernel, body=grid)


def map_thread_loops(kernel: Kernel, fn) -> Kernel:
    """Rebuild ``kernel`` with ``fn`` applied to each thread loop at the top of its grid loop."""
    grid = grid_loop(kernel)
    if grid is None:
        return kernel
    stmts = tuple(fn(s) if isinstance(s, ThreadLoop) else s for s in grid.body.stmts)
    if all(a is b for a, b in zip(stmts, grid.body.stmts)):
        return kernel
    return replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=stmts)))


@dataclass(frozen=True)
class NextThread(Stmt):
    """Inside a thread loop: this thread is done with the loop (``continue`` of the thread loop,
    or a jump to its end when nested in a user loop).  ``barrier-interchange`` puts it after the
    flag assignment that stands for a ``break``/``continue`` of a loop it moved out of the
    thread loop."""


@dataclass(frozen=True)
class SimdReduction(Stmt):
    """``loop`` with its iterations run as SIMD lanes, each lane combining its values into
    ``variable`` with ``op`` and the lanes combined at the end, in no particular order
    (``#pragma omp simd reduction(op:variable)``).  Made by ``reassociate-reductions``: for
    integer sums always (exact in any order), for floating-point ones only when the user opts in
    (their rounding changes)."""

    loop: For
    op: str
    variable: Name


@dataclass(frozen=True)
class Goto(Stmt):
    """A jump to a :class:`Label` at block level (lowered ``continue`` of an interchanged loop)."""

    label: str


@dataclass(frozen=True)
class Label(Stmt):
    name: str


@dataclass(frozen=True)
class FiberLoop(Stmt):
    """The threads of one block as fibers (the fallback lowering, ``fiber-lowering``): each thread
    runs ``body`` on its own small stack, and a :class:`FiberBarrier` suspends it until every
    thread of the block that has not returned reaches a barrier."""

    body: Block


@dataclass(frozen=True)
class FiberBarrier(Stmt):
    """A synchronization inside a :class:`FiberLoop`: yield to the block's scheduler.  ``scope``
    ``"block"`` (``__syncthreads()``) waits for every thread of the block that has not returned;
    ``"warp"`` (``__syncwarp()``, a lowered warp collective, legacy lockstep order) waits only for
    the lanes of the thread's warp: until all of them wait, and then, when it can, until the lanes
    of ``mask`` within the ``width`` segment (CUDA's mask argument; None: no lane in particular)
    wait at the same ``site`` (a number distinct for each warp sync point of the kernel)."""

    scope: str = "block"
    site: int = 0
    mask: Expr | None = None
    width: Expr | None = None


# ------------------------------------------------------------------------- warp-level operations


@dataclass(frozen=True)
class WarpCollective(Expr):
    """A collective operation of the threads of a warp segment, or of the whole block.

    ``op`` is the operation: ``shfl``, ``shfl_up``, ``shfl_down``, ``shfl_xor``, ``ballot``,
    ``any``, ``all``, ``activemask``, ``match_any``, ``match_all``, ``reduce`` (with ``combine``:
    ``add``, ``min``, ``max``, ``and``, ``or``, ``xor``), ``syncwarp``; with ``scope="block"``:
    ``count``, ``and``, ``or`` (``__syncthreads_count`` / ``_and`` / ``_or``), ``sync``, and
    ``reduce`` over the ``width``-thread tiles of the block (a tile of several warps).  ``mask`` names the
    participating lanes (CUDA's first argument; all lanes for cooperative-group tiles), ``value``
    is what each thread contributes, ``operand`` the source lane, delta or lane mask of a shuffle
    (or the result pointer of ``match_all``), ``width`` the size of the lane segment (a power of two
    up to 32: a shuffle's ``width``, a ``thread_block_tile<N>``'s N; up to 1024 for a block-scope
    ``reduce``, or where the lowering gives a ``reduce`` of a size it does not know block scope).  ``type`` is the C++ type of
    ``value`` (the exchange storage's element type).

    Built by the front end; ``warp-collectives`` lowers it to an explicit exchange through
    per-block storage around a :class:`WarpSync` (or a :class:`Barrier` for block scope).
    """

    op: str
    mask: Expr | None
    value: Expr | None
    operand: Expr | None
    width: Expr
    type: str = "int"
    combine: str = ""
    scope: str = "warp"


@dataclass(frozen=True)
class WarpSync(Stmt):
    """A warp-scope synchronization point (``__syncwarp``, and the middle of every lowered warp
    collective): every thread of a warp finishes what comes before before any thread of that warp
    starts what comes after.  ``barrier-interchange`` splits thread loops here as at a
    :class:`Barrier`, but the conditions around it need only be uniform per warp (thread-dependent
    ones are predicated per thread), and after the split it advances the block's arrival
    counter ``epoch`` so that each executed collective has its own arrival stamp.  ``phase_a``:
    for the sync point of warp collectives (``warp-collectives``), how many statements just
    before it write their operands for the exchange (phase A); None for one of no collective
    (``__syncwarp``, a lockstep store's)."""

    epoch: str
    epoch_sym: int
    phase_a: int | None = None


def flat_thread_index(loc: SourceLoc = UNKNOWN_LOC) -> Expr:
    """``(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x``: the thread's rank in
    its block; lane ``i`` of warp ``w`` is the thread of rank ``32 * w + i``."""
    def b(var: str, dim: str) -> Expr:
        return Builtin(var, dim, loc=loc)

    zy = Binary("+", Binary("*", b("threadIdx", "z"), b("blockDim", "y"), loc=loc), b("threadIdx", "y"), loc=loc)
    return Binary("+", Binary("*", zy, b("blockDim", "x"), loc=loc), b("threadIdx", "x"), loc=loc)


def block_thread_count(loc: SourceLoc = UNKNOWN_LOC) -> Expr:
    """``blockDim.x * blockDim.y * blockDim.z``."""
    xy = Binary("*", Builtin("blockDim", "x", loc=loc), Builtin("blockDim", "y", loc=loc), loc=loc)
    return Binary("*", xy, Builtin("blockDim", "z", loc=loc), loc=loc)
