"""Memory effects of barriers: what a ``__syncthreads()`` orders, as data (paper Sec. III-A).

A barrier means nothing but an ordering of the memory accesses of *different* threads of a block.
Its effects are the union of the accesses of the code before it, back to the previous barrier or
the start of the parallel region (the thread loop), and of the code after it, up to the next
barrier or the end of the region.  "Before" and "after" follow structured control flow: the
analysis builds a small control-flow graph of the thread loop's body (``if``, loops with their
back edges, ``switch``, ``break``/``continue``/``return``) and collects the accesses on every path
that does not cross another barrier.

Requires: kernels in parallel-loop form (``parallel-loops``).  Produces: data only
(:class:`BarrierEffects`, :class:`Access`, :func:`conflict`); transformations live in
``barrier_elim``, ``barrier_motion``, ``store_forward`` and ``parallel_licm``.

Example::

    ThreadLoop {                                   before(b1) = {write s[tx], read a[tx]}
        s[threadIdx.x] = a[threadIdx.x];           after(b1)  = {read s[tx + 1], write b[tx]}
        __syncthreads();            // b1          conflict: write s[tx] / read s[tx + 1]
        b[threadIdx.x] = s[threadIdx.x + 1];       (thread t+1 writes what thread t reads)
    }

**Thread-private accesses.**  Two accesses conflict only if two *different* threads may touch the
same location and one of them writes.  Indices are read as affine forms in the thread indices
``tx, ty, tz`` whose coefficients and constant parts are polynomials in block-uniform values
(kernel parameters, ``blockIdx``, ``blockDim``, ``gridDim``, immutable locals defined from
those; a uniform subexpression the analysis cannot expand, such as ``n / 2``, is an opaque
uniform atom).  For two accesses ``A(t1)`` and ``B(t2)`` the question "can ``A(t1) == B(t2)`` with
``t1 != t2``?" is answered per array dimension:

* where both have the same thread coefficients ``M``, the dimension says ``M (t1 - t2) = d``; a
  dimension with ``d == 0`` whose coefficients form a *mixed radix* (each coefficient exceeds the
  span of the smaller ones, e.g. ``ty * blockDim.x + tx``, or a lone nonzero coefficient) forces
  those thread indices equal; a dimension whose ``|d|`` exceeds the span of ``M (t1 - t2)``, or
  whose integer coefficients cannot divide ``d``, has no solution at all;
* anything else (different coefficients, an index that is not affine, an opaque thread-dependent
  value, a pointer of unknown target) gives no information, i.e. the conservative answer.

If every thread index that can vary is forced equal, only the same thread can meet itself: the
accesses do not conflict.  This is how ``A[threadIdx.x]`` or ``w[ty][tx]`` on both sides of a
barrier are excluded (paper Fig. 5), while ``s[tid]`` against ``s[tid + 1]`` or against ``s[0]`` is a
conflict.  A thread index whose extent is not proven 1 can vary: a kernel that never reads
``threadIdx.z`` may still be launched with ``blockDim.z > 1``, so ``w[ty][tx]`` is injective only
when every launch site in the translation unit gives ``blockDim.z == 1``
(:mod:`cuda_front.launch_sites`).  Constant block sizes from the launch sites are used as the
extents where all launch sites agree.

**Aliasing rule.**  Memory objects are: each ``__shared__`` array, each pointer parameter (global
memory), each ``__device__``/``__constant__`` variable, and "unknown" (a pointer the analysis cannot
trace, e.g. loaded from memory, returned by a call, or a reassigned local pointer).

* distinct ``__shared__`` arrays never alias each other, nor any global memory object;
* distinct ``__device__`` variables never alias each other;
* two pointer parameters may alias, unless one of them is ``__restrict__`` or every launch site
  of the kernel in the translation unit passes them distinct ``cudaMalloc``'d variables
  (:mod:`cuda_front.launch_sites`; the translation unit is taken to hold all launches of its
  kernels, and a launch from another file is checked at run time); a pointer parameter may alias any ``__device__`` variable unless it is
  ``__restrict__``;
* "unknown" may alias everything.

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

import itertools
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from math import gcd

from transpiler import ir

THREAD_DIMS = ("x", "y", "z")


# ------------------------------------------------------------------------ polynomials and forms


@dataclass(frozen=True)
class Poly:
    """A polynomial with integer coefficients over named uniform atoms.

    ``terms`` maps a monomial (a sorted tuple of atom names; ``()`` is the constant) to its
    coefficient; zero coefficients are never stored.
    """

    terms: tuple[tuple[tuple[str, ...], int], ...] = ()

    @staticmethod
    def const(value: int) -> "Poly":
        return Poly((((), value),)) if value else Poly()

    @staticmethod
    def atom(name: str) -> "Poly":
        return Poly((((name,), 1),))

    @staticmethod
    def _of(d: dict) -> "Poly":
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c)))

    def __add__(self, other: "Poly") -> "Poly":
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, 0) + c
        return Poly._of(d)

    def __neg__(self) -> "Poly":
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def __mul__(self, other: "Poly") -> "Poly":
        d: dict = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                d[m] = d.get(m, 0) + c1 * c2
        return Poly._of(d)

    def is_zero(self) -> bool:
        return not self.terms

    def as_int(self) -> int | None:
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None

    def proven_positive(self) -> bool:
        """True when the value is > 0 for every value of the atoms.

        Only ``blockDim.*``/``gridDim.*`` (at least 1) and ``blockIdx.*`` (at least 0) have known
        signs, so: every monomial but the constant must be of such atoms with a coefficient
        >= 0, and the least value (each size 1, each block index 0) must be positive.
        """
        least = 0
        for mono, c in self.terms:
            if mono == ():
                least += c
            elif c < 0 or not all(_nonnegative_atom(a) for a in mono):
                return False
            elif not any(a.startswith("blockIdx.") for a in mono):
                least += c
        return least > 0

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for mono, c in self.terms:
            body = "*".join(mono)
            if not body:
                parts.append(str(c))
            elif c == 1:
                parts.append(body)
            elif c == -1:
                parts.append("-" + body)
            else:
                parts.append(f"{c}*{body}")
        return " + ".join(parts).replace("+ -", "- ")


def _nonnegative_atom(atom: str) -> bool:
    return atom.startswith(("blockDim.", "gridDim.", "blockIdx."))


def _positive_sign(p: Poly) -> int:
    """+1 or -1 when ``p`` is proven positive or negative, else 0."""
    if p.proven_positive():
        return 1
    if (-p).proven_positive():
        return -1
    return 0


@dataclass(frozen=True)
class Affine:
    """``sum(coef[d] * threadIdx.d) + const``, with uniform polynomial coefficients."""

    coef: tuple[Poly, Poly, Poly] = (Poly(), Poly(), Poly())
    const: Poly = Poly()

    @staticmethod
    def uniform(p: Poly) -> "Affine":
        return Affine(const=p)

    @staticmethod
    def thread(dim: str) -> "Affine":
        coef = [Poly(), Poly(), Poly()]
        coef[THREAD_DIMS.index(dim)] = Poly.const(1)
        return Affine(tuple(coef))

    def is_uniform(self) -> bool:
        return all(c.is_zero() for c in self.coef)

    def __add__(self, other: "Affine") -> "Affine":
        return Affine(tuple(a + b for a, b in zip(self.coef, other.coef)), self.const + other.const)

    def __neg__(self) -> "Affine":
        return Affine(tuple(-c for c in self.coef), -self.const)

    def __sub__(self, other: "Affine") -> "Affine":
        return self + (-other)

    def scale(self, p: Poly) -> "Affine":
        return Affine(tuple(c * p for c in self.coef), self.const * p)

    def __str__(self) -> str:
        parts = []
        for d, c in zip(THREAD_DIMS, self.coef):
            if not c.is_zero():
                parts.append(f"t{d}" if c.as_int() == 1 else f"({c})*t{d}")
        if not self.const.is_zero() or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


# -------------------------------------------------------------------------------- accesses


SHARED, PARAM, GLOBAL, UNKNOWN, FORMAL, PRIVATE = "shared", "param", "global", "unknown", "formal", "private"
UNKNOWN_OBJ = (UNKNOWN, 0)


@dataclass(frozen=True)
class Access:
    """One memory access: ``kind`` is "read" or "write" (a read-modify-write is both, as two
    accesses).  ``obj`` is the memory object (``(kind, sym)``, see the module docstring);
    ``index`` is one affine form per array dimension, or None when not known."""

    kind: str
    obj: tuple[str, int]
    index: tuple[Affine, ...] | None
    expr: ir.Expr | None = field(default=None, compare=False, repr=False)
    note: str = ""  # printed after the expression: where an access inside a call happens
    loc: object = field(default=None, compare=False)

    @cached_property
    def text(self) -> str:
        """The access as written (printed only when asked for: reports and tests)."""
        from openmp_emit.printer import print_expr

        return (print_expr(self.expr) if self.expr is not None else "") + self.note

    def __str__(self) -> str:
        return f"{self.kind} {self.text}"


@dataclass(frozen=True)
class _Place:
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

    def subscript(self, i: Affine | None) -> "_Place":
        index = None
        if self.index is not None and self.pending is not None and i is not None:
            index = self.index + (self.pending + i,)
        return replace(self, depth=self.depth + 1, index=index, pending=Affine())

    def offset(self, k: Affine | None) -> "_Place":
        pending = None if self.pending is None or k is None else self.pending + k
        return replace(self, pending=pending)

    def address_of_element(self) -> "_Place":
        if self.depth == 0:
            return replace(self, index=None, pending=None)
        last = self.index[-1] if self.index else None
        return replace(self, depth=self.depth - 1, index=self.index[:-1] if self.index else None, pending=last)

    def unknown_position(self) -> "_Place":
        return replace(self, index=None, pending=None)


_UNKNOWN_PLACE = _Place(UNKNOWN_OBJ, 1, 0, None, None)


# --------------------------------------------------------------------------------- calls


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
make_int2 make_int3 make_int4 make_uint2 make_uint3 make_uint4 make_float2 make_float3
make_float4 make_double2 make_double3 make_double4 make_char4 make_uchar4 make_short2
std::min std::max std::abs std::sqrt std::exp std::log std::pow std::fabs std::floor std::ceil
static_assert
""".split())  # static_assert: a local one is kept in the IR as a call (cuda_front.convert)

