"""Measurement (not a test): the largest error of the SIMD math that device code calls.

    python benchmarks/device_math_accuracy.py [--stride S] [--samples N] [--threads T] [FUNCTION...]

Builds benchmarks/device_math_accuracy/ (x86-64 with glibc 2.35 or later, g++) and runs it: for
each function of glibc's libmvec, the error of its SIMD variants of every vector ISA the CPU has
(b SSE2, c AVX, d AVX2, e AVX-512, each called from an `omp simd` loop as translated programs
call them), in ulps against glibc's double (for float) or long double (for double) function,
next to glibc's scalar function's error and the variants' largest difference from it.  Float functions of
one argument are measured at every S-th of the 2^32 arguments (S = 1: all; about 2 minutes of
CPU per function), the others at N random arguments.  The table of ISA levels in
cuda2cpu_device_math.h comes from this output; docs/PERFORMANCE.md ("Device math") has it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = Path(__file__).resolve().parent / "device_math_accuracy"

#: The flags of each ISA's loops: gcc calls libmvec's variants of the ISA it compiles for.
ISA_FLAGS = {"b": [], "c": ["-mavx"], "d": ["-mavx2", "-mfma"], "e": ["-mavx512f", "-mfma"]}


def build(workdir: Path) -> Path:
    cxx = os.environ.get("CXX", "g++")
    objects = []
    for isa, flags in ISA_FLAGS.items():
        obj = workdir / f"kernels_{isa}.o"
        subprocess.run([cxx, "-O2", "-fopenmp", *flags, f"-DISA={isa}", "-c",
                        str(SOURCES / "kernels.cpp"), "-o", str(obj)], check=True)
        objects.append(str(obj))
    exe = workdir / "accuracy"
    subprocess.run([cxx, "-O2", "-fopenmp", str(SOURCES / "accuracy.cpp"), *objects, "-o", str(exe), "-lm"],
                   check=True)
    return exe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=1, help="measure every S-th float argument (1: all)")
    parser.add_argument("--samples", type=int, default=1 << 24, help="random arguments of the other functions")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("functions", nargs="*", help="C names of the double functions (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(Path(tmp))
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        return subprocess.run([str(exe), str(args.stride), str(args.samples), *args.functions], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
