"""Programs of tests/programs/scope: constructs whose scope the translation must keep exactly
(where a variable lives, which function a launch runs, where a macro is in effect), each a
self-checking program run at one OpenMP thread and at several (blocks then run concurrently)."""

from __future__ import annotations

import pytest

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
