"""Programs of tests/programs/scope: constructs whose scope the translation must keep exactly
(where a variable lives, which function a launch runs, where a macro is in effect), each a
self-checking program run at one OpenMP thread and at several (blocks then run concurrently)."""

from __future__ import annotations

import pytest

from barrier.liveness import per_thread_storage_type
from coverage_table import covers
from support import PROGRAMS, translate_build_run
from transpiler.cli import main as cuda2cpu_main
from transpiler.translate import translate_file

SCOPE = PROGRAMS / "scope"


def assert_passes(name: str, tmp_path, threads: int) -> None:
    _, run, _ = translate_build_run(SCOPE / f"{name}.cu", tmp_path, threads=threads, timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("C++ in device code", "explicit specialization of a kernel template (launched by its arguments or deduced)")
@pytest.mark.parametrize("threads", [1, 3])
def test_explicit_specialization_of_a_kernel_template_is_what_its_launch_runs(threads, tmp_path):
    assert_passes("kernel_specialization", tmp_path, threads)


def test_kernel_library_names_an_explicit_specialization(tmp_path, capsys):
    """Its entry point takes the specialization by name (``&::k<3>``), not an overload."""
    out = tmp_path / "lib.so"
    assert cuda2cpu_main(["--emit=kernel-library", str(SCOPE / "kernel_specialization.cu"), "-o", str(out)]) == 0, \
        capsys.readouterr().err
    assert out.exists()
    source = translate_file(SCOPE / "kernel_specialization.cu", kernel_library=True).source
    assert "&::scaled<3>)" in source and "&::fill<float>)" in source


@covers("Preprocessor", "#define / #undef inside a kernel or __device__ function body (in effect for the host code after it)")
def test_macros_defined_in_kernel_bodies_hold_after_them(tmp_path):
    assert_passes("kernel_macros", tmp_path, 2)


@covers("Kernels and memory", "large per-thread array live across __syncthreads (32 KiB x 256 threads)",
        note="kept values over 64 bytes per thread live in a buffer of the OpenMP thread, reused by later blocks")
@pytest.mark.parametrize("threads", [1, 3])
def test_large_per_thread_array_across_a_barrier_is_not_on_the_stack(threads, tmp_path):
    assert_passes("large_kept_array", tmp_path, threads)


def test_small_kept_values_stay_plain_arrays():
    """Scalars, pointers, vectors and arrays up to 64 bytes keep a plain array (gcc vectorizes
    through it); larger or unknown sizes go to moccuda::PerThread, which decides by sizeof."""
    assert per_thread_storage_type("const float", 1024) == "float[1024]"
    assert per_thread_storage_type("double[8]", 1024) == "double[1024][8]"
    assert per_thread_storage_type("float4", 1024) == "float4[1024]"
    assert per_thread_storage_type("double[9]", 1024) == "moccuda::PerThread<double[9], 1024>"
    assert per_thread_storage_type("T", 1024) == "moccuda::PerThread<T, 1024>"
