"""Can two threads' accesses meet?  The conflict test of the effect analysis, and the text of
its reasons.

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
"""

from __future__ import annotations

import itertools
from math import gcd

from barrier.accesses import PRIVATE, SHARED, UNKNOWN, Access
from barrier.affine_forms import Affine, Poly, positive_sign
from barrier.kernel_facts import KernelFacts


def conflict(a: Access, b: Access, facts: KernelFacts) -> bool:
    """May a thread's access ``a`` and a *different* thread's access ``b`` touch the same
    location, with at least one of them writing?  Or is one of them how blocks signal each other
    (an atomic or ``volatile`` access outside ``__shared__`` memory) and the other an access to
    memory other blocks see?  A barrier between them is what makes every thread's access happen
    before the signal (or after the wait): ``x = in[i]; __syncthreads(); if (tid == 0)
    atomicAdd(&flag[b + 1], 1);`` lets the next block overwrite ``in`` only once every thread of
    this one has read it."""
    if (a.communicates and _seen_by_other_blocks(b)) or (b.communicates and _seen_by_other_blocks(a)):
        return True
    if a.kind == "read" and b.kind == "read":
        return False
    if not facts.may_alias(a.obj, b.obj):
        return False
    if a.obj != b.obj or a.obj[0] == UNKNOWN:
        return True
    if a.index is None or b.index is None or len(a.index) != len(b.index):
        return True
    return may_meet(a.index, b.index, facts)


def _seen_by_other_blocks(a: Access) -> bool:
    return a.obj[0] not in (SHARED, PRIVATE)


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
    return positive_sign(p) != 0


def _mixed_radix(dims: list[int], coef, facts: KernelFacts) -> bool:
    """``sum coef[k] * delta_k = 0`` with ``|delta_k| < extent_k`` forces every delta_k = 0."""
    signs = [positive_sign(coef[k]) for k in dims]
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
    sign = positive_sign(d)
    if sign == 0:
        return False
    span = Poly()
    for k in dims:
        s = positive_sign(coef[k])
        if s == 0:
            return False
        span = span + (coef[k] if s > 0 else -coef[k]) * (facts.extent(k) - Poly.const(1))
    magnitude = d if sign > 0 else -d
    return (magnitude - span).proven_positive()


def describe(accesses) -> str:
    """A short, stable text of a set of accesses: ``write s[tx], read a[i]``."""
    return ", ".join(sorted({str(a) for a in accesses}))
