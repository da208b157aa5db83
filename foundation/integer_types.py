"""The integer types of CUDA source, as the passes reason about them: (signed, bits).

One table for every pass that asks "is this an integer, how wide, and does it wrap?": the
analyses (is a thread index kept exactly? is a loop counter an integer?) and the emitter's
guard and prefetch reasoning.  The widths are those of the targets cuda2cpu emits for (LP64:
x86-64 and AArch64 Linux), which are also CUDA's own on those hosts.

Plain ``char`` has no answer: it is signed on x86-64 and unsigned on AArch64, so a pass that
relied on its signedness would be right on one target only.
"""

from __future__ import annotations

#: The words of a standard integer type, in any order C++ accepts (``long unsigned int``), with
#: its (signed, bits).  The key is the sorted multiset of words.
_STANDARD: dict[tuple[str, ...], tuple[bool, int]] = {}


def _add_standard(spellings: tuple[str, ...], kind: tuple[bool, int]) -> None:
    for spelling in spellings:
        _STANDARD[tuple(sorted(spelling.split()))] = kind


_add_standard(("signed char",), (True, 8))
_add_standard(("unsigned char",), (False, 8))
_add_standard(("short", "short int", "signed short", "signed short int"), (True, 16))
_add_standard(("unsigned short", "unsigned short int"), (False, 16))
_add_standard(("int", "signed", "signed int"), (True, 32))
_add_standard(("unsigned", "unsigned int"), (False, 32))
_add_standard(("long", "long int", "signed long", "signed long int",
               "long long", "long long int", "signed long long", "signed long long int"), (True, 64))
_add_standard(("unsigned long", "unsigned long int", "unsigned long long", "unsigned long long int"), (False, 64))

#: The <cstdint>/<cstddef> names (with or without ``std::``).
_TYPEDEFS: dict[str, tuple[bool, int]] = {
    "int8_t": (True, 8), "uint8_t": (False, 8),
    "int16_t": (True, 16), "uint16_t": (False, 16),
    "int32_t": (True, 32), "uint32_t": (False, 32),
    "int64_t": (True, 64), "uint64_t": (False, 64),
    "size_t": (False, 64), "ptrdiff_t": (True, 64),
    "intptr_t": (True, 64), "uintptr_t": (False, 64), "ssize_t": (True, 64),
}

_QUALIFIERS = frozenset({"const", "volatile", "register"})


def integer_kind(type_spelling: str) -> tuple[bool, int] | None:
    """(signed, bits) of the integer type ``type_spelling`` names, top-level cv-qualifiers
    ignored (``const unsigned int`` is (False, 32)); None for anything else: plain ``char``,
    ``bool``, enums, pointers, references, floating types, and names this table does not know."""
    words = [w for w in type_spelling.split() if w not in _QUALIFIERS]
    if len(words) == 1:
        name = words[0].removeprefix("::").removeprefix("std::")
        if name in _TYPEDEFS:
            return _TYPEDEFS[name]
    return _STANDARD.get(tuple(sorted(words)))


def int_literal(text: str) -> int | None:
    """The value of a C++ integer literal as written (``12``, ``0x1fu``, ``010``, ``0b11``,
    ``3ull``), else None."""
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


def unpromoted_integer_kind(type_spelling: str) -> tuple[bool, int] | None:
    """:func:`integer_kind` for the types that C++'s integer promotions leave as they are
    (``int`` and wider), else None.  Arithmetic in a narrower type happens in ``int``, so a pass
    that follows values through arithmetic by their declared type must not take those."""
    kind = integer_kind(type_spelling)
    return kind if kind is not None and kind[1] >= 32 else None
