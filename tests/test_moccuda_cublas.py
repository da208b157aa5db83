"""MocCUDA's cuBLAS on the CPU (libmoccuda_cublas.so, SONAME libcublas.so.13, over OpenBLAS):
a C++ program built with g++ against it checks SGEMM/DGEMM/GemmEx/strided batches with both
transposes, padded leading dimensions and alpha/beta against a naive reference, the level-1 and -2
functions, pointer and math modes, argument errors, and that a call waits for its stream."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from coverage_table import covers
from moccuda import build

PROGRAMS = Path(__file__).resolve().parent / "moccuda_programs"
CXX = os.environ.get("CXX", "g++")

pytest.importorskip("scipy_openblas32", reason="cuBLAS on the CPU needs OpenBLAS (pip install scipy-openblas32)")


def test_library_stands_in_for_libcublas():
    lib = build.build("cublas")
    dynamic = subprocess.run(["readelf", "-dW", str(lib)], capture_output=True, text=True).stdout
    assert "Library soname: [libcublas.so.13]" in dynamic
    assert "libscipy_openblas.so" in dynamic  # a real BLAS does the arithmetic
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True, text=True).stdout
    assert "cublasSgemm_v2@@libcublas.so.13" in symbols
    assert (lib.parent / "libcublas.so.13").resolve() == lib.resolve()


@covers("cuBLAS",
        "cublasCreate", "cublasDestroy", "cublasDgemm", "cublasDgemv", "cublasGemmEx", "cublasGetMathMode",
        "cublasGetPointerMode", "cublasGetStatusName", "cublasGetStream", "cublasGetVersion", "cublasSaxpy",
        "cublasSdot", "cublasSetMathMode", "cublasSetPointerMode", "cublasSetStream", "cublasSgemm",
        "cublasSgemmStridedBatched", "cublasSgemv", "cublasSnrm2", "cublasSscal")
def test_cublas_checks(tmp_path):
    lib = build.build("cublas")
    exe = tmp_path / "cublas_checks"
    cmd = [CXX, "-std=c++17", "-fopenmp", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{build.include_dir()}",
           str(PROGRAMS / "cublas_checks.cpp"), "-o", str(exe), *build.link_flags(), str(lib),
           f"-Wl,-rpath,{lib.parent}"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-6000:]}"
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2"))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