_PURE_PATTERN = re.compile(r"^__(?:[a-z]+2[a-z]+(?:_r[nzud])?|[fdh](?:add|sub|mul|div|rcp|sqrt|fma)\w*_r[nzud]"
                           r"|(?:u?ll|u?int|float|double|half)2\w+)$")
ATOMICS_PREFIX = "atomic"
READ_ONLY_LOADS = frozenset({"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"})


def is_pure_function(name: str) -> bool:
    base = name.split("<", 1)[0]
    return base in PURE_FUNCTIONS or bool(_PURE_PATTERN.match(base))


callee_name = ir.callee_name


# ------------------------------------------------------------------------------ kernel shape


# ------------------------------------------------------------------------------ kernel facts


@dataclass
class KernelFacts:
    """What the effect analysis knows about one kernel (or device function) body.

    Built by :func:`kernel_facts`; ``extents`` are the block's thread-index extents (an int when
    every launch site agrees on a constant, else None: unknown, ``blockDim.d``); ``distinct``
    holds pairs of parameter symbols proven never to alias.
    """

    symbols: dict[int, ir.Symbol]
    params: dict[int, ir.Param] = field(default_factory=dict)
    shared: dict[int, ir.VarDecl] = field(default_factory=dict)
    mutable: set[int] = field(default_factory=set)
    local_init: dict[int, ir.Expr] = field(default_factory=dict)
    local_type: dict[int, str] = field(default_factory=dict)
    #: local references: the lvalue each is bound to
    local_ref: dict[int, ir.Expr] = field(default_factory=dict)
    extents: tuple[int | None, int | None, int | None] = (None, None, None)
    distinct: set[frozenset[int]] = field(default_factory=set)
    device_bodies: dict[str, ir.DeviceFunction] = field(default_factory=dict)
    formals: dict[int, int] = field(default_factory=dict)  # param sym -> position (device functions)
    _affine_cache: dict[int, Affine | None] = field(default_factory=dict)
    _call_cache: dict[str, tuple[Access, ...] | None] = field(default_factory=dict)
    _in_progress: set[str] = field(default_factory=set)
    _access_cache: dict[int, tuple[ir.Node, list[Access]]] = field(default_factory=dict)

    # -------------------------------------------------------------------------- aliasing

    def restrict(self, sym: int) -> bool:
        p = self.params.get(sym)
        return p is not None and "restrict" in p.type

    def may_alias(self, a: tuple[str, int], b: tuple[str, int]) -> bool:
        if a[0] == UNKNOWN or b[0] == UNKNOWN or a == b:
            return True
        kinds = {a[0], b[0]}
        if SHARED in kinds:
            return False
        if kinds == {GLOBAL}:
            return False
        if kinds == {PARAM}:
            return not (self.restrict(a[1]) or self.restrict(b[1]) or frozenset((a[1], b[1])) in self.distinct)
        if kinds == {PARAM, GLOBAL}:
            param = a if a[0] == PARAM else b
            return not self.restrict(param[1])
        return True

    def extent(self, dim: int) -> Poly:
        e = self.extents[dim]
        return Poly.const(e) if e is not None else Poly.atom(f"blockDim.{THREAD_DIMS[dim]}")

    def varying_dims(self) -> list[int]:
        return [d for d in range(3) if self.extents[d] != 1]

    # -------------------------------------------------------------------- affine indices

    def affine(self, e: ir.Expr) -> Affine | None:
        """``e`` as an affine form in the thread indices, or None when it is not one."""
        if isinstance(e, ir.Literal):
            value = int_literal(e.text)
            return None if value is None else Affine.uniform(Poly.const(value))
        if isinstance(e, ir.Builtin):
            if e.var == "threadIdx":
                return Affine() if self.extents[THREAD_DIMS.index(e.dim)] == 1 else Affine.thread(e.dim)
            if e.var in ("blockIdx", "blockDim", "gridDim"):
                if e.var == "blockDim" and self.extents[THREAD_DIMS.index(e.dim)] is not None:
                    return Affine.uniform(Poly.const(self.extents[THREAD_DIMS.index(e.dim)]))
                return Affine.uniform(Poly.atom(f"{e.var}.{e.dim}"))
            return Affine.uniform(Poly.atom(e.var))  # warpSize
        if isinstance(e, ir.Name):
            return self._name_affine(e)
        if isinstance(e, ir.Cast):
            return self.affine(e.operand) if _is_integer_type(e.type) else None
        if isinstance(e, ir.Unary) and e.op in ("+", "-") and not e.postfix:
            inner = self.affine(e.operand)
            return inner if inner is None or e.op == "+" else -inner
        if isinstance(e, ir.Binary):
            return self._binary_affine(e)
        if self.is_uniform(e):
            return Affine.uniform(Poly.atom("(" + _key(e) + ")"))
        return None

    def _binary_affine(self, e: ir.Binary) -> Affine | None:
        lhs, rhs = self.affine(e.lhs), self.affine(e.rhs)
        if lhs is None or rhs is None:
            return None
        if e.op == "+":
            return lhs + rhs
        if e.op == "-":
            return lhs - rhs
        if e.op == "*":
            if lhs.is_uniform():
                return rhs.scale(lhs.const)
            if rhs.is_uniform():
                return lhs.scale(rhs.const)
            return None
        if e.op == "<<":
            shift = rhs.const.as_int() if rhs.is_uniform() else None
            if shift is not None and 0 <= shift < 31:
                return lhs.scale(Poly.const(1 << shift))
            return None
        if lhs.is_uniform() and rhs.is_uniform() and e.op in ("/", "%", ">>", "&", "|", "^"):
            return Affine.uniform(Poly.atom(f"({lhs.const}){e.op}({rhs.const})"))
        return None

    def _name_affine(self, e: ir.Name) -> Affine | None:
        sym = e.sym
        if sym in self._affine_cache:
            return self._affine_cache[sym]
        self._affine_cache[sym] = None  # guards against cycles
        result = None
        kind = self.symbols[sym].kind if sym in self.symbols else ""
        if sym and sym not in self.mutable:
            if kind == "param" and sym in self.params and _is_integer_type(self.params[sym].type):
                result = Affine.uniform(Poly.atom(f"{e.name}#{sym}"))
            elif kind == "constant":
                result = Affine.uniform(Poly.atom(f"{e.name}#{sym}"))
            elif sym in self.local_init and _is_integer_type(self.local_type.get(sym, "")):
                result = self.affine(self.local_init[sym])
        self._affine_cache[sym] = result
        return result

    def is_uniform(self, e: ir.Expr, allow_block: bool = True) -> bool:
        """Same value in every thread of a block (of the grid, with ``allow_block=False``),
        at every point of the kernel: no thread index, no memory read, no mutable variable."""
        for n in e.walk():
            if isinstance(n, (ir.Builtin, ir.BuiltinVector)):
                if n.var == "threadIdx" or (n.var == "blockIdx" and not allow_block):
                    return False
            elif isinstance(n, ir.Name):
                if not self.uniform_name(n, allow_block):
                    return False
            elif isinstance(n, (ir.Index, ir.Assign, ir.IndirectCall)):
                return False
            elif isinstance(n, ir.Unary) and n.op in ("*", "++", "--", "&"):
                return False
            elif isinstance(n, ir.Member) and n.arrow:
                return False
            elif isinstance(n, ir.Call) and not is_pure_function(n.func):
                return False
        return True

    def uniform_name(self, n: ir.Name, allow_block: bool = True) -> bool:
        sym = n.sym
        if not sym or sym in self.mutable:
            return False
        kind = self.symbols[sym].kind if sym in self.symbols else ""
        if kind in ("param", "constant", "function"):
            return True
        if sym in self.local_init:
            return self.is_uniform(self.local_init[sym], allow_block)
        return False

    # ------------------------------------------------------------------------ accesses

    def accesses(self, node: ir.Node) -> list[Access]:
        """Every shared/global memory access that ``node`` (an expression or a simple
        statement, not descending into nested statements) performs."""
        cached = self._access_cache.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        collector = _Collector(self)
        if isinstance(node, ir.Expr):
            collector.visit(node, "read")
        elif isinstance(node, ir.VarDecl):
            if node.init is not None:
                collector.visit(node.init, "read")
        elif isinstance(node, ir.ExprStmt):
            collector.visit(node.expr, "read")
        elif isinstance(node, ir.Return) and node.value is not None:
            collector.visit(node.value, "read")
        self._access_cache[id(node)] = (node, collector.found)  # the node is kept: ids stay unique
        return collector.found

    def target_accesses(self, target: ir.Expr, mode: str = "write") -> list[Access]:
        """The accesses of ``target`` used as an lvalue (``mode`` "write" or "rw"), including
        the reads that computing its address makes."""
        collector = _Collector(self)
        collector.visit(target, mode)
        return collector.found

    def deep_accesses(self, node: ir.Node) -> list[Access]:
        """All accesses of ``node`` and everything nested in it."""
        found: list[Access] = []
        for n in _simple_parts(node):
            found.extend(self.accesses(n))
        return found

    def call_effects(self, name: str) -> tuple[Access, ...] | None:
        """The accesses a call to device function ``name`` makes, with pointer parameters as
        ``(formal, position)`` objects and unknown indices; None when unknown."""
        if name in self._call_cache:
            return self._call_cache[name]
        fn = self.device_bodies.get(name)
        if fn is None or name in self._in_progress:
            return None
        self._in_progress.add(name)
        try:
            inner = function_facts(fn, self.symbols, self.device_bodies, self._in_progress)
            inner._call_cache = self._call_cache
            effects = []
            for a in inner.deep_accesses(fn.body):
                effects.append(Access(a.kind, a.obj, None, None, f"{a.text} (in {name})", a.loc))
            result: tuple[Access, ...] | None = tuple(effects)
        finally:
            self._in_progress.discard(name)
        self._call_cache[name] = result
        return result


