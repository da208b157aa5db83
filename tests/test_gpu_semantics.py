"""What a GPU computes, the translation computes, where C++ on x86 would differ (issue 18): type
punning through locals, shift counts of the operand's width or more, and a failing device
``assert``.  Each program in tests/programs/device_lib/ checks its own results and prints PASS."""

from __future__ import annotations

import subprocess

import pytest

from coverage_table import covers
from support import PROGRAMS, run_cli as cuda2cpu, translate_build_run
from foundation.options import TranslateOptions

DEVICE_LIB = PROGRAMS / "device_lib"

#: The builds of the driver a translation goes through: a program, objects then a link, a static
#: library then a link; at the default -O3 and at -O2 (what PyTorch extensions get).
BUILDS = {
    "program -O3": [["{cu}", "-o", "app"]],
    "program -O2": [["-O2", "{cu}", "-o", "app"]],
    "-c then link": [["-c", "{cu}", "-o", "prog.o"], ["prog.o", "-o", "app"]],
    "-lib then link": [["-lib", "{cu}", "-o", "libprog.a"], ["libprog.a", "-o", "app"]],
}


def build_with_cli(cu, tmp_path, steps) -> subprocess.CompletedProcess:
    for argv in steps:
        done = cuda2cpu(*[a.format(cu=cu) for a in argv], cwd=tmp_path)
        assert done.returncode == 0, (argv, done.stderr)
    return subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, timeout=60)


@covers("Device code", "type punning through a local (reinterpret_cast<float *>(&uint4_local)[k])",
        note="translations are compiled with -fno-strict-aliasing")
@pytest.mark.parametrize("build", BUILDS)
def test_type_punning_through_locals_keeps_its_stores(build, tmp_path):
    # g++ -O2/-O3 with strict aliasing dropped the float stores into the local uint4: output 0.
    run = build_with_cli(DEVICE_LIB / "type_punning.cu", tmp_path, BUILDS[build])
    assert run.returncode == 0 and run.stdout == "PASS\n", run.stdout + run.stderr


def test_kernel_libraries_and_torch_extensions_compile_without_strict_aliasing(tmp_path):
    # The nvcc-built and PyTorch paths compile the translation with the same flag (running them
    # needs nvcc or PyTorch; tests/test_moccuda_nvcc.py and tests/test_torch_extension.py do).
    from moccuda.torch.translate import compile_flags

    shown = cuda2cpu("--emit=kernel-library", "-dryrun", DEVICE_LIB / "type_punning.cu", "-o", "libk.so", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    compiles = [line for line in shown.stderr.splitlines() if line.startswith("#$ ") and " -c " in line]
    assert compiles and all("-fno-strict-aliasing" in line.split() for line in compiles), shown.stderr
    assert "-fno-strict-aliasing" in compile_flags([])


@covers("Device code", "shift by a count of the operand's width or more (<<, >>, <<=, >>=)", status="partial",
        note="the GPU's result (0, or -1 for >> of a negative value) in kernels and __device__ functions; "
             "an overloaded or __host__ __device__ function shifts as the host does")
@pytest.mark.parametrize("options", [TranslateOptions(), TranslateOptions(lowering="fallback")],
                         ids=["default", "lowering=fallback"])
def test_shift_counts_of_the_width_or_more_shift_every_bit_out(options, tmp_path):
    # x86 masks the count (x << 32 == x); the GPU gives 0.  Rodinia's huffman packs 32-bit code
    # words with such shifts.
    _, run, _ = translate_build_run(DEVICE_LIB / "shift_counts.cu", tmp_path, options)
    assert run.returncode == 0 and run.stdout == "PASS\n", run.stdout + run.stderr
