"""Run-and-check: every bundled example, built through the cuda2cpu CLI, prints PASS."""

import os
import subprocess
import sys

import pytest

from support import EXAMPLES, ROOT, have, run_cli as cuda2cpu

CASES = sorted(EXAMPLES.glob("*.cu"))




@pytest.mark.parametrize("cu", CASES, ids=[c.stem for c in CASES])
def test_example_prints_pass(cu, tmp_path):
    exe = tmp_path / cu.stem
    built = cuda2cpu(cu, "-o", exe, "-O2", "-arch=sm_70")
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_makefile_with_cuda2cpu_as_nvcc(tmp_path):
    for name in ("vecadd.cu", "stencil.cu", "Makefile"):
        (tmp_path / name).write_text((EXAMPLES / name).read_text())
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / "cuda2cpu"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -m transpiler.cli \"$@\"\n")
    wrapper.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{bindir}:{os.environ['PATH']}")
    made = subprocess.run(["make", "NVCC=cuda2cpu", "EXAMPLES=vecadd stencil", "run"], cwd=tmp_path,
                          capture_output=True, text=True, env=env)
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.count("PASS") == 2


@pytest.mark.skipif(not have("nvcc"), reason="nvcc is not installed: cannot check the examples are valid CUDA")
@pytest.mark.parametrize("cu", CASES, ids=[c.stem for c in CASES])
def test_example_is_valid_cuda_for_nvcc(cu, tmp_path):
    """The examples are real CUDA: nvcc compiles each (no GPU is needed to compile)."""
    done = subprocess.run(["nvcc", "-std=c++17", "-c", str(cu), "-o", str(tmp_path / "x.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