def int_literal(text: str) -> int | None:
    t = text.lower().rstrip("ul")
    try:
        if t.startswith("0x"):
            return int(t, 16)
        if t.startswith("0b"):
            return int(t, 2)
        if len(t) > 1 and t.startswith("0") and t.isdigit():
            return int(t, 8)
        return int(t)
    except ValueError:
        return None


#: Integer types at least as wide as ``int``: a thread index or an index computed from one keeps
#: its value in them (``char`` and ``short`` could wrap and make two threads' indices equal).
_INTEGER_WORDS = {"int", "unsigned", "signed", "long", "size_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
                  "ptrdiff_t", "const"}


def _is_integer_type(t: str) -> bool:
    words = t.replace("std::", "").split()
    return bool(words) and all(w in _INTEGER_WORDS for w in words)


def _key(e: ir.Expr) -> str:
    return repr(e)


def _is_reference_type(t: str) -> bool:
    return "&" in t


#: Library functions that take no C++ references (a variable passed to them is only read).
_BY_VALUE_LIBRARY = frozenset({"printf", "assert", "__assert_fail", "__trap", "memcpy", "memset"})


def _by_reference_arguments(call: ir.Expr, facts: "KernelFacts") -> list[int]:
    """Variables that ``call`` may change without an assignment: those passed as they are to a
    parameter that may be a non-const C++ reference (of a ``__device__`` function, or of a
    function the analysis does not know)."""
    name = callee_name(call.func) if isinstance(call, ir.Call) else ""
    if isinstance(call, ir.Call) and (is_pure_function(call.func) or name.startswith(ATOMICS_PREFIX)
                                      or name in READ_ONLY_LOADS or name in _BY_VALUE_LIBRARY
                                      or call.func.startswith("moccuda::")):
        return []
    fn = facts.device_bodies.get(name) if isinstance(call, ir.Call) else None
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
            if not _is_reference_type(t) or t.lstrip().startswith("const ") and "*" not in t:
                continue
        changed.append(arg.sym)
    return changed


