"""Programs built by nvcc (``-cudart shared``) run on the CPU under ``moccuda run``: MocCUDA's
libcudart.so.13 is preloaded, kernels come from the kernel library ``cuda2cpu --emit=kernel-library``
builds from the same .cu (by nvcc's mangled names), a kernel the library lacks fails its launch
cleanly, and a statically linked cudart is refused with the reason.  Skipped where nvcc is not
installed."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coverage_table import covers
from moccuda import build
from moccuda.cli import needed_libraries, static_cudart_reason
from transpiler.cli import main as cuda2cpu_main

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
PROGRAMS = Path(__file__).resolve().parent / "moccuda_programs" / "nvcc"
ROOT = Path(__file__).resolve().parent.parent

# What kernel_kinds.cu prints, however it was built.
KINDS_OUTPUT = ["host initializer", "launch cudaSuccess, 0 wrong, launches 5, bias 10, factors 2 3, size 8, "
                "rescaled 0 wrong, managed 8", "PASS"]

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")


def _check(cmd: list[str]) -> None:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))}\n{done.stdout}{done.stderr[-6000:]}"


def _cuda2cpu(*args) -> str:
    """Runs cuda2cpu in this process (what the command runs); returns what it wrote to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = cuda2cpu_main([str(a) for a in args])
    assert status == 0, f"cuda2cpu {' '.join(map(str, args))}\n{err.getvalue()}"
    return err.getvalue()


@pytest.fixture(scope="module")
def vecadd(tmp_path_factory) -> tuple[Path, Path]:
    """vecadd.cu built by nvcc, and its kernel library built by cuda2cpu without the kernel
    `missing` (configured out to a prototype), so that one launch has no CPU implementation."""
    out = tmp_path_factory.mktemp("nvcc")
    app, kernels = out / "vecadd", out / "libvecadd_kernels.so"
    _check([NVCC, "-cudart", "shared", "-o", app, PROGRAMS / "vecadd.cu"])
    _cuda2cpu("--emit=kernel-library", "-DWITHOUT_MISSING_KERNEL", PROGRAMS / "vecadd.cu", "-o", kernels)
    return app, kernels


@pytest.fixture(scope="module")
def features_kernels(tmp_path_factory) -> Path:
    kernels = tmp_path_factory.mktemp("nvcc") / "libfeatures_kernels.so"
    _cuda2cpu("--emit=kernel-library", PROGRAMS / "features.cu", "-o", kernels)
    return kernels


def _moccuda(*args, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "moccuda", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=dict(os.environ, OMP_NUM_THREADS="2", **env))


def test_cudart_stand_in_is_versioned_like_cudas():
    lib = build.build("cudart")
    dynamic = subprocess.run(["readelf", "-dW", str(lib)], capture_output=True, text=True).stdout
    assert "Library soname: [libcudart.so.13]" in dynamic
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True, text=True).stdout
    for name in ("__cudaRegisterFatBinary", "__cudaRegisterFunction", "__cudaPushCallConfiguration",
                 "__cudaPopCallConfiguration", "__cudaGetKernel", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
                 "cudaLaunchKernel", "cudaMalloc"):
        assert f" {name}@@libcudart.so.13" in symbols, name


@covers("nvcc-built programs (moccuda run)", "nvcc -cudart shared program with a kernel from a kernel library",
        "__cudaRegisterFatBinary / __cudaRegisterFunction / __cudaLaunchKernel")
def test_vecadd_runs_on_the_cpu(vecadd):
    app, kernels = vecadd
    run = _moccuda("run", "--kernels", kernels, "--", app, LD_DEBUG="libs")
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert run.stdout.splitlines()[0] == "vadd: cudaSuccess, 0 wrong", run.stdout
    assert run.stdout.strip().endswith("PASS")
    # The loader took libcudart.so.13 from MocCUDA's directory, never CUDA's.
    loaded = [line for line in run.stderr.splitlines() if "calling init:" in line and "libcudart" in line]
    assert loaded and all(str(build.library_dir()) in line for line in loaded), loaded


@covers("nvcc-built programs (moccuda run)", "kernel missing from the kernel library",
        note="the launch fails with cudaErrorInvalidDeviceFunction, naming the kernel")
def test_missing_kernel_is_a_clean_launch_error(vecadd):
    app, kernels = vecadd
    run = _moccuda("run", "--kernels", kernels, "--", app, "also-missing")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "missing: cudaErrorInvalidDeviceFunction" in run.stdout
    assert "kernel _Z7missingPi has no CPU implementation" in run.stderr
    assert run.stdout.strip().endswith("PASS")  # the kernel that has one still ran


