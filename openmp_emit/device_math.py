"""Pass ``device-math``: device code calls the standard library's math functions through
``moccuda::device_math``, whose declarations SIMD thread loops can call libmvec's variants by.

Requires: the front end's ``ir.Call.device_math`` (:mod:`cuda_front.standard_math`).  Runs
after the analyses (they read the calls by their written names).  A thread loop marked SIMD
(``thread-simd``: math functions are pure) that calls ``erff`` through the C library's plain
declaration stays scalar: gcc vectorizes a call only through a function declared ``#pragma omp
declare simd``, and the C++ overload ``std::erf(float)`` is gcc's builtin, never vectorized.
``moccuda::device_math::erff`` is the same function (one symbol), declared so where glibc's
libmvec has a variant of it within CUDA's error bound (``cuda2cpu_math.h``); host code keeps the
plain names, so no host loop calls a variant.  A ``__host__ __device__`` function is left as
written: host code calls it too.  Device code kept as written gets the same names through edits
of its text (``transpiler.translate.math_calls_in_kept_code``).

Before::

    ThreadLoop [simd] { y[i] = x[i] * (1.0f + erf(x[i] * 0.7071f)); }     // std::erf(float)

After::

    ThreadLoop [simd] { y[i] = x[i] * (1.0f + moccuda::device_math::erff(x[i] * 0.7071f)); }

which gcc compiles to calls of ``_ZGVbN4v_erff``, four lanes at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from foundation import ir
from foundation.passes import PassContext, register


def with_device_math(node: ir.Node) -> ir.Node:
    """``node`` with each call of a standard math function naming its ``moccuda::device_math``
    alias."""

    def rename(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Call) and n.device_math:
            return replace(n, func=n.device_math)
        return n

    return ir.transform(node, rename)


@register
@dataclass(frozen=True)
class DeviceMath:
    name: str = "device-math"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        kernels = tuple(with_device_math(k) for k in program.kernels)
        functions = tuple(f if f.host else with_device_math(f) for f in program.device_functions)
        return ir.Program(kernels, functions, loc=program.loc)
