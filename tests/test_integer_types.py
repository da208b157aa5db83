"""foundation.integer_types: one table of integer types, checked against the C++ compiler.

The expected (signed, bits) of every spelling comes from g++ itself (``std::is_signed`` and
``sizeof``), not from the table under test.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from foundation.integer_types import int_literal, integer_kind, unpromoted_integer_kind

INTEGER_SPELLINGS = [
    "signed char", "unsigned char", "short", "short int", "signed short", "unsigned short",
    "unsigned short int", "int", "signed", "signed int", "unsigned", "unsigned int", "int unsigned",
    "long", "long int", "signed long", "unsigned long", "long unsigned int", "long long",
    "long long int", "unsigned long long", "unsigned long long int", "long long unsigned",
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "std::int32_t", "std::uint64_t", "size_t", "std::size_t", "ptrdiff_t", "std::ptrdiff_t",
    "intptr_t", "uintptr_t", "ssize_t",
    "const int", "volatile unsigned", "const volatile long long", "int const", "const std::size_t",
]
NOT_INTEGERS = ["char", "const char", "bool", "float", "double", "long double", "int *", "int &",
                "const int *", "unsigned *", "float4", "T", "my_int", "", "int[4]"]


@pytest.fixture(scope="module")
def compiler_kinds(tmp_path_factory) -> dict[str, tuple[bool, int]]:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    work = tmp_path_factory.mktemp("kinds")
    lines = ["#include <cstdint>", "#include <cstddef>", "#include <sys/types.h>", "#include <cstdio>",
             "#include <type_traits>", "int main() {"]
    for i, t in enumerate(INTEGER_SPELLINGS):
        lines.append(f'  std::printf("%d %d %zu\\n", {i}, (int)std::is_signed<std::remove_cv_t<{t}>>::value, '
                     f"sizeof({t}) * 8);")
    lines.append("}")
    (work / "kinds.cpp").write_text("\n".join(lines))
    subprocess.run([gxx, "-std=c++17", str(work / "kinds.cpp"), "-o", str(work / "kinds")], check=True)
    out = subprocess.run([str(work / "kinds")], capture_output=True, text=True, check=True).stdout
    kinds = {}
    for line in out.splitlines():
        i, signed, bits = map(int, line.split())
        kinds[INTEGER_SPELLINGS[i]] = (bool(signed), bits)
    return kinds


@pytest.mark.parametrize("spelling", INTEGER_SPELLINGS)
def test_integer_kind_is_the_compilers(spelling, compiler_kinds):
    assert integer_kind(spelling) == compiler_kinds[spelling]


@pytest.mark.parametrize("spelling", NOT_INTEGERS)
def test_what_is_not_an_integer_type_has_no_kind(spelling):
    # plain char: signed on x86-64, unsigned on AArch64, so no pass may rely on either
    assert integer_kind(spelling) is None


def test_unpromoted_kinds_are_int_and_wider():
    assert unpromoted_integer_kind("unsigned short") is None
    assert unpromoted_integer_kind("int8_t") is None
    assert unpromoted_integer_kind("const int") == (True, 32)
    assert unpromoted_integer_kind("size_t") == (False, 64)


@pytest.mark.parametrize("text, value", [("12", 12), ("0x1fu", 31), ("010", 8), ("0b101", 5), ("3ull", 3),
                                         ("0", 0), ("1.5", None), ("n", None)])
def test_int_literal(text, value):
    assert int_literal(text) == value
