"""The C library's math functions that device code calls through ``moccuda::device_math``.

Device code's calls of the standard library's ``erf``, ``expf``, ``std::sin`` ... are printed as
calls of ``moccuda::device_math``'s functions (pass ``device-math``, and the edits of device code
kept as written): the C function a call resolved to by its C name (``std::erf`` on a float is
``moccuda::device_math::erff``), or, in a template on arguments of dependent type, the overloads
of ``moccuda::device_math::cmath``, which resolve as ``<cmath>``'s do.  MocCUDA's
``cuda2cpu_device_math.h`` declares each as the C library's own function, with ``#pragma omp
declare simd`` where glibc's libmvec has SIMD variants of it within CUDA's error bound (or
computes it inline, vectorizable); host code keeps the plain names, so no host loop changes.

This table is the translator's half of that agreement; the header's lists are the other
(``tests/test_device_math.py`` checks that they agree).
"""

from __future__ import annotations

#: The namespace of the C functions (``moccuda::device_math::erff``).
NAMESPACE = "moccuda::device_math"
#: The namespace of the overloads (``moccuda::device_math::cmath::erf``).
CMATH_NAMESPACE = NAMESPACE + "::cmath"

#: Functions of one argument, by the C name of the double function (the float one adds ``f``).
UNARY = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "erf", "erfc", "exp",
         "exp10", "exp2", "expm1", "log", "log10", "log1p", "log2", "sin", "sinh", "tan", "tanh")
#: Functions of two arguments, likewise.
BINARY = ("atan2", "hypot", "pow")

#: The argument count of each double function's name.
ARITY = {**{name: 1 for name in UNARY}, **{name: 2 for name in BINARY}}
#: The C names of the float and double functions: ``erff`` and ``erf``.
C_FUNCTIONS = frozenset(ARITY) | frozenset(name + "f" for name in ARITY)
#: The names ``<cmath>`` overloads for float, double and long double (``exp10`` is a GNU
#: function of double only).
CMATH = frozenset(ARITY) - {"exp10"}


def c_function(c_name: str) -> str:
    """What device code calls for the C library function ``c_name`` (``erff`` ->
    ``moccuda::device_math::erff``): the same function, declared for SIMD loops."""
    return f"{NAMESPACE}::{c_name}"


def cmath_overloads(name: str) -> str:
    """What device code calls for ``<cmath>``'s overloads of ``name``, where the call's overload
    is chosen at the template's instantiation (``erf`` -> ``moccuda::device_math::cmath::erf``)."""
    return f"{CMATH_NAMESPACE}::{name}"