def _scan_body(body: ir.Node, facts: KernelFacts) -> None:
    """One walk: mutated symbols, local declarations, ``__shared__`` declarations."""
    mutated = facts.mutable
    for n in body.walk():
        target = None
        if isinstance(n, ir.Assign):
            target = n.target
        elif isinstance(n, ir.Unary) and n.op in ("++", "--", "&"):
            target = n.operand
        elif isinstance(n, ir.VarDecl):
            if n.storage in ("shared", "shared_dynamic"):
                facts.shared[n.sym] = n
            elif n.storage == "auto":
                facts.local_type[n.sym] = n.type
                if _is_reference_type(n.type):
                    if n.init is not None:
                        facts.local_ref[n.sym] = n.init
                        target = n.init  # what it names may change through it
                elif n.init is not None and not isinstance(n.init, ir.InitList):
                    facts.local_init[n.sym] = n.init
                elif n.init is None and "[" not in n.type:
                    mutated.add(n.sym)  # an uninitialized scalar gets its value later
            if target is None:
                continue
        elif isinstance(n, (ir.Call, ir.IndirectCall)):
            for arg in _by_reference_arguments(n, facts):
                mutated.add(arg)
            continue
        if target is None:
            continue
        while isinstance(target, ir.Member) and not target.arrow:  # s.x = v changes s
            target = target.base
        if isinstance(target, ir.Name) and target.sym:
            mutated.add(target.sym)


def kernel_facts(kernel: ir.Kernel, ctx) -> KernelFacts:
    """The facts about ``kernel`` (in parallel-loop form) that the barrier passes share."""
    facts = KernelFacts(ctx.symbols, device_bodies=getattr(ctx, "device_bodies", None) or {})
    facts.params = {p.sym: p for p in kernel.params}
    _scan_body(kernel.body, facts)
    grid = ir.grid_loop(kernel)
    if grid is not None:
        for d in grid.dynamic_shared:
            facts.shared[d.sym] = d
    launch = (getattr(ctx, "launches", None) or {}).get(kernel.name)
    if launch is not None:
        facts.extents = tuple(launch.block_extent)
        by_name = {p.name: p.sym for p in kernel.params}
        for pair in launch.distinct:
            a, b = tuple(pair)
            if a in by_name and b in by_name:
                facts.distinct.add(frozenset((by_name[a], by_name[b])))
    return facts


