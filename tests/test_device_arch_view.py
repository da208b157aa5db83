"""cuda_front.device_arch_view: directives inside device-only functions, and groups outside
functions that select only device code, read as nvcc's device pass reads them, each rewrite the
length of what it replaces (the program-level tests are in tests/test_others_code.py:
test_device_code_sees_cuda_arch, test_device_code_selected_at_namespace_scope)."""

from __future__ import annotations

import re

import pytest

from cuda_front.device_arch_view import device_view, rewrite
from cuda_front.parse import parse_file
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
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


def _as_parsed(tmp_path, source: str) -> str:
    """The text of ``source`` as the parse read it (its device views applied)."""
    cu = tmp_path / "t.cu"
    cu.write_text(source)
    return parse_file(cu, TranslateOptions()).text.decode()


DEVICE_HELPER = "__device__ int helper() { return 1; }\n"
KERNEL = "__global__ void k(int *p) { *p = helper(); }\n"


def test_a_group_of_device_functions_takes_the_device_view(tmp_path):
    text = _as_parsed(tmp_path, "#if __CUDA_ARCH__ >= 700\nnamespace detail {\n" + DEVICE_HELPER + "}\n#endif\n"
                      "using namespace detail;\n" + KERNEL)
    assert text.startswith("#if 700")


@pytest.mark.parametrize("held", [
    "__device__ int counter;\n",  # a variable: host code may name it (cudaMemcpyToSymbol)
    "struct S { int x; };\n",
    "__host__ __device__ int both() { return 2; }\n",
    "#include <cstdlib>\n",
])
def test_a_group_host_code_may_depend_on_keeps_the_host_view(tmp_path, held):
    source = "#if __CUDA_ARCH__ >= 700\n" + held + DEVICE_HELPER + "#endif\n"
    with pytest.raises(Exception, match="undeclared identifier 'helper'"):
        _as_parsed(tmp_path, source + KERNEL)


def test_a_macro_used_only_by_device_code_takes_the_device_view(tmp_path):
    # FAST is tested by a device function and by another group of device functions.
    text = _as_parsed(tmp_path, "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800\n#define FAST\n#endif\n"
                      "#ifdef FAST\n__device__ int helper() { return undeclared_intrinsic(); }\n#else\n"
                      + DEVICE_HELPER + "#endif\n"
                      "__device__ int twice() {\n#ifdef FAST\n  return undeclared_intrinsic();\n#else\n"
                      "  return 2 * helper();\n#endif\n}\n" + KERNEL)
    assert text.startswith("#if !1")


def test_a_macro_host_code_uses_keeps_the_host_view(tmp_path):
    source = ("#ifdef __CUDA_ARCH__\n#define WIDTH 32\n#else\n#define WIDTH 64\n#endif\n"
              "__device__ int width() { return WIDTH; }\nint host_width() { return WIDTH; }\n")
    assert _as_parsed(tmp_path, source).startswith("#ifdef __CUDA_ARCH__")


def test_the_name_as_a_value_inside_a_group_taking_the_device_view(tmp_path):
    # Rodinia dwt2d's TransformBuffer: the device branch names __CUDA_ARCH__ in an enumerator.
    text = _as_parsed(tmp_path, "template <int N> struct Buffer {\n  enum {\n#ifdef __CUDA_ARCH__\n"
                      "    BANKS = ((__CUDA_ARCH__ >= 200) ? 32 : 16),\n#else\n    BANKS = 16,\n#endif\n"
                      "    SIZE = N + BANKS\n  };\n};\n"
                      "__global__ void k(int *p) { *p = Buffer<4>::SIZE; }\n")
    assert "#if 1" in text and re.search(r"BANKS = \(\(700 +>= 200\)", text), text


def test_an_error_in_a_group_of_device_code_stays_clangs_located_error(tmp_path):
    # The host parse's errors reach the device views first: a malformed directive there is clang's to report.
    with pytest.raises(CompileError) as raised:
        _as_parsed(tmp_path, "#if __CUDA_ARCH__ >= 700\n#define\n" + DEVICE_HELPER + "#endif\n" + KERNEL)
    assert [(d.loc.line, d.message) for d in raised.value.diagnostics] == [(2, "macro name missing")]
