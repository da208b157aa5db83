"""Which declared types are scalars: values a pass may copy, compare, recompute or keep per
thread by their declaration alone.

The passes that follow a local through its assignments (``single-assignment``,
``scoped-loop-counters``, ``row-licm``, ``uniform-kept``) each accept a subset of these kinds;
what no pass may take is decided here once:

- ``volatile``: every access is an effect of its own;
- references and arrays: not values (a copy would not alias, an array decays);
- ``auto``: the deduced type is not in the spelling;
- plain ``char``, class types and unknown names: :func:`integer_kind` has no answer for them.
"""

from __future__ import annotations

from foundation.integer_types import integer_kind

#: The floating-point types of CUDA source the passes treat as values.
FLOATING = frozenset({"float", "double", "long double"})


def scalar_kind(type_spelling: str) -> str | None:
    """``"integer"``, ``"floating"``, ``"bool"`` or ``"pointer"`` for a scalar type, top-level
    ``const`` and ``register`` ignored (``const unsigned int`` is ``"integer"``); None for the
    rest (module docstring).  A pointer is a spelling that ends in ``*`` (``const float *``); a
    const pointer (``float *const``) is not taken for one."""
    words = type_spelling.replace("*", " * ").split()
    if "volatile" in words or "&" in type_spelling or "[" in type_spelling or "auto" in words:
        return None
    if type_spelling.rstrip().endswith("*"):
        return "pointer"
    plain = " ".join(w for w in words if w not in ("const", "register"))
    if integer_kind(plain) is not None:
        return "integer"
    if plain in FLOATING:
        return "floating"
    return "bool" if plain == "bool" else None
