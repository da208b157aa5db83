"""aarch64: cuda2cpu cross-builds with Debian's g++-aarch64-linux-gnu (MocCUDA's runtime library
too, with $CXX and the archiver beside it) and the programs run under qemu-user; the fiber
fallback switches contexts with moccuda/fibers.h's aarch64 assembly, which keeps the callee-saved
registers (x19-x30, d8-d15) of every CUDA thread.  A few programs of ``python -m tests.cross_aarch64``
(which runs them all); skipped, saying what is missing, without the cross compiler and qemu."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import cross_aarch64
from cross_aarch64 import Case
from support import EXAMPLES, PROGRAMS

MISSING = cross_aarch64.missing_tools()
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"no aarch64 cross toolchain: missing {', '.join(MISSING)} "
                                                      "(apt-get install g++-aarch64-linux-gnu qemu-user)")


def test_vecadd_example_cross_builds_and_runs_on_aarch64(tmp_path):
    assert cross_aarch64.check(Case("vecadd", EXAMPLES / "vecadd.cu"), tmp_path) == ""


def test_fiber_fallback_keeps_callee_saved_registers_on_aarch64(tmp_path):
    """Twenty values (ten in integer registers, ten in floating-point ones) live across each barrier
    of callee_saved_across_barrier.cu, in 128 fibers per block: the program fails if the switch
    loses any of x19-x28 or d8-d15 (with d8/d9 left unrestored it prints a wrong sum).  The
    executable carries the assembly switch, not ucontext's swapcontext."""
    cu = PROGRAMS / "barriers" / "callee_saved_across_barrier.cu"
    exe, why = cross_aarch64.build(Case("fallback:callee_saved", cu, "fallback"), tmp_path)
    assert exe is not None, why
    nm = shutil.which("aarch64-linux-gnu-nm") or "nm"
    symbols = subprocess.run([nm, str(exe)], capture_output=True, text=True, check=True).stdout
    assert "moccuda_fiber_switch" in symbols and "swapcontext" not in symbols
    run = cross_aarch64.run(exe)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_warp_collectives_run_in_aarch64_fibers(tmp_path):
    """Warp shuffles under the fallback: warp-scope syncs switch among a warp's lanes."""
    cu = PROGRAMS / "warp" / "shuffle.cu"
    assert cross_aarch64.check(Case("fallback:warp/shuffle", cu, "fallback"), tmp_path) == ""


def test_device_math_cross_builds_and_runs_on_aarch64(tmp_path):
    """moccuda::device_math on AArch64: the C library's functions called as they are (no libmvec
    declarations: AArch64's came with glibc 2.38, under other names) and the inline float
    exponentials and logarithms; within CUDA's bounds there too, and the host's erff unchanged."""
    cu = PROGRAMS / "device_lib" / "simd_math.cu"
    assert cross_aarch64.check(Case("device_lib/simd_math", cu), tmp_path) == ""
