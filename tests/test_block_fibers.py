"""MocCUDA's block fibers (moccuda/include/moccuda/block_fibers.h): the blocks of a launch whose
blocks wait for each other, as fibers on OpenMP's threads.

tests/moccuda_programs/block_fibers.cpp drives the scheduler as a translated kernel does (spin_yield
and spin_done around each spinning loop) and checks what it promises: a block waiting for one not
started yet gets it started, no more blocks start than the waiting needs (nor than the device's
limit), and what MocCUDA keeps per OS thread for a block follows the block's fiber.  Each section
runs at 1, 2 and 16 OpenMP threads.  The translated programs of waiting blocks are in
tests/test_others_code.py.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from moccuda import build
from support import MANY_THREADS

PROGRAM = Path(__file__).resolve().parent / "moccuda_programs" / "block_fibers.cpp"
CXX = os.environ.get("CXX", "g++")

SECTIONS = {
    "reverse_chain": "block b waits for block b + 1: the last block starts while all others wait",
    "forward_chain": "block b waits for block b - 1: no more live blocks than OS threads and the starts "
                     "not yet confirmed by every thread",
    "device_limit": "never more live blocks than most_at_once, even when all of them wait",
    "block_locals": "ambient indices, dynamic shared memory and the fibers of a block's threads follow "
                    "the block's fiber; a thread fiber that spins switches out its whole block",
    "outside_fibers": "a spinning loop outside a block fiber yields to the OS",
}


@pytest.fixture(scope="module")
def block_fibers(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("block_fibers") / "block_fibers"
    cmd = [CXX, "-std=c++17", "-fopenmp", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{build.include_dir()}",
           str(PROGRAM), "-o", str(exe), *build.link_flags()]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-6000:]}"
    return exe


@pytest.mark.parametrize("threads", [1, 2, MANY_THREADS])
@pytest.mark.parametrize("section", SECTIONS)
def test_block_fibers(block_fibers, section, threads):
    run = subprocess.run([str(block_fibers), section], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), \
        f"{section} ({SECTIONS[section]}) at {threads} threads:\n{run.stdout}{run.stderr}"