def function_facts(fn: ir.DeviceFunction, symbols: dict[int, ir.Symbol], bodies: dict,
                   in_progress: set[str] | None = None) -> KernelFacts:
    facts = KernelFacts(symbols, device_bodies=bodies)
    facts.params = {p.sym: p for p in fn.params}
    facts.formals = {p.sym: i for i, p in enumerate(fn.params)}
    _scan_body(fn.body, facts)
    if in_progress is not None:
        facts._in_progress = in_progress
    return facts


# ---------------------------------------------------------------------------- the collector


class _Collector:
    """Walks one expression, recording the memory accesses it makes."""

    def __init__(self, facts: KernelFacts) -> None:
        self.facts = facts
        self.found: list[Access] = []
        self._binding: set[int] = set()  # references being resolved (a guard against cycles)

    def record(self, kind: str, place: _Place, e: ir.Expr) -> None:
        if place.obj[0] == PRIVATE:
            return
        self.found.append(Access(kind, place.obj, place.index, e, "", e.loc))

    def touch(self, place: _Place, e: ir.Expr, mode: str) -> None:
        if mode in ("read", "rw"):
            self.record("read", place, e)
        if mode in ("write", "rw"):
            self.record("write", place, e)

    def visit(self, e: ir.Expr | None, mode: str) -> None:
        if e is None:
            return
        if _is_lvalue_shape(e):
            place = self.place(e)
            if isinstance(place, _AsPointer):
                if place.loads is not None and mode != "addr":
                    self.touch(place.loads, e, mode)
            elif isinstance(place, _Place) and place.is_element and mode != "addr":
                self.touch(place, e, mode)
            return
        if isinstance(e, ir.Assign):
            self.visit(e.value, "read")
            self.visit(e.target, "write" if e.op == "=" else "rw")
        elif isinstance(e, ir.Unary) and e.op in ("++", "--"):
            self.visit(e.operand, "rw")
        elif isinstance(e, ir.Unary) and e.op == "&":
            self.visit(e.operand, "addr")
        elif isinstance(e, ir.Call):
            self.call(e)
        elif isinstance(e, ir.IndirectCall):
            self.visit(e.callee, "read")
            for a in e.args:
                self.visit(a, "read")
            self.touch(_UNKNOWN_PLACE, e, "rw")
        elif not isinstance(e, ir.SizeOf):
            for child in e.children():
                self.visit(child, "read")

    # ------------------------------------------------------------------------ places

    def place(self, e: ir.Expr):
        """The location an lvalue-shaped ``e`` designates, visiting the reads its
        subexpressions make: a :class:`_Place`, an :class:`_AsPointer` for a pointer variable,
        or None for no memory at all (an rvalue, an enumerator)."""
        if isinstance(e, ir.Name):
            return self.name_place(e)
        if isinstance(e, ir.Index):
            base = self.pointer(e.base)
            self.visit(e.index, "read")
            return base.subscript(self.facts.affine(e.index))
        if isinstance(e, ir.Unary) and e.op == "*":
            return self.pointer(e.operand).subscript(Affine())
        if isinstance(e, ir.Member):
            if e.arrow:
                return self.pointer(e.base).subscript(Affine())
            if _is_lvalue_shape(e.base):
                inner = self.place(e.base)
                return inner if not isinstance(inner, _AsPointer) else None
            self.visit(e.base, "read")
            return None
        self.visit(e, "read")
        return None

    def name_place(self, e: ir.Name):
        f = self.facts
        sym = e.sym
        info = f.symbols.get(sym)
        kind = info.kind if info else ""
        if sym in f.shared:
            t = f.shared[sym].type
            return _Place((SHARED, sym), _rank(t), elem_is_pointer=_elem_pointer(t))
        if sym in f.params:
            t = f.params[sym].type
            if _is_reference_type(t) and "*" not in t.split("&")[0]:
                # a reference parameter names the caller's lvalue: an object of the call site
                return _Place((FORMAL, f.formals[sym]) if sym in f.formals else UNKNOWN_OBJ, 0)
            if not _is_pointer_type(t):
                return _Place((PRIVATE, sym), 0)
            obj = (FORMAL, f.formals[sym]) if sym in f.formals else (PARAM, sym)
            target = _Place(obj, _param_rank(t), elem_is_pointer=_param_elem_pointer(t))
            if sym in f.mutable:
                target = target.unknown_position() if obj[0] == FORMAL else _UNKNOWN_PLACE
            return _AsPointer(target)
        if sym in f.local_type:
            t = f.local_type[sym]
            if _is_reference_type(t):
                return self.reference_place(sym)
            if "[" in t:
                return _Place((PRIVATE, sym), _rank(t), elem_is_pointer=_elem_pointer(t))
            if "*" not in t:
                return _Place((PRIVATE, sym), 0)
            if sym in f.local_init and sym not in f.mutable:
                return _AsPointer(self.pointer(f.local_init[sym], visit=False))
            return _AsPointer(_UNKNOWN_PLACE)
        if kind == "global":
            t = info.type
            if "[" in t:
                return _Place((GLOBAL, sym), _rank(t), elem_is_pointer=_elem_pointer(t))
            if "*" in t:
                return _AsPointer(_UNKNOWN_PLACE, loads=_Place((GLOBAL, sym), 0))
            return _Place((GLOBAL, sym), 0)
        if kind == "local":
            return _Place((PRIVATE, sym), 0)
        return None

    def reference_place(self, sym: int):
        """What a local reference names: the place of the lvalue it is bound to, or an unknown
        location (never the reference's own storage: it has none)."""
        bound = self.facts.local_ref.get(sym)
        if bound is None or sym in self._binding:
            return _Place(UNKNOWN_OBJ, 0, 0, None, None)
        self._binding.add(sym)
        saved, self.found = self.found, []  # the binding's own reads happened at the declaration
        try:
            place = self.place(bound) if _is_lvalue_shape(bound) else None
        finally:
            self.found = saved
            self._binding.discard(sym)
        if place is None:
            return _Place((PRIVATE, sym), 0)  # bound to a temporary
        return place

    def pointer(self, e: ir.Expr, visit: bool = True) -> _Place:
        """The place a pointer-valued (or array-valued) expression points to."""
        if visit:
            return self._pointer(e)
        saved, self.found = self.found, []
        try:
            return self._pointer(e)
        finally:
            self.found = saved

    def _pointer(self, e: ir.Expr) -> _Place:
        f = self.facts
        if _is_lvalue_shape(e):
            p = self.place(e)
            if isinstance(p, _AsPointer):
                if p.loads is not None:
                    self.record("read", p.loads, e)
                return p.place
            if isinstance(p, _Place) and not p.is_element:
                return p  # an array, or a row of a multi-dimensional array
            if isinstance(p, _Place):
                self.record("read", p, e)  # load the pointer stored there
            return _UNKNOWN_PLACE
        if isinstance(e, ir.Cast):
            return self._pointer(e.operand).unknown_position()
        if isinstance(e, ir.Binary) and e.op in ("+", "-") and _pointerish(e.lhs, f):
            base = self._pointer(e.lhs)
            self.visit(e.rhs, "read")
            k = f.affine(e.rhs)
            return base.offset(k if e.op == "+" or k is None else -k)
        if isinstance(e, ir.Binary) and e.op == "+" and _pointerish(e.rhs, f):
            base = self._pointer(e.rhs)
            self.visit(e.lhs, "read")
            return base.offset(f.affine(e.lhs))
        if isinstance(e, ir.Unary) and e.op == "&":
            inner = self.place(e.operand)
            if isinstance(inner, _Place):
                return inner.address_of_element() if inner.is_element else inner.unknown_position()
            return _UNKNOWN_PLACE
        if isinstance(e, ir.Conditional):
            self.visit(e.cond, "read")
            a, b = self._pointer(e.then), self._pointer(e.otherwise)
            if a == b:
                return a
            if a.obj == b.obj:
                return a.unknown_position()
            return _UNKNOWN_PLACE
        if isinstance(e, ir.Literal):
            return _Place((PRIVATE, 0), 1)  # nullptr and friends point nowhere
        self.visit(e, "read")
        return _UNKNOWN_PLACE

    # ------------------------------------------------------------------------- calls

    def call(self, e: ir.Call) -> None:
        f = self.facts
        name = callee_name(e.func)
        if name.startswith(ATOMICS_PREFIX) and e.args:
            target = self.pointer(e.args[0])
            for a in e.args[1:]:
                self.visit(a, "read")
            self.touch(target.subscript(Affine()), e, "rw")
            return
        if name in READ_ONLY_LOADS and e.args:
            self.touch(self.pointer(e.args[0]).subscript(Affine()), e, "read")
            return
        if is_pure_function(e.func):
            for a in e.args:
                self.visit(a, "read")
            return
        fn = f.device_bodies.get(name)
        effects = f.call_effects(name) if fn is not None else None
        if effects is None:
            for a in e.args:
                if _pointerish(a, f):
                    target = self.pointer(a)
                    self.touch(target.unknown_position().subscript(None), e, "rw")
                else:
                    self.visit(a, "read")
            self.touch(_UNKNOWN_PLACE, e, "rw")
            return
        skip = max(len(e.args) - len(fn.params), 0)  # leading builtin vectors (translated functions)
        targets: dict[int, _Place] = {}
        for i, a in enumerate(e.args[skip:]):
            t = fn.params[i].type if i < len(fn.params) else ""
            if _is_reference_type(t) and "*" not in t.split("&")[0]:
                targets[i] = self.argument_place(a)
            elif _is_pointer_type(t):
                targets[i] = self.pointer(a)
            else:
                self.visit(a, "read")
        for access in effects:
            obj = access.obj
            if obj[0] == FORMAL:
                obj = targets[obj[1]].obj if obj[1] in targets else UNKNOWN_OBJ
            if obj[0] == PRIVATE:
                continue
            self.found.append(Access(access.kind, obj, None, e, f": {access.text}", e.loc))