def test_without_a_kernel_library_every_launch_fails_cleanly(vecadd):
    app, _ = vecadd
    run = _moccuda("run", "--", app)
    assert run.returncode == 0, run.stderr
    assert "vadd: cudaErrorInvalidDeviceFunction" in run.stdout and "FAIL" in run.stdout
    assert "_Z4vaddPKfS0_Pfi" in run.stderr and "MOCCUDA_KERNELS" in run.stderr


@covers("nvcc-built programs (moccuda run)", "statically linked cudart", status="not supported",
        note="detected; moccuda run says why")
def test_static_cudart_is_detected(tmp_path):
    app = tmp_path / "static_vecadd"
    _check([NVCC, "-o", app, PROGRAMS / "vecadd.cu"])  # nvcc's default: -cudart static
    assert not any(n.startswith("libcudart") for n in needed_libraries(app))
    assert "statically" in static_cudart_reason(app)
    run = _moccuda("run", "--", app)
    assert run.returncode == 2 and "nvcc -cudart shared" in run.stderr, run.stderr


def test_info_names_the_device_and_libraries():
    run = _moccuda("info")
    assert run.returncode == 0, run.stderr
    assert "Tesla V100" in run.stdout and "libcudart.so.13" in run.stdout


@covers("nvcc-built programs (moccuda run)", "__cudaRegisterVar (__device__ variable)",
        "streams and events", "--default-stream per-thread (_ptsz / _ptds entry points)")
@pytest.mark.parametrize("default_stream", ["legacy", "per-thread"])
def test_reduction_device_variable_streams_and_events(tmp_path, features_kernels, default_stream):
    """A shared-memory reduction with barriers reading a __device__ variable set with
    cudaMemcpyToSymbol (the kernel library's variable, behind the program's host shadow), its
    input copied on another stream and ordered by an event, and timed by events.  Built with nvcc's
    `--default-stream per-thread` too, which imports the _ptsz/_ptds entry points (the kernel
    library is the same for both)."""
    app = tmp_path / "features"
    _check([NVCC, "-cudart", "shared", "--default-stream", default_stream, "-o", app, PROGRAMS / "features.cu"])
    imports = subprocess.run(["nm", "-D", str(app)], capture_output=True, text=True).stdout
    assert ("__cudaLaunchKernel_ptsz" in imports) == (default_stream == "per-thread")
    run = _moccuda("run", "--kernels", features_kernels, "--", app)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[0] == ("sum 39994 expected 39994, offset 1, launch cudaSuccess, "
                                          "timing cudaSuccess non-negative"), run.stdout
    assert run.stdout.strip().endswith("PASS")


@covers("nvcc-built programs (moccuda run)", "cuBLAS SGEMM (libcublas.so.13 stand-in)")
def test_cublas_sgemm_under_nvcc(tmp_path):
    """An nvcc-built program calling cublasSgemm (imported @libcublas.so.13) gets MocCUDA's cuBLAS,
    on matrices its kernel filled (from the kernel library).  nvcc compiles against MocCUDA's
    cublas_v2.h alone (copied apart, so that it finds CUDA's own cuda_runtime.h and
    library_types.h beside it)."""
    pytest.importorskip("scipy_openblas32", reason="cuBLAS on the CPU needs OpenBLAS")
    cublas = build.build("cublas")
    include = tmp_path / "include"
    include.mkdir()
    shutil.copy(build.include_dir() / "cublas_v2.h", include)
    app, kernels = tmp_path / "sgemm", tmp_path / "libsgemm_kernels.so"
    _check([NVCC, "-cudart", "shared", f"-I{include}", "-o", app, PROGRAMS / "sgemm.cu", cublas])
    assert "libcublas.so.13" in needed_libraries(app)
    _cuda2cpu("--emit=kernel-library", PROGRAMS / "sgemm.cu", "-o", kernels)
    run = _moccuda("run", "--kernels", kernels, "--", app)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == ["fill cudaSuccess, create 0 sgemm 0, 0 wrong", "PASS"], run.stdout


@covers("nvcc-built programs (moccuda run)", "cuda2cpu --emit=kernel-library",
        "kernels by nvcc's mangled names (namespace, extern \"C\", anonymous namespace, template instantiations)",
        "__constant__/__device__ variables with initializers through the symbol API",
        "__managed__ variable read by the host (__cudaRegisterManagedVar, __cudaInitModule)")
