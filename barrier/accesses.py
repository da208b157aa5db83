"""Memory accesses as the effect analysis records them: the memory objects, :class:`Access`,
and which calls touch no memory.

Memory objects are: each ``__shared__`` array, each pointer parameter (global memory), each
``__device__``/``__constant__`` variable, and "unknown" (a pointer the analysis cannot trace,
e.g. loaded from memory, returned by a call, or a reassigned local pointer); whether two of them
may alias is a fact of the kernel (:mod:`barrier.kernel_facts`).

Locals (including local arrays) are private to a thread and never part of a barrier's effects.
A reference is not a local: it names the lvalue it is bound to (a local reference, the object of
its initializer; a reference parameter, the call's argument), and a variable passed to a
parameter that may be a non-const reference (of a ``__device__`` function, or of a function the
analysis does not know) may change there.  What the analysis does not understand never reads as
private: an unknown reference names "unknown".
Calls: math functions are pure; ``atomic*`` read and write their target; a ``__device__`` function
defined in the translation unit contributes the accesses of its body through its pointer and
reference arguments (with unknown indices) and to globals; any other call reads and writes
"unknown".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property

from barrier.affine_forms import Affine
from foundation import ir
from foundation.expression_printer import print_expr


SHARED, PARAM, GLOBAL, UNKNOWN, FORMAL, PRIVATE = "shared", "param", "global", "unknown", "formal", "private"
UNKNOWN_OBJ = (UNKNOWN, 0)


@dataclass(frozen=True)
class Access:
    """One memory access: ``kind`` is "read" or "write" (a read-modify-write is both, as two
    accesses).  ``communicates`` marks an atomic or ``volatile`` access outside ``__shared__``
    memory.  ``obj`` is the memory object (``(kind, sym)``, see the module docstring);
    ``index`` is one affine form per array dimension, or None when not known."""

    kind: str
    obj: tuple[str, int]
    index: tuple[Affine, ...] | None
    expr: ir.Expr | None = field(default=None, compare=False, repr=False)
    note: str = ""  # printed after the expression: where an access inside a call happens
    loc: object = field(default=None, compare=False)
    #: an atomic or ``volatile`` access to memory other blocks see: how blocks signal each other
    #: (see :func:`barrier.conflicts.conflict`)
    communicates: bool = False

    @cached_property
    def text(self) -> str:
        """The access as written (printed only when asked for: reports and tests)."""
        return (print_expr(self.expr) if self.expr is not None else "") + self.note

    def __str__(self) -> str:
        return f"{self.kind} {self.text}"


@dataclass(frozen=True)
class Place:
    """Where an lvalue or a pointer points: the object, how many subscripts were applied
    (``depth``) out of the object's ``rank``, their affine values (``index``, None when any is
    unknown), and pointer arithmetic pending on the next dimension."""

    obj: tuple[str, int]
    rank: int
    depth: int = 0
    index: tuple[Affine, ...] | None = ()
    pending: Affine | None = Affine()
    elem_is_pointer: bool = False

    @property
    def is_element(self) -> bool:
        return self.depth >= self.rank

    def subscript(self, i: Affine | None) -> "Place":
        index = None
        if self.index is not None and self.pending is not None and i is not None:
            index = self.index + (self.pending + i,)
        return replace(self, depth=self.depth + 1, index=index, pending=Affine())

    def offset(self, k: Affine | None) -> "Place":
        pending = None if self.pending is None or k is None else self.pending + k
        return replace(self, pending=pending)

    def address_of_element(self) -> "Place":
        if self.depth == 0:
            return replace(self, index=None, pending=None)
        last = self.index[-1] if self.index else None
        return replace(self, depth=self.depth - 1, index=self.index[:-1] if self.index else None, pending=last)

    def unknown_position(self) -> "Place":
        return replace(self, index=None, pending=None)


UNKNOWN_PLACE = Place(UNKNOWN_OBJ, 1, 0, None, None)


PURE_FUNCTIONS = frozenset("""
abs labs llabs fabs fabsf fmin fminf fmax fmaxf min max umin umax llmin llmax ullmin ullmax
sqrt sqrtf rsqrt rsqrtf cbrt cbrtf rcbrt rcbrtf exp expf exp2 exp2f exp10 exp10f expm1 expm1f
log logf log2 log2f log10 log10f log1p log1pf pow powf sin sinf cos cosf tan tanf asin asinf
acos acosf atan atanf atan2 atan2f sinh sinhf cosh coshf tanh tanhf asinh asinhf acosh acoshf
atanh atanhf floor floorf ceil ceilf trunc truncf round roundf rint rintf nearbyint nearbyintf
lround lroundf llround llroundf lrint lrintf fmod fmodf remainder remainderf fma fmaf fdim fdimf
hypot hypotf erf erff erfc erfcf tgamma tgammaf lgamma lgammaf copysign copysignf isnan isinf
isfinite signbit ldexp ldexpf scalbn scalbnf ilogb ilogbf logb logbf nextafter nextafterf
norm3d norm3df rhypot rhypotf normcdf normcdff saturate
__expf __exp10f __logf __log2f __log10f __powf __sinf __cosf __tanf __fdividef __saturatef
__fsqrt_rn __frsqrt_rn __fmul_rn __fadd_rn __fsub_rn __fdiv_rn __fmaf_rn __dmul_rn __dadd_rn
__popc __popcll __clz __clzll __ffs __ffsll __brev __brevll __mul24 __umul24 __mulhi __umulhi
__sad __usad __float_as_int __int_as_float __float_as_uint __uint_as_float
__double_as_longlong __longlong_as_double
__cvta_generic_to_shared __cvta_generic_to_global __cvta_generic_to_constant __cvta_generic_to_local
__cvta_shared_to_generic __cvta_global_to_generic __cvta_constant_to_generic __cvta_local_to_generic
make_int2 make_int3 make_int4 make_uint2 make_uint3 make_uint4 make_float2 make_float3
make_float4 make_double2 make_double3 make_double4 make_char4 make_uchar4 make_short2
std::min std::max std::abs std::sqrt std::exp std::log std::pow std::fabs std::floor std::ceil
static_assert
""".split())  # static_assert: a local one is kept in the IR as a call (cuda_front.convert)

_PURE_PATTERN = re.compile(r"^__(?:[a-z]+2[a-z]+(?:_r[nzud])?|[fdh](?:add|sub|mul|div|rcp|sqrt|fma)\w*_r[nzud]"
                           r"|(?:u?ll|u?int|float|double|half)2\w+)$")
ATOMICS_PREFIX = "atomic"
READ_ONLY_LOADS = frozenset({"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"})


#: MocCUDA's semantics of translated inline PTX (cuda2cpu_ptx.h): all pure but the copy of cp.async.
PTX_PREFIX = "moccuda::__ptx_"
PTX_MEMORY = frozenset({"moccuda::__ptx_copy"})


def is_pure_function(name: str) -> bool:
    base = name.split("<", 1)[0]
    if base.startswith(PTX_PREFIX):
        return base not in PTX_MEMORY
    return base in PURE_FUNCTIONS or bool(_PURE_PATTERN.match(base))


def reads_memory_or_changes_state(n: ir.Node) -> bool:
    """``n`` itself (not counting its operands) reads memory (a subscript, ``*p``, ``p->m``),
    takes an address, changes something (an assignment, ``++``/``--``), or calls what is not a
    pure function: a value computed with it is neither recomputable elsewhere nor uniform by its
    operands alone."""
    if isinstance(n, (ir.Index, ir.Assign, ir.IndirectCall)):
        return True
    if isinstance(n, ir.Unary) and n.op in ("*", "++", "--", "&"):
        return True
    if isinstance(n, ir.Member) and n.arrow:
        return True
    return isinstance(n, ir.Call) and not is_pure_function(n.func)


callee_name = ir.callee_name

#: Library functions that take no C++ references (a variable passed to them is only read).
BY_VALUE_LIBRARY = frozenset({"printf", "assert", "__assert_fail", "__trap", "memcpy", "memset"})
#: CUDA's device functions whose parameters are values, pointers or const references: its
#: intrinsics (reserved ``__`` names: ``__hadd``, ``__float2half_rn``, ``__nv_atomic_load_n``),
#: cuComplex (``cuCmulf``), texture fetches and surface accesses (``tex1Dfetch``, ``tex2D<float>``,
#: ``surf2Dwrite``), and cooperative groups' free functions (``cg::tiled_partition<32>(block)``).
_CUDA_BY_VALUE = re.compile(r"^(?:__\w+|cuC\w+|(?:tex|surf)(?:1D|2D|3D|Cubemap)\w*)$")
_COOPERATIVE_GROUPS_BY_VALUE = frozenset({"sync", "tiled_partition", "binary_partition", "labeled_partition",
                                          "reduce", "inclusive_scan", "exclusive_scan", "wait", "wait_prior",
                                          "invoke_one", "invoke_one_broadcast"})


def by_reference_arguments(call: ir.Expr, device_bodies: dict[str, ir.DeviceFunction]) -> list[int]:
    """Variables that ``call`` may change without an assignment: those passed as they are (or a
    member of them) to a parameter that may be a non-const C++ reference, of a ``__device__``
    function in ``device_bodies`` or of a function the analysis does not know."""
    name = callee_name(call.func) if isinstance(call, ir.Call) else ""
    if name not in device_bodies and isinstance(call, ir.Call) and (
            is_pure_function(call.func) or name.startswith(ATOMICS_PREFIX) or name in READ_ONLY_LOADS
            or name in BY_VALUE_LIBRARY or _CUDA_BY_VALUE.match(name) or call.func.startswith("moccuda::")
            or "::" in call.func and name in _COOPERATIVE_GROUPS_BY_VALUE):
        return []
    fn = device_bodies.get(name) if isinstance(call, ir.Call) else None
    skip = max(len(call.args) - len(fn.params), 0) if fn is not None else 0
    changed = []
    for i, arg in enumerate(call.args):
        while isinstance(arg, ir.Member) and not arg.arrow:
            arg = arg.base
        if not isinstance(arg, ir.Name) or not arg.sym:
            continue
        if fn is not None:
            k = i - skip
            if k < 0 or k >= len(fn.params):
                continue
            t = fn.params[k].type
            if not is_reference_type(t) or t.lstrip().startswith("const ") and "*" not in t:
                continue
        changed.append(arg.sym)
    return changed


def simple_parts(node: ir.Node):
    """The simple pieces of a statement tree whose accesses :meth:`KernelFacts.accesses` reads:
    expression statements, declarations, returns, and the conditions and steps of control flow."""
    if isinstance(node, ir.Expr):
        yield node
        return
    if isinstance(node, (ir.ExprStmt, ir.VarDecl, ir.Return)):
        yield node
        return
    if isinstance(node, ir.If):
        yield node.cond
    elif isinstance(node, (ir.While, ir.DoWhile, ir.Switch)):
        yield node.cond
    elif isinstance(node, ir.For):
        if node.cond is not None:
            yield node.cond
        if node.step is not None:
            yield node.step
    elif isinstance(node, ir.Case):
        pass
    for child in node.children():
        if isinstance(child, ir.Stmt):
            yield from simple_parts(child)


def is_reference_type(t: str) -> bool:
    return "&" in t