def _argument_place(collector: "_Collector", a: ir.Expr) -> _Place:
    """The object an argument bound to a reference parameter is: its lvalue's place (the reads
    computing its address are recorded), a temporary (an rvalue), or unknown."""
    if not _is_lvalue_shape(a):
        collector.visit(a, "read")
        return _Place((PRIVATE, 0), 0)
    place = collector.place(a)
    if isinstance(place, _AsPointer):
        return place.loads if place.loads is not None else _Place((PRIVATE, 0), 0)
    return place if isinstance(place, _Place) else _Place((PRIVATE, 0), 0)


_Collector.argument_place = _argument_place


@dataclass(frozen=True)
class _AsPointer:
    """A variable whose value is a pointer to ``place`` (``loads``: the variable's own storage
    when reading it is a memory access, as for a ``__device__`` pointer variable)."""

    place: _Place
    loads: _Place | None = None


def _is_lvalue_shape(e: ir.Expr) -> bool:
    return isinstance(e, (ir.Index, ir.Member, ir.Name)) or (isinstance(e, ir.Unary) and e.op == "*")


def _is_pointer_type(t: str) -> bool:
    return "*" in t or "[" in t


def _rank(array_type: str) -> int:
    return array_type.count("[")


def _elem_pointer(array_type: str) -> bool:
    return "*" in array_type


def _param_rank(t: str) -> int:
    if "(*)" in t:
        return 1 + t.count("[")
    return 1 if "*" in t or "[" in t else 0


def _param_elem_pointer(t: str) -> bool:
    return "(*)" not in t and t.count("*") > 1


