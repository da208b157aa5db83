"""Grid-wide synchronization of cooperative launches (front end ``cuda_front/warp_front.py``,
passes ``warp-collectives`` and ``grid-sync``, ``openmp_emit/cooperative_emit.py``,
``moccuda::cooperative`` in ``cooperative_groups.h``).

tests/programs/cooperative/grid_sync.cu is self-checking: the host recomputes every value a
grid-synchronized kernel produces (steps that read what other blocks wrote in the step before,
a grid-wide sum), and prints PASS.  One build serves every test that runs it.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, translate_build_run
from foundation import ir
from foundation.diagnostics import CompileError
from transpiler.translate import translate_file

GRID_SYNC = PROGRAMS / "cooperative" / "grid_sync.cu"


@pytest.fixture(scope="module")
def grid_program(tmp_path_factory):
    """(translation, run, executable) of grid_sync.cu."""
    workdir = tmp_path_factory.mktemp("grid_sync")
    result, run, _ = translate_build_run(GRID_SYNC, workdir)
    return result, run, workdir / GRID_SYNC.stem


@covers("Cooperative groups", "cudaLaunchCooperativeKernel with grid.sync()", "cg::this_grid",
        "grid_group::sync / cg::sync(grid) / cg::this_grid().sync()", "grid.sync() in a loop and in a __device__ function",
        "grid_group::thread_rank / size / block_rank / num_blocks", "grid_group::is_valid",
        "cudaLaunchCooperativeKernel((void *)kernel, ...)", "cudaLaunchKernelEx with cudaLaunchAttributeCooperative",
        "extern __shared__ memory in a cooperative kernel",
        note="each block runs on a thread of its own, all at once; grid.sync() is a block barrier, then a "
             "barrier of the blocks")
@covers("Host API", "cudaLaunchCooperativeKernel (grid larger than the device holds)",
        note="cudaErrorCooperativeLaunchTooLarge, as CUDA")
@covers("C++ in device code", "kernel parameter assigned in the kernel (pointer swap)",
        note="each thread has its own copy, as in CUDA")
def test_grid_sync_orders_the_blocks_of_a_cooperative_launch(grid_program):
    result, run, _ = grid_program
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]
    assert "oversized: cudaErrorCooperativeLaunchTooLarge" in run.stdout
    schedules = {k["name"]: k["schedule"] for k in result.explain["kernels"]}
    assert schedules["smooth"].startswith("cooperative") and schedules["validity"].startswith("cooperative")
    smooth = next(k for k in result.program.kernels if k.name == "smooth")
    assert not [n for n in smooth.walk() if isinstance(n, (ir.WarpCollective, ir.WarpSync, ir.Barrier))]
    assert "moccuda::cooperative::run_grid(launch," in result.source


@pytest.mark.parametrize("threads", [1, MANY_THREADS])
def test_grid_sync_at_other_thread_counts(grid_program, threads):
    """The blocks of a cooperative launch run on threads of their own whatever OpenMP's count;
    the grid barrier a block reads (moccuda::detail::BlockLocals) is its own thread's."""
    exe = grid_program[2]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-2000:]


@covers("Cooperative groups", "grid.sync() in a kernel launched with <<<>>>", status="not supported",
        note="the run stops with an error naming cudaLaunchCooperativeKernel (CUDA: undefined)")
def test_grid_sync_without_a_cooperative_launch_stops_the_program(grid_program):
    exe = grid_program[2]
    run = subprocess.run([str(exe), "ordinary"], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 1 and "unreachable" not in run.stdout, run.stdout + run.stderr
    assert "not launched with cudaLaunchCooperativeKernel" in run.stderr, run.stderr


@covers("Cooperative groups", "grid.sync() in a kernel lowered with the fiber fallback", status="not supported",
        note="located error")
def test_grid_sync_in_a_fiber_kernel_is_a_located_error(tmp_path):
    cu = tmp_path / "t.cu"
    cu.write_text("#include <cooperative_groups.h>\n"
                  "namespace cg = cooperative_groups;\n"
                  "__global__ void k(int *a, int mode) {\n"
                  "  if (mode) goto skip;\n"
                  "  a[threadIdx.x] = 1;\n"
                  "  cg::this_grid().sync();\n"
                  "skip:\n"
                  "  a[threadIdx.x] += a[0];\n"
                  "}\n")
    with pytest.raises(CompileError) as info:
        translate_file(cu)
    message = str(info.value)
    assert f"{cu}:6:" in message and "grid.sync() in a kernel lowered with the fiber fallback" in message, message
