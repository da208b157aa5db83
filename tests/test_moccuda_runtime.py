"""MocCUDA, the CUDA runtime on the CPU: its headers in both modes and its library, exercised
through real programs built with g++ and through libclang (no mocks).

The C++ programs live in tests/moccuda_programs/.  runtime_checks.cpp is compiled once; each test
below runs one of its sections, which prints PASS or the first failing check.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import clang.cindex as ci
import pytest

from coverage_table import covers
from moccuda import build

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = Path(__file__).resolve().parent / "moccuda_programs"
CXX = os.environ.get("CXX", "g++")
CC = os.environ.get("CC", "gcc")


# The library comes from the shared cache, as for every other test: its directory is named by a
# hash of every source and header (moccuda.build.library_dir), so it is always built from the
# current sources; test_build_is_cached_and_atomic builds it afresh in a cache of its own.


def _compile(source: Path, exe: Path) -> Path:
    cmd = [CXX, "-std=c++17", "-fopenmp", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{build.include_dir()}",
           str(source), "-o", str(exe), *build.link_flags()]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-6000:]}"
    return exe


def _run(*cmd, **env) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


@pytest.fixture(scope="module")
def runtime_checks(tmp_path_factory) -> Path:
    return _compile(PROGRAMS / "runtime_checks.cpp", tmp_path_factory.mktemp("checks") / "runtime_checks")


SECTIONS = {
    "errors": "invalid free, GetLastError resets and Peek does not, per-thread last error, "
              "error names and strings, invalid device, bad memcpy kind",
    "launch": "launch_begin rejects each invalid configuration and records the error; "
              "a refused kernel does not run; opt-in shared memory; stream handles",
    "memory": "malloc/memset/memcpy of every kind, 2D copies, pitches, pinned and managed memory, "
              "pointer attributes, device memory limit, cudaDeviceReset",
    "large_copies": "copies and fills of several MiB into fresh and into written memory (the runtime "
                    "maps the destination's pages first), at unaligned destinations and sizes",
    "huge_pages": "allocations of 2 MiB and more start on a 2 MiB boundary and are advised for "
                  "transparent huge pages (smaps' VmFlags); smaller ones are not; the device "
                  "memory counts the bytes asked for",
    "symbols": "cudaMemcpyToSymbol/FromSymbol with offsets, bounds and directions; symbol address and size",
    "events": "event timing is positive and plausible; untimed, unrecorded and destroyed events; "
              "streams, priorities and callbacks",
    "async": "streams overlap (two host functions that wait for each other), keep their order, "
             "events order another stream, queries say not ready, the legacy default stream waits "
             "for blocking streams and not for non-blocking ones, kernels wait for their stream",
    "device": "device properties (V100 under a MocCUDA name), attributes, CUDA 13 and 12 layouts, settings",
    "atomics": "atomics under OpenMP contention (int, unsigned, float, double, 64-bit, CAS loops) "
               "and their return values",
    "types": "vector type sizes and alignments match CUDA's; make_* and dim3",
    "math": "integer and math intrinsics, saturating conversions, extended math, min/max overloads",
}


# The runtime calls runtime_checks.cpp exercises (tests/coverage_table.py, docs/COVERAGE.md).
@covers("Runtime API (C level)",
        "cudaDeviceGetAttribute", "cudaDeviceGetCacheConfig", "cudaDeviceGetLimit", "cudaDeviceGetStreamPriorityRange", "cudaDeviceReset",
        "cudaDeviceSetCacheConfig", "cudaDeviceSetLimit", "cudaDeviceSynchronize", "cudaEventCreate", "cudaEventCreateWithFlags",
        "cudaEventDestroy", "cudaEventElapsedTime", "cudaEventQuery", "cudaEventRecord", "cudaEventSynchronize",
        "cudaFree", "cudaFreeHost", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig", "cudaGetDevice",
        "cudaGetDeviceCount", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "cudaGetErrorName", "cudaGetErrorString",
        "cudaGetLastError", "cudaGetSymbolAddress", "cudaGetSymbolSize", "cudaHostAlloc", "cudaHostGetDevicePointer",
        "cudaHostRegister", "cudaHostUnregister", "cudaLaunchHostFunc", "cudaMalloc", "cudaMallocHost",
        "cudaMallocManaged", "cudaMallocPitch", "cudaMemGetInfo", "cudaMemcpy", "cudaMemcpy2D",
        "cudaMemcpyAsync", "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", "cudaMemcpyToSymbol", "cudaMemset",
        "cudaMemset2D", "cudaMemsetAsync", "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxPotentialBlockSize", "cudaPeekAtLastError",
        "cudaPointerGetAttributes", "cudaRuntimeGetVersion", "cudaSetDevice", "cudaSetDeviceFlags", "cudaStreamAddCallback",
        "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaStreamDestroy", "cudaStreamGetFlags",
        "cudaStreamGetPriority", "cudaStreamQuery", "cudaStreamSynchronize", "cudaStreamWaitEvent")
@pytest.mark.parametrize("section", SECTIONS)
def test_runtime_section(runtime_checks, section):
    run = _run(runtime_checks, section, OMP_NUM_THREADS="4")
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), \
        f"{section} ({SECTIONS[section]}):\n{run.stdout}{run.stderr}"


@covers("Math", "__powf(2, i) for an integer i: exact and inline (no call in the thread loop)")
def test_powers_of_two_are_inline_and_exact(tmp_path):
    exe = _compile(PROGRAMS / "powers_of_two.cpp", tmp_path / "powers_of_two")
    run = _run(exe)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def test_compile_mode_beside_the_standard_library(tmp_path):
    """The header first, then <memory>, <algorithm>, ... and `using namespace std`: warning-free,
    CUDA's qualifiers vanish, ::min/::max are not ambiguous, and a translated kernel runs."""
    exe = _compile(PROGRAMS / "compile_mode.cpp", tmp_path / "compile_mode")
    run = _run(exe, OMP_NUM_THREADS="2")
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