def _pointerish(e: ir.Expr, facts: KernelFacts) -> bool:
    if isinstance(e, ir.Name):
        sym_info = facts.symbols.get(e.sym)
        t = facts.local_type.get(e.sym) or (facts.params[e.sym].type if e.sym in facts.params else "") or (
            sym_info.type if sym_info else "")
        return _is_pointer_type(t)
    if isinstance(e, ir.Cast):
        return "*" in e.type
    if isinstance(e, ir.Unary) and e.op == "&":
        return True
    if isinstance(e, ir.Binary) and e.op == "+":
        return _pointerish(e.lhs, facts) or _pointerish(e.rhs, facts)
    if isinstance(e, ir.Binary) and e.op == "-":
        return _pointerish(e.lhs, facts) and not _pointerish(e.rhs, facts)
    if isinstance(e, ir.Conditional):
        return _pointerish(e.then, facts)
    if isinstance(e, ir.Index):
        base = e.base
        depth = 1
        while isinstance(base, ir.Index):
            base, depth = base.base, depth + 1
        if isinstance(base, ir.Name):
            sym = base.sym
            if sym in facts.shared:
                return _rank(facts.shared[sym].type) > depth or _elem_pointer(facts.shared[sym].type)
            if sym in facts.params:
                t = facts.params[sym].type
                return _param_rank(t) > depth or _param_elem_pointer(t)
        return False
    return False


# -------------------------------------------------------------------------- control flow


def _simple_parts(node: ir.Node):
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
            yield from _simple_parts(child)


@dataclass
class _Node:
    accesses: list[Access]
    barrier: ir.Barrier | None = None
    succ: list[int] = field(default_factory=list)
    pred: list[int] = field(default_factory=list)
    stmt: ir.Node | None = None


class FlowGraph:
    """A control-flow graph of a thread loop's body: one node per simple statement, condition,
    loop step and barrier; ``entry`` and ``exit`` are the parallel region's start and end."""

    def __init__(self, body: ir.Stmt, facts: KernelFacts) -> None:
        self.facts = facts
        self.nodes: list[_Node] = []
        self.barrier_node: dict[int, int] = {}
        self.exit = self._new([])
        self._switches: list[list[tuple[int, bool]]] = []
        self.entry = self._new([])
        self._edge(self.entry, self._build(body, self.exit, None, None))

    def _new(self, accesses: list[Access], barrier: ir.Barrier | None = None, stmt=None) -> int:
        self.nodes.append(_Node(accesses, barrier, stmt=stmt))
        return len(self.nodes) - 1

    def _edge(self, a: int, b: int) -> None:
        self.nodes[a].succ.append(b)
        self.nodes[b].pred.append(a)

    def _simple(self, node: ir.Node | None, nxt: int, stmt=None) -> int:
        accesses = self.facts.accesses(node) if node is not None else []
        n = self._new(accesses, stmt=stmt if stmt is not None else node)
        self._edge(n, nxt)
        return n

    def _build(self, s: ir.Stmt | None, nxt: int, brk: int | None, cont: int | None) -> int:
        if s is None or isinstance(s, ir.Empty):
            return nxt
        if isinstance(s, ir.Block):
            entry = nxt
            for child in reversed(s.stmts):
                entry = self._build(child, entry, brk, cont)
            return entry
        if isinstance(s, ir.Barrier):
            n = self._new([], s, stmt=s)
            self.barrier_node[id(s)] = n
            self._edge(n, nxt)
            return n
        if isinstance(s, (ir.ExprStmt, ir.VarDecl)):
            return self._simple(s, nxt)
        if isinstance(s, ir.Return):
            return self._simple(s, self.exit)
        if isinstance(s, ir.Break):
            return brk if brk is not None else self.exit
        if isinstance(s, ir.Continue):
            return cont if cont is not None else self.exit
        if isinstance(s, ir.If):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            self._edge(cond, self._build(s.then, nxt, brk, cont))
            self._edge(cond, self._build(s.otherwise, nxt, brk, cont) if s.otherwise is not None else nxt)
            return cond
        if isinstance(s, ir.While):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            self._edge(cond, self._build(s.body, cond, nxt, cond))
            self._edge(cond, nxt)
            return cond
        if isinstance(s, ir.DoWhile):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            body = self._build(s.body, cond, nxt, cond)
            self._edge(cond, body)
            self._edge(cond, nxt)
            return body
        if isinstance(s, ir.For):
            cond = self._new(self.facts.accesses(s.cond) if s.cond is not None else [], stmt=s)
            step = self._simple(s.step, cond, stmt=s)
            self._edge(cond, self._build(s.body, step, nxt, step))
            if s.cond is not None:
                self._edge(cond, nxt)
            return self._build(s.init, cond, brk, cont) if s.init is not None else cond
        if isinstance(s, ir.Switch):
            cond = self._new(self.facts.accesses(s.cond), stmt=s)
            self._switches.append([])
            self._build(s.body, nxt, nxt, cont)
            cases = self._switches.pop()
            for entry, _ in cases:
                self._edge(cond, entry)
            if not any(is_default for _, is_default in cases):
                self._edge(cond, nxt)
            return cond
        if isinstance(s, ir.Case):
            entry = self._build(s.body, nxt, brk, cont)
            label = self._new([], stmt=s)
            self._edge(label, entry)
            if self._switches:
                self._switches[-1].append((label, s.value is None))
            return label
        if isinstance(s, ir.ThreadLoop):
            return self._build(s.body, nxt, brk, cont)
        # Unknown statement kinds: their accesses, conservatively, in one node.
        n = self._new(self.facts.deep_accesses(s), stmt=s)
        self._edge(n, nxt)
        return n

    def region(self, start: int, forward: bool) -> tuple[list[Access], list[ir.Barrier]]:
        """The accesses on every path from node ``start`` (exclusive) that crosses no barrier,
        in one direction, and the barriers that end those paths."""
        seen: set[int] = set()
        stack = list(self.nodes[start].succ if forward else self.nodes[start].pred)
        accesses: list[Access] = []
        met: list[ir.Barrier] = []
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            node = self.nodes[n]
            if node.barrier is not None:
                met.append(node.barrier)
                continue
            accesses.extend(node.accesses)
            stack.extend(node.succ if forward else node.pred)
        return accesses, met


