"""foundation.scalar_types: which declared types the passes may follow as values."""

from __future__ import annotations

import pytest

from foundation.scalar_types import scalar_kind


@pytest.mark.parametrize("spelling, kind", [
    ("int", "integer"), ("const unsigned int", "integer"), ("register long", "integer"),
    ("long unsigned int", "integer"), ("size_t", "integer"), ("std::uint32_t", "integer"),
    ("unsigned char", "integer"),
    ("float", "floating"), ("const double", "floating"), ("long double", "floating"),
    ("bool", "bool"), ("const bool", "bool"),
    ("float *", "pointer"), ("const float *", "pointer"), ("int **", "pointer"), ("float4 *", "pointer"),
])
def test_scalars(spelling, kind):
    assert scalar_kind(spelling) == kind


@pytest.mark.parametrize("spelling", [
    "volatile int", "int volatile", "int *volatile",  # every access an effect
    "int &", "const float &", "float &&",  # references
    "float [4]", "int[16][16]",  # arrays
    "auto", "const auto", "auto *",  # deduced: the type is not in the spelling
    "char", "const char",  # plain char: signed on x86-64, unsigned on AArch64
    "float4", "dim3", "Vec<float>",  # classes
    "float *const",  # a const pointer is not taken for a pointer a pass may reassign
])
def test_not_scalars(spelling):
    assert scalar_kind(spelling) is None
