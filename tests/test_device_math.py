"""Pass device-math: device code calls the standard library's math functions through
moccuda::device_math, which SIMD thread loops call by glibc's libmvec variants where those are
within CUDA's error bounds; host code keeps the plain calls."""

from __future__ import annotations

import os
import platform
import re
import subprocess

import pytest

from coverage_table import covers
from support import CXX, PROGRAMS, ROOT, compile_cpp, translate_build_run
from foundation import device_math
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

SIMD_MATH = PROGRAMS / "device_lib" / "simd_math.cu"
HEADER = ROOT / "moccuda" / "include" / "cuda2cpu_device_math.h"
WITHOUT = TranslateOptions(disabled_passes=("device-math",))

#: The notes of the coverage rows (COVERAGE.md's "Math" section).
NOTE = ("vectorized in SIMD thread loops through glibc's libmvec, whose variants are within CUDA's bound "
        "(x86-64, glibc 2.35); a loop's vector and remainder iterations may differ by those ulps, as CUDA's "
        "own results differ from glibc's (docs/PERFORMANCE.md, Device math)")
NOTE_SCALAR = ("glibc's scalar function: libmvec's variants are beyond CUDA's bound (docs/PERFORMANCE.md, "
               "Device math)")


def _glibc_version() -> tuple[int, int]:
    found = re.match(r"glibc (\d+)\.(\d+)", os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else "")
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


LIBMVEC = platform.machine() == "x86_64" and _glibc_version() >= (2, 35) and "clang" not in CXX
NO_LIBMVEC = "libmvec's float variants need x86-64 with glibc 2.35 or later and g++"


@covers("Math", *[f"{name}f in a thread loop" for name in ("erf", "sin", "cos", "tan", "tanh", "pow", "atan2", "exp2")],
        "erf(float) (<cmath>'s overload) in a thread loop",
        "math call in a __device__ function template (dependent argument)", note=NOTE)
@covers("Math", *[f"{name} in a thread loop" for name in ("expf", "logf", "log2f", "exp (double)", "sin (double)")],
        "std::exp(float) / ::log(float) in a thread loop", note=NOTE_SCALAR)
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_math_in_thread_loops_is_within_cuda_bounds(lowering, tmp_path):
    """Every function, each spelling, blocks of 1 to 256 threads: within CUDA's bound of the
    host's double (long double) values; the host's own erff loop gives glibc's scalar values."""
    options = TranslateOptions() if lowering == "split" else TranslateOptions(lowering="fallback")
    _, run, _ = translate_build_run(SIMD_MATH, tmp_path, options)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-3000:]


def _kernel_text(source: str, kernel: str) -> str:
    start = source.index(f"void {kernel}(")
    return source[start:source.index("moccuda::launch_end", start)]


def test_thread_loops_name_device_math_and_stay_simd():
    source = translate_file(SIMD_MATH).source
    for kernel, callee in (("k_erff", "erff"), ("k_erf_overload", "erff"), ("k_std_exp", "expf"),
                           ("k_global_log", "logf"), ("k_erf", "erf"), ("k_exp10_of_float", "exp10")):
        text = _kernel_text(source, kernel)
        assert "#pragma omp simd" in text and f"moccuda::device_math::{callee}(" in text, (kernel, text)
    # <cmath>'s integer overloads (double results) are left as written.
    assert "pow((float)x, 2)" in _kernel_text(source, "k_pow_float_int")
    # Without the pass, the calls are as written.
    assert "moccuda::device_math" not in translate_file(SIMD_MATH, WITHOUT).source


@pytest.mark.skipif(not LIBMVEC, reason=NO_LIBMVEC)
@pytest.mark.parametrize("opt", ["-O2", "-O3"])
def test_simd_loops_call_the_libmvec_variants(opt, tmp_path):
    """The built program calls libmvec's SSE variants (gcc's default ISA); without the pass, it
    calls none, and its thread loops over erff stay scalar."""
    for name, options in (("with", TranslateOptions()), ("without", WITHOUT)):
        cpp = tmp_path / f"{name}.cpp"
        cpp.write_bytes(translate_file(SIMD_MATH, options).source_bytes())
        built = compile_cpp(cpp, tmp_path / name, opt=opt)
        assert built.returncode == 0, built.stderr[-3000:]
        symbols = subprocess.run(["nm", str(tmp_path / name)], capture_output=True, text=True, check=True).stdout
        variants = set(re.findall(r"_ZGVbN\d+v+_\w+", symbols))
        if name == "with":
            assert {"_ZGVbN4v_erff", "_ZGVbN4v_sinf", "_ZGVbN4v_tanhf", "_ZGVbN4vv_powf"} <= variants, variants
        else:
            assert not variants, variants


