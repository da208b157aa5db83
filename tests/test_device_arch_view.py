"""cuda_front.device_arch_view: directives inside device-only functions read as nvcc's device pass
reads them, each rewrite the length of what it replaces (the program-level test is
tests/test_others_code.py::test_device_code_sees_cuda_arch)."""

from __future__ import annotations

import pytest

from cuda_front.device_arch_view import device_view, rewrite
from transpiler.nvcc_flags import DEFAULT_DEVICE_ARCH, device_arch


@pytest.mark.parametrize("directive, expected", [
    (b"#ifdef __CUDA_ARCH__", b"#if 1"),
    (b"#  ifndef __CUDA_ARCH__", b"#  if 0"),
    (b"#if __CUDA_ARCH__ >= 700", b"#if 700 >= 700"),
    (b"#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600", b"#elif 1 && 700 < 600"),
    (b"#if !defined __CUDA_ARCH__ || \\\n    __CUDA_ARCH__ < 300", b"#if !1 || \\\n    700 < 300"),
])
def test_directive_as_the_device_pass_reads_it(directive, expected):
    got = device_view(directive, 700)
    assert len(got) == len(directive)
    assert b" ".join(got.split()) == b" ".join(expected.split())


def test_only_inside_the_given_ranges_and_not_in_literals():
    text = (b"#ifdef __CUDA_ARCH__\nint host;\n#endif\n"
            b"void k() {\n#ifdef __CUDA_ARCH__\n  puts(\"__CUDA_ARCH__\"); int a = __CUDA_ARCH__; // __CUDA_ARCH__\n#endif\n}\n")
    start = text.index(b"void k")
    got = rewrite(text, [(start, len(text))], 700)
    assert len(got) == len(text)
    assert got[:start] == text[:start]  # namespace scope keeps the host pass's view
    body = got[start:]
    assert b"#if 1" in body and b'"__CUDA_ARCH__"' in body and b"// __CUDA_ARCH__" in body
    assert b"int a = 700" in body


@pytest.mark.parametrize("ignored, arch", [
    ([], DEFAULT_DEVICE_ARCH),
    (["-arch sm_60"], 600),
    (["--gpu-architecture compute_90a"], 900),
    (["-arch native"], DEFAULT_DEVICE_ARCH),
    (["-gencode arch=compute_60,code=sm_60", "-gencode arch=compute_80,code=[sm_80,compute_80]"], 600),
    (["-gencode arch=compute_70,code=sm_70", "-gencode arch=compute_52,code=sm_52"], 700),
    (["-Xptxas -v", "-code sm_75"], 750),
    (["--gpu-architecture sm_90", "-code sm_86"], 860),
])
def test_device_arch_is_the_image_a_7_0_device_runs(ignored, arch):
    assert device_arch(ignored) == arch
