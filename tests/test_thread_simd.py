"""Pass thread-simd: SIMD thread loops only where no ordering between threads matters, and the
vectorized programs (built at -O3, as cuda2cpu builds them) still give the host's results."""

from __future__ import annotations

import os
import subprocess

import pytest

from support import PROGRAMS, compile_cpp
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

MIXED = PROGRAMS / "openmp" / "simd_mixed.cu"


def _loops(program: ir.Program, kernel: str) -> list[ir.ThreadLoop]:
    (k,) = [k for k in program.kernels if k.name == kernel]
    return [n for n in k.walk() if isinstance(n, ir.ThreadLoop)]


def _calls(loop: ir.ThreadLoop) -> set[str]:
    return {ir.callee_name(n.func) for n in loop.walk() if isinstance(n, ir.Call)}


def test_loops_with_atomics_are_not_simd_and_the_others_are():
    program = translate_file(MIXED).program
    for name in ("mixed", "running_sum"):
        for loop in _loops(program, name):
            assert loop.simd == (not any(c.startswith("atomic") for c in _calls(loop))), (name, loop)
    assert any(loop.simd for loop in _loops(program, "mixed"))


def test_volatile_data_keeps_thread_order(tmp_path):
    # Stores through a volatile pointer are observable in order (flags polled by the host, or
    # warp-synchronous code): such a thread loop is not SIMD; its plain neighbour is.
    cu = tmp_path / "flags.cu"
    cu.write_text("""
__global__ void publish(volatile int *flags, int *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { values[i] = 2 * i; flags[i] = 1; }
}
__global__ void plain(int *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) values[i] += 1;
}
""")
    program = translate_file(cu).program
    touching = [l for l in _loops(program, "publish")
                if any(isinstance(n, ir.Name) and n.name == "flags" for n in l.walk())]
    assert touching and not any(l.simd for l in touching)
    assert [l.simd for l in _loops(program, "plain")] == [True]


@pytest.mark.parametrize("cu", [MIXED, PROGRAMS / "warp" / "shuffle.cu", PROGRAMS / "warp" / "vote.cu",
                                PROGRAMS / "openmp" / "guards.cu"],
                         ids=["atomics", "shuffles", "votes", "guards"])
def test_vectorized_build_gives_the_host_results(cu, tmp_path):
    result = translate_file(cu, TranslateOptions())
    assert "#pragma omp simd" in result.source
    cpp = tmp_path / f"{cu.stem}.cpp"
    cpp.write_text(result.source)
    built = compile_cpp(cpp, tmp_path / cu.stem, [f"-I{d}" for d in result.include_dirs], opt="-O3")
    assert built.returncode == 0, built.stderr[-3000:]
    run = subprocess.run([str(tmp_path / cu.stem)], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