# ------------------------------------------------------------------------------- barriers


@dataclass(frozen=True)
class BarrierEffects:
    """The memory effects of one barrier: the accesses before and after it (see the module
    docstring), the neighbouring barriers that bound them, and the accesses no other thread can
    touch (``private``), which do not count against the barrier."""

    barrier: ir.Barrier
    before: tuple[Access, ...]
    after: tuple[Access, ...]
    previous: tuple[ir.Barrier, ...]
    following: tuple[ir.Barrier, ...]
    facts: KernelFacts = field(compare=False, repr=False, default=None)

    @cached_property
    def private(self) -> tuple[Access, ...]:
        """Accesses that conflict with no access of another thread on either side."""
        union = self.before + self.after
        return tuple(a for a in _dedupe(union) if not any(conflict(a, o, self.facts) for o in union))

    @property
    def shared_effects(self) -> tuple[Access, ...]:
        """Reads and writes that matter: all accesses on both sides but the thread-private ones."""
        return tuple(a for a in _dedupe(self.before + self.after) if a not in self.private)


def _dedupe(accesses) -> list[Access]:
    seen = set()
    out = []
    for a in accesses:
        key = (a.kind, a.obj, a.index, id(a.expr), a.note)
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def barriers_of(loop: ir.ThreadLoop) -> list[ir.Barrier]:
    return [n for n in loop.body.walk() if isinstance(n, ir.Barrier)]


def barrier_effects(loop: ir.ThreadLoop, facts: KernelFacts) -> list[BarrierEffects]:
    """The effects of every barrier in ``loop``, in source order."""
    graph = FlowGraph(loop.body, facts)
    result = []
    for b in barriers_of(loop):
        node = graph.barrier_node[id(b)]
        before, prev = graph.region(node, forward=False)
        after, nxt = graph.region(node, forward=True)
        before, after = _dedupe(before), _dedupe(after)
        result.append(BarrierEffects(b, tuple(before), tuple(after), tuple(prev), tuple(nxt), facts))
    return result


def cross_conflicts(effects: BarrierEffects, facts: KernelFacts) -> list[tuple[Access, Access]]:
    """Pairs (before, after) of accesses that two different threads may make to one location,
    at least one a write: the orderings the barrier enforces."""
    pairs = []
    for a in effects.before:
        for b in effects.after:
            if conflict(a, b, facts):
                pairs.append((a, b))
    return pairs


# ------------------------------------------------------------------------- conflict test


def conflict(a: Access, b: Access, facts: KernelFacts) -> bool:
    """May a thread's access ``a`` and a *different* thread's access ``b`` touch the same
    location, with at least one of them writing?"""
    if a.kind == "read" and b.kind == "read":
        return False
    if not facts.may_alias(a.obj, b.obj):
        return False
    if a.obj != b.obj or a.obj[0] == UNKNOWN:
        return True
    if a.index is None or b.index is None or len(a.index) != len(b.index):
        return True
    return may_meet(a.index, b.index, facts)


def may_meet(fa: tuple[Affine, ...], fb: tuple[Affine, ...], facts: KernelFacts) -> bool:
    """Can ``fa(t1) == fb(t2)`` hold in every dimension for two different threads t1, t2?"""
    varying = set(facts.varying_dims())
    equal: set[int] = set()  # thread dimensions proven equal between t1 and t2
    rows = []
    for a, b in zip(fa, fb):
        d = b.const - a.const  # M (t1 - t2) = d  when a and b share coefficients M
        same = all((ca - cb).is_zero() for ca, cb in zip(a.coef, b.coef))
        if not same:
            continue
        rows.append((a.coef, d))
    changed = True
    while changed:
        changed = False
        for coef, d in rows:
            dims = [k for k in range(3) if k in varying and k not in equal and not coef[k].is_zero()]
            if not dims:
                if _nonzero(d):
                    return False  # e.g. w[0][tx] against w[1][tx]
                continue
            if d.is_zero():
                if _mixed_radix(dims, coef, facts):
                    equal.update(dims)
                    changed = True
            elif _unsolvable(dims, coef, d, facts):
                return False
    return bool(varying - equal)


def _nonzero(p: Poly) -> bool:
    value = p.as_int()
    if value is not None:
        return value != 0
    return _positive_sign(p) != 0


def _mixed_radix(dims: list[int], coef, facts: KernelFacts) -> bool:
    """``sum coef[k] * delta_k = 0`` with ``|delta_k| < extent_k`` forces every delta_k = 0."""
    signs = [_positive_sign(coef[k]) for k in dims]
    if any(s == 0 for s in signs):
        return False
    mags = {k: coef[k] if s > 0 else -coef[k] for k, s in zip(dims, signs)}
    if len(dims) == 1:
        return True
    for order in itertools.permutations(dims):
        span = Poly()
        ok = True
        for k in order:
            if not span.is_zero() and not (mags[k] - span).proven_positive():
                ok = False
                break
            span = span + mags[k] * (facts.extent(k) - Poly.const(1))
        if ok:
            return True
    return False


def _unsolvable(dims: list[int], coef, d: Poly, facts: KernelFacts) -> bool:
    """No ``delta`` with ``|delta_k| < extent_k`` solves ``sum coef[k] * delta_k = d``."""
    ints = [coef[k].as_int() for k in dims]
    dv = d.as_int()
    if dv is not None and all(c is not None for c in ints):
        g = 0
        for c in ints:
            g = gcd(g, abs(c))
        if g and dv % g:
            return True
    sign = _positive_sign(d)
    if sign == 0:
        return False
    span = Poly()
    for k in dims:
        s = _positive_sign(coef[k])
        if s == 0:
            return False
        span = span + (coef[k] if s > 0 else -coef[k]) * (facts.extent(k) - Poly.const(1))
    magnitude = d if sign > 0 else -d
    return (magnitude - span).proven_positive()


def describe(accesses) -> str:
    """A short, stable text of a set of accesses: ``write s[tx], read a[i]``."""
    return ", ".join(sorted({str(a) for a in accesses}))