def test_kernel_library_names_every_kind_of_kernel_and_variable(tmp_path):
    """kernel_kinds.cu: a kernel template launched with its arguments and one launched only from a
    host template (so only its explicit instantiation names it), a non-type template argument, a
    namespace, extern "C", an anonymous namespace (nvcc names it after the file, g++ does not),
    dynamic shared memory; variables whose initializers the kernels and cudaMemcpyFromSymbol see,
    cudaGetSymbolSize, a store through cudaGetSymbolAddress that the next launch reads, and a
    __managed__ variable that kernels update and the host reads directly.  The
    library exports only entry points and variables, and nothing of main."""
    app, kernels = tmp_path / "kinds", tmp_path / "libkinds_kernels.so"
    _check([NVCC, "-cudart", "shared", "-o", app, PROGRAMS / "kernel_kinds.cu"])
    warned = _cuda2cpu("--emit=kernel-library", PROGRAMS / "kernel_kinds.cu", "-o", kernels)
    assert re.search(r"kernel_kinds\.cu:\d+:\d+: warning: kernel template 'unused_template' is not instantiated",
                     warned), warned
    exported = subprocess.run(["nm", "-D", "--defined-only", str(kernels)], capture_output=True, text=True).stdout
    names = sorted(line.split()[-1] for line in exported.splitlines())
    assert names == ["moccuda_kernel__ZN12_GLOBAL__N_112count_launchEv",
                     "moccuda_kernel__ZN3ops10shift_leftILi3EEEvPji", "moccuda_kernel__ZN3ops5scaleIdEEvPT_i",
                     "moccuda_kernel__ZN3ops5scaleIfEEvPT_i",
                     "moccuda_kernel_reverse_blocks", "moccuda_variable__ZN3ops4biasE", "moccuda_variable_launches",
                     "moccuda_variable_managed_total", "moccuda_variable_scale_by"], names
    everything = subprocess.run(["nm", "-C", "--defined-only", str(kernels)], capture_output=True, text=True).stdout
    assert not re.search(r"\b(main|run_scale|say_started|started)\b", everything), everything  # host code stays out
    run = _moccuda("run", "--kernels", kernels, "--", app)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == KINDS_OUTPUT, run.stdout + run.stderr


def test_kernel_library_usage_errors(tmp_path, capsys):
    assert cuda2cpu_main(["--emit=kernel-library", str(PROGRAMS / "vecadd.cu"), "app.cpp", "-o", "lib.so"]) == 1
    assert "builds .cu inputs only" in capsys.readouterr().err
    assert cuda2cpu_main(["--emit=kernel-library", str(PROGRAMS / "vecadd.cu"), str(PROGRAMS / "sgemm.cu")]) == 1
    assert "needs -o LIB" in capsys.readouterr().err
    assert cuda2cpu_main(["--help"]) == 0
    assert "--emit=kernel-library" in capsys.readouterr().out


def test_kernel_kinds_built_by_cuda2cpu_itself(tmp_path):
    """The same program built by cuda2cpu (no nvcc, no preload): the explicit instantiation is
    translated with the kernel's launch parameter, and every kind of kernel and variable works."""
    app = tmp_path / "kinds"
    _cuda2cpu(PROGRAMS / "kernel_kinds.cu", "-o", app)
    run = subprocess.run([str(app)], capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == KINDS_OUTPUT, run.stdout + run.stderr


def test_kernel_library_instantiation_it_cannot_name_is_a_located_error(tmp_path, capsys):
    """A launched instantiation whose template argument an entry point cannot spell (a template
    template argument) is a located error, not a missing kernel at run time."""
    source = tmp_path / "holder.cu"
    source.write_text("template <class T> struct Box { T value; };\n"
                      "template <template <class> class Holder>\n"
                      "__global__ void fill(int *out) { out[threadIdx.x] = sizeof(Holder<int>); }\n"
                      "int main() { int *p; cudaMalloc(&p, 4); fill<Box><<<1, 1>>>(p); return 0; }\n")
    assert cuda2cpu_main(["--emit=kernel-library", str(source), "-o", str(tmp_path / "lib.so")]) == 1
    err = capsys.readouterr().err
    assert f"{source}:4:41: error: kernel 'fill': a template argument of this kind cannot be named" in err, err
    assert not (tmp_path / "lib.so").exists()