SPELLINGS = """\
#include <cmath>
struct Dual { float v; };
__device__ Dual exp(Dual d) { return Dual{expf(d.v)}; }
template <class T> __device__ T kept_template(T x) { return erf(x) + std::exp(x); }
template <class T> __device__ T with_user_overload(T x) { return exp(x); }
template <class T> __device__ T gnu_exp10(T x) { return exp10(x); }
__device__ float kept(float x) { return sinf(x) + std::cos(x); }
__host__ __device__ float both(float x) { return tanhf(x); }
#define ERF(x) erff(x)
__device__ float through_macro(float x) { return ERF(x); }
__global__ void k(float *a, double *b, int *c)
{
    int i = threadIdx.x;
    float x = a[i];
    a[i] = erff(x) + erf(x) + std::erf(x) + ::erf(x) + kept_template(x) + with_user_overload(x) + kept(x) + both(x)
         + through_macro(x) + gnu_exp10(x) + exp(Dual{x}).v;
    b[i] = erf(b[i]) + exp(c[i]) + pow(x, 2) + pow(b[i], 2.0) + exp10(x);
}
"""


@covers("Math", "std:: and :: qualified math calls in device code", note=NOTE)
def test_each_spelling_names_the_function_it_resolves_to(tmp_path):
    cu = tmp_path / "spellings.cu"
    cu.write_text(SPELLINGS)
    source = translate_file(cu).source
    body = source[source.index("a[i] ="):]
    # The float overloads and the C function: erff; the double one: erf; C's exp10 of double only,
    # on a float argument: exp10 (which converts it).
    assert body.count("moccuda::device_math::erff(x)") == 4
    assert "moccuda::device_math::erf(b[i])" in body and "moccuda::device_math::pow(b[i], 2.0)" in body
    assert "moccuda::device_math::exp10(x)" in body
    # <cmath>'s integer overloads and a program's own overload stay as written.
    assert "exp(c[i])" in body and "pow(x, 2)" in body and "exp(Dual{x})" in body
    # Device code kept as written: a template's dependent calls through <cmath>'s overloads, where
    # only the library's are in scope; a __device__ helper's resolved calls through the C functions.
    assert "moccuda::device_math::cmath::erf(x) + moccuda::device_math::cmath::exp(x)" in source
    assert "{ return exp(x); }" in source  # the program's exp(Dual) is a candidate too
    assert "{ return exp10(x); }" in source  # a GNU function of double only: no overloads to mirror
    assert "moccuda::device_math::sinf(x) + moccuda::device_math::cosf(x)" in source
    assert "Dual{moccuda::device_math::expf(d.v)}" in source
    # Host code may call a __host__ __device__ function: kept; so is a call spelled by a macro.
    assert "{ return tanhf(x); }" in source and "#define ERF(x) erff(x)" in source
    assert "moccuda::device_math" not in translate_file(cu, WITHOUT).source


def test_translator_table_agrees_with_the_header():
    """Every name the translator prints is declared by cuda2cpu_device_math.h, and <cmath>'s
    overloads are the header's."""
    text = HEADER.read_text()

    def listed(macro: str) -> set[str]:
        body = re.search(rf"#define {macro}\(F\)((?:.*\\\n)*.*)", text).group(1)
        return set(re.findall(r"F\((\w+)", body))

    c_functions = (listed("MOCCUDA_LIBMVEC_FLOAT_UNARY") | listed("MOCCUDA_LIBMVEC_FLOAT_BINARY")
                   | listed("MOCCUDA_LIBMVEC_DOUBLE_UNARY") | listed("MOCCUDA_LIBMVEC_DOUBLE_BINARY"))
    assert c_functions == set(device_math.C_FUNCTIONS)
    assert listed("MOCCUDA_CMATH_UNARY") | listed("MOCCUDA_CMATH_BINARY") == set(device_math.CMATH)
    assert listed("MOCCUDA_CMATH_BINARY") == set(device_math.BINARY)