# ---- libclang: parse mode, and compile mode as clang++ sees it ----

def _front_end_includes() -> list[str]:
    """The freestanding headers (stddef.h, ...) the libclang wheel lacks: cuda2cpu's own, else GCC's."""
    front = ROOT / "cuda_front" / "include"
    if (front / "stddef.h").exists():
        return ["-isystem", str(front)]
    gcc = subprocess.run([CC, "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    return ["-isystem", gcc]


def _parse_cuda(path: Path) -> ci.TranslationUnit:
    args = ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70",
            "-Wno-unknown-cuda-version", "-D__CUDA2CPU_PARSE__", "-std=c++17", *_front_end_includes(),
            "-isystem", str(build.include_dir()), "-include", "cuda_runtime.h"]
    return ci.Index.create().parse(str(path), args=args)


def _parse_cpp(path: Path) -> ci.TranslationUnit:
    gcc = subprocess.run([CC, "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    args = ["-x", "c++", "-std=c++17", "-fopenmp", "-Wall", "-Wextra", "-isystem", str(build.include_dir()),
            "-isystem", gcc]
    return ci.Index.create().parse(str(path), args=args)


def _errors(tu: ci.TranslationUnit) -> list[str]:
    return [f"{d.location.file}:{d.location.line}: {d.spelling}" for d in tu.diagnostics
            if d.severity >= ci.Diagnostic.Error]


def _from_our_headers(tu: ci.TranslationUnit) -> list[str]:
    """Diagnostics of any severity located in MocCUDA's headers."""
    here = str(build.include_dir())
    return [f"{d.location.file}:{d.location.line}: {d.spelling}" for d in tu.diagnostics
            if d.location.file is not None and d.location.file.name.startswith(here)]


def test_parse_mode_accepts_cuda_source():
    """Kernels, launches, shared memory, atomics, intrinsics, C library and math calls from
    device code, vector types, runtime calls: no error, nothing at all from our headers."""
    tu = _parse_cuda(PROGRAMS / "parse_mode.cu")
    assert _errors(tu) == []
    assert _from_our_headers(tu) == []
    # The builtin variables are the header's declarations (the front end recognises them so).
    refs = [c.referenced for c in tu.cursor.walk_preorder()
            if c.kind == ci.CursorKind.DECL_REF_EXPR and c.spelling in ("threadIdx", "blockIdx", "warpSize")]
    assert refs and all(r.location.file.name.startswith(str(build.include_dir())) for r in refs)
    launches = [c for c in tu.cursor.walk_preorder() if c.kind == ci.CursorKind.CALL_EXPR and c.spelling == "physics"]
    assert len(launches) == 2


def test_parse_mode_still_reports_errors(tmp_path):
    """The check above can fail: a real mistake in device code is an error."""
    cu = tmp_path / "bad.cu"
    cu.write_text("__global__ void k(float *a) { a[threadIdx.x] = undeclared_function(a[0]); }\n")
    assert any("undeclared_function" in e for e in _errors(_parse_cuda(cu)))


def test_compile_mode_accepted_by_clang():
    """Compile mode is plain C++ for clang++ too, without a warning from our headers."""
    for program in ("compile_mode.cpp", "runtime_checks.cpp", "block_fibers.cpp"):
        tu = _parse_cpp(PROGRAMS / program)
        assert _errors(tu) == [] and _from_our_headers(tu) == [], program


def test_compile_mode_declares_no_device_builtins(tmp_path):
    """The translator replaces threadIdx, __syncthreads(), warp functions, ...: compile mode does not
    declare them, so a use it missed fails to compile instead of meaning something else."""
    names = ["threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads", "__syncwarp",
             "__shfl_down_sync", "__ballot_sync", "__activemask"]
    cpp = tmp_path / "uses.cpp"
    cpp.write_text("#include <cuda_runtime.h>\nvoid f() {\n" + "".join(f"    (void){n};\n" for n in names) + "}\n")
    errors = "\n".join(_errors(_parse_cpp(cpp)))
    for name in names:
        assert f"use of undeclared identifier '{name}'" in errors


# ---- the library: C ABI, shared library, cached and atomic builds ----

def test_c_program_with_shared_library(tmp_path):
    """C sources get the C API; libmoccuda.so exports it unmangled (what LD_PRELOAD needs)."""
    shared = build.build("shared")
    exported = _run("nm", "-D", "--defined-only", shared).stdout.split()
    for name in ("cudaMalloc", "cudaMemcpy", "cudaGetLastError", "cudaGetErrorString", "cudaEventElapsedTime",
                 "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "cudaPointerGetAttributes",
                 "moccuda_launch_check", "moccuda_symbol_copy"):
        assert name in exported, name
    src = tmp_path / "app.c"
    src.write_text(r"""
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    float *d = NULL, h[4] = {1, 2, 3, 4}, back[4] = {0};
    dim3 grid = {2, 1, 1};
    float4 v = make_float4(1, 2, 3, 4);
    if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess) return 1;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
    cudaFree(d);
    int bad = cudaFree(d) == cudaErrorInvalidValue && cudaGetLastError() == cudaErrorInvalidValue;
    int ok = back[3] == 4 && bad && grid.x == 2 && v.w == 4 && sizeof(float4) == 16
             && moccuda_launch_check(grid, grid, 0, 0, NULL) == cudaSuccess
             && strcmp(cudaGetErrorName(cudaErrorInvalidDevice), "cudaErrorInvalidDevice") == 0;
    printf(ok ? "PASS\n" : "FAIL\n");
    return !ok;
}
""")
    exe = tmp_path / "app"
    cmd = [CC, "-std=c99", "-Wall", "-Wextra", "-Werror", f"-I{build.include_dir()}", str(src), "-o", str(exe),
           f"-L{shared.parent}", f"-Wl,-rpath,{shared.parent}", "-lmoccuda"]
    done = _run(*cmd)
    assert done.returncode == 0, done.stderr
    run = _run(exe)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_build_is_cached_and_atomic(tmp_path):
    """Concurrent first builds all succeed and agree; a finished build is reused, not redone."""
    env = dict(os.environ, MOCCUDA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    commands = [["--build"], ["--build", "shared"], ["--lib-dir"]]
    procs = [subprocess.Popen([sys.executable, "-m", "moccuda", *c], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for c in commands]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    static, shared, lib_dir = (Path(out.strip()) for out, _ in outputs)
    assert static.name == "libmoccuda.a" and shared.name == "libmoccuda.so"
    assert static.parent == shared.parent == lib_dir and lib_dir.parent == tmp_path
    assert not list(lib_dir.glob(".build-*"))  # temporary build directories are gone
    stamp = static.stat().st_mtime_ns
    again = _run(sys.executable, "-m", "moccuda", "--build", MOCCUDA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    assert Path(again.stdout.strip()) == static and static.stat().st_mtime_ns == stamp
    include = _run(sys.executable, "-m", "moccuda", "--include-dir", PYTHONPATH=str(ROOT)).stdout.strip()
    assert (Path(include) / "cuda_runtime.h").is_file()
