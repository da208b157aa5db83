"""Constructs met in the real Rodinia 3.1 apps (docs/CORPUS.md, "Rodinia 3.1").

Each program in tests/programs/others_code/ named here is a minimal, self-checking reproducer of
one class of construct that stopped (or changed the answer of) a Rodinia app; it is translated,
built with g++ and MocCUDA, and run at 2 and at many OpenMP threads."""

from __future__ import annotations

import os
import subprocess

from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, run_built, run_cli, translate_build_run

OTHERS = PROGRAMS / "others_code"


def _passes(tmp_path, name: str) -> None:
    cu = OTHERS / name
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    again = run_built(cu, tmp_path, MANY_THREADS)
    assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr


@covers("Kernels and memory", "host loop of launches in an included file (one parallel region, hotspot3D)")
def test_launch_loop_in_an_included_file(tmp_path):
    _passes(tmp_path, "launch_loop_in_header.cu")


@covers("Headers", "cuda.h's result codes and handle types beside the runtime API (CUDA_SUCCESS, CUresult)")
def test_driver_result_codes(tmp_path):
    _passes(tmp_path, "driver_result_codes.cu")


@covers("Runtime API (C level)", "cudaMemcpyToSymbol(\"name\", ...): a symbol named by a string (CUDA 4), also linked without -rdynamic")
def test_symbol_named_by_a_string_linked_by_a_makefile(tmp_path):
    cu = OTHERS / "symbol_named_by_string.cu"
    obj, exe = tmp_path / "prog.o", tmp_path / "prog"
    built = run_cli("-c", cu, "-o", obj)
    assert built.returncode == 0, built.stderr
    toolkit = run_cli("--toolkit-dir").stdout.strip()
    linked = subprocess.run(["g++", str(obj), f"-L{toolkit}/lib64", "-lcudart", "-o", str(exe)],
                            capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Headers", "cuda_gl_interop.h (OpenGL interop declared; every call returns cudaErrorNotSupported)")
def test_gl_interop_header(tmp_path):
    _passes(tmp_path, "gl_interop_header.cu")


@covers("Kernels and memory", "a translated object linked by a C driver (gcc ... -lcudart): no libstdc++ symbols (kmeans, backprop)")
def test_translated_object_links_with_a_c_driver(tmp_path):
    source = OTHERS / "c_driver"
    kernel_obj, main_obj, exe = tmp_path / "scale.o", tmp_path / "main.o", tmp_path / "prog"
    built = run_cli("-c", source / "scale.cu", "-o", kernel_obj)
    assert built.returncode == 0, built.stderr
    subprocess.run(["gcc", "-c", str(source / "main.c"), "-o", str(main_obj)], check=True)
    toolkit = run_cli("--toolkit-dir").stdout.strip()
    linked = subprocess.run(["gcc", "-fopenmp", str(main_obj), str(kernel_obj), f"-L{toolkit}/lib64", "-lcudart",
                             "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, OMP_NUM_THREADS="2", LD_LIBRARY_PATH=f"{toolkit}/lib64"))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
