"""cuda2cpu as a CUDA toolkit stand-in (transpiler.toolkit): the toolkit directory, unchanged
Makefiles (NVCC=, CUDA_DIR=, PATH=, objects linked by g++ with -lcuda -lcudart), CMake's CUDA
language with FindCUDAToolkit, an installed toolkit's headers and libraries kept out, nvcc's driver
flags (-x c++, -odir, --dryrun, --version, -cuda, input order), and system headers that use
__attribute__((__noinline__)).  Each test builds and runs a program."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from coverage_table import covers
from support import EXAMPLES, ROOT, have, run_cli as cuda2cpu


@pytest.fixture(scope="module")
def toolkit() -> Path:
    done = cuda2cpu("--toolkit-dir")
    assert done.returncode == 0, done.stderr
    root = Path(done.stdout.strip())
    assert root.is_dir()
    return root


def _run(cmd, cwd, env=None, timeout=600) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, env=full_env, timeout=timeout)


def _program(exe: Path, env=None) -> str:
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, OMP_NUM_THREADS="2", **(env or {})))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


# ------------------------------------------------------------------------------ the directory

def test_toolkit_directory_is_laid_out_like_cudas(toolkit):
    assert os.access(toolkit / "bin" / "nvcc", os.X_OK)
    assert (toolkit / "include" / "cuda_runtime.h").resolve().parent == (ROOT / "moccuda" / "include").resolve()
    lib = toolkit / "lib64"
    for name in ("libcudart.so", "libcudart_static.a", "libcuda.so", "libcudadevrt.a", "libcudart.so.13"):
        assert (lib / name).exists(), name
    if (lib / "libcublas.so").exists():
        assert (lib / "libcublas.so.13").exists()
    version = json.loads((toolkit / "version.json").read_text())
    assert version["cuda"]["version"] == "13.0.0"
    assert "13.0" in (toolkit / "version.txt").read_text()
    # made once: a second call answers the same directory
    assert cuda2cpu("--toolkit-dir").stdout.strip() == str(toolkit)


def test_version_has_nvccs_release_line(toolkit):
    done = _run([toolkit / "bin" / "nvcc", "--version"], cwd=toolkit)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cuda2cpu ")
    assert "Cuda compilation tools, release 13.0, V13.0.0" in lines


@covers("Toolkit stand-in", "CUDA's include-guard macros (helper_cuda.h's tests)", "__NVCC__ and __CUDACC_VER_*__")
def test_headers_define_the_toolkits_macros(tmp_path):
    (tmp_path / "guards.cu").write_text(
        "#include <cstdio>\n#include <cublas_v2.h>\n"
        "#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(CUBLAS_API_H_)\n"
        "#error the toolkit's include guards are missing\n#endif\n"
        "#if !defined(__NVCC__) || __CUDACC_VER_MAJOR__ != 13 || CUDART_VERSION != 13000\n#error nvcc's macros\n#endif\n"
        "#ifdef __DRIVER_TYPES_H__\nstatic const char *name(cudaError_t e) { return cudaGetErrorName(e); }\n#endif\n"
        "__global__ void k(int *a) { a[threadIdx.x] = __CUDACC_VER_MAJOR__; }\n"
        "int main() { int *a; cudaMallocManaged(&a, 4 * sizeof(int)); k<<<1, 4>>>(a); cudaDeviceSynchronize();\n"
        "  std::printf(\"%s %d\\n\", name(cudaGetLastError()), a[3]); }\n")
    done = cuda2cpu("guards.cu", "-o", "guards", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _program(tmp_path / "guards") == "cudaSuccess 13\n"


# ------------------------------------------------------------------------------ Makefiles

KERNEL = ('#include <cuda_runtime.h>\n#include "fill.h"\n'
          "__global__ void fill(int *a, int v) { a[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }\n"
          "void launch_fill(int *a, int v) { fill<<<2, 8>>>(a, v); cudaDeviceSynchronize(); }\n")
MAIN = ('#include <cstdio>\n#include <cuda_runtime.h>\n#include "fill.h"\n'
        "int main() { int *a; cudaMalloc(&a, 16 * sizeof(int)); launch_fill(a, 40); int h[16];\n"
        "  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost); cudaFree(a);\n"
        '  std::printf(h[15] == 47 && h[0] == 40 ? "PASS\\n" : "FAIL\\n"); }\n')
#: The three usual styles: NVCC= (links with nvcc), CUDA_DIR= (nvcc from the toolkit, -L/-I into it)
#: and the objects linked by the host compiler with -lcuda -lcudart.
MAKEFILE = """\
CUDA_DIR ?= /usr/local/cuda
NVCC ?= $(CUDA_DIR)/bin/nvcc
CXX = g++
app_nvcc: kern.cu main.cpp fill.h
\t$(NVCC) -O2 -arch=sm_70 -I$(CUDA_DIR)/include kern.cu main.cpp -o $@ -L$(CUDA_DIR)/lib64 -lcudart
app_gxx: kern.o main.o
\t$(CXX) kern.o main.o -o $@ -L$(CUDA_DIR)/lib64 -lcuda -lcudart
kern.o: kern.cu fill.h
\t$(NVCC) -c -O2 -gencode arch=compute_70,code=sm_70 kern.cu -o $@
main.o: main.cpp fill.h
\t$(CXX) -I$(CUDA_DIR)/include -c main.cpp -o $@
"""


@pytest.fixture
def make_project(tmp_path):
    (tmp_path / "fill.h").write_text("void launch_fill(int *a, int v);\n")
    (tmp_path / "kern.cu").write_text(KERNEL)
    (tmp_path / "main.cpp").write_text(MAIN)
    (tmp_path / "Makefile").write_text(MAKEFILE)
    return tmp_path


@pytest.mark.skipif(not have("make"), reason="needs make")
@covers("Toolkit stand-in", "make CUDA_DIR=$(cuda2cpu --toolkit-dir)", "make NVCC=cuda2cpu",
        "objects linked by g++ with -L$CUDA_DIR/lib64 -lcuda -lcudart")
def test_makefile_with_cuda_dir(toolkit, make_project):
    done = _run(["make", f"CUDA_DIR={toolkit}", "app_nvcc", "app_gxx"], cwd=make_project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _program(make_project / "app_nvcc") == "PASS\n"
    assert _program(make_project / "app_gxx") == "PASS\n"  # no LD_LIBRARY_PATH: the libraries are named by path


@pytest.mark.skipif(not have("make"), reason="needs make")
def test_makefile_with_nvcc_on_the_path(toolkit, make_project):
    path = f"{toolkit / 'bin'}{os.pathsep}{os.environ['PATH']}"
    done = _run(["make", "NVCC=nvcc", f"CUDA_DIR={make_project / 'no-such-toolkit'}", "app_nvcc"], cwd=make_project,
                env={"PATH": path})
    assert done.returncode == 0, done.stdout + done.stderr
    assert _program(make_project / "app_nvcc") == "PASS\n"


@pytest.mark.skipif(not have("make"), reason="needs make")
def test_makefile_with_nvcc_set_to_cuda2cpu(make_project, tmp_path):
    wrapper = tmp_path / "cuda2cpu"
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m transpiler.cli \"$@\"\n")
    wrapper.chmod(0o755)
    done = _run(["make", f"NVCC={wrapper}", "app_nvcc"], cwd=make_project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _program(make_project / "app_nvcc") == "PASS\n"


# ------------------------------------------------------------------------------ an installed toolkit

@pytest.fixture
def installed_toolkit(tmp_path):
    """A directory shaped like an installed CUDA toolkit whose headers break any parse and whose
    libraries are not libraries: it must never be used."""
    fake = tmp_path / "cuda-12.9"
    (fake / "include" / "crt").mkdir(parents=True)
    for header in ("cuda_runtime.h", "cuda_runtime_api.h", "crt/host_defines.h", "cublas_v2.h"):
        (fake / "include" / header).write_text('#error "NVIDIA\'s header was used"\n')
    (fake / "lib64").mkdir()
    for lib in ("libcudart.so", "libcudart_static.a", "libcuda.so", "libcublas.so"):
        (fake / "lib64" / lib).write_text("not a library\n")
    return fake


def toolkit_dir_of_this_checkout() -> Path:
    return Path(cuda2cpu("--toolkit-dir").stdout.strip())


@covers("Toolkit stand-in", "-I/-isystem into an installed CUDA toolkit (ignored), -L into one (searched after "
        "MocCUDA's lib64), said with -v")
def test_an_installed_toolkits_headers_and_libraries_are_not_used(installed_toolkit, make_project):
    fake = installed_toolkit
    # Another library in the toolkit's directory is still found there.
    (make_project / "extra.c").write_text("int extra_value(void) { return 47; }\n")
    subprocess.run(["gcc", "-c", "extra.c", "-o", "extra.o"], cwd=make_project, check=True)
    subprocess.run(["ar", "rcs", str(fake / "lib64" / "libextra.a"), "extra.o"], cwd=make_project, check=True)
    cublas = ["-lcublas"] if (toolkit_dir_of_this_checkout() / "lib64" / "libcublas.so").exists() else []
    done = cuda2cpu("-v", f"-I{fake}/include", "-isystem", f"{fake}/include", "kern.cu", "main.cpp", "-o", "app",
                    f"-L{fake}/lib64", "-lcudart", "-lcuda", *cublas, "-lextra", cwd=make_project)
    assert done.returncode == 0, done.stderr
    assert f"not using an installed CUDA toolkit's headers in {fake}/include" in done.stderr
    assert f"not using an installed CUDA toolkit's libcudart, libcuda or libcublas in {fake}/lib64" in done.stderr
    assert _program(make_project / "app") == "PASS\n"


@pytest.mark.skipif(not Path("/usr/local/cuda/include/cuda_runtime_api.h").exists(), reason="no CUDA toolkit installed")
def test_the_real_installed_toolkit_is_not_used(make_project):
    done = cuda2cpu("-I/usr/local/cuda/include", "kern.cu", "main.cpp", "-o", "app", "-L/usr/local/cuda/lib64",
                    "-lcudart", cwd=make_project)
    assert done.returncode == 0, done.stderr
    assert _program(make_project / "app") == "PASS\n"
    assert "libcudart" not in subprocess.run(["readelf", "-dW", str(make_project / "app")], capture_output=True,
                                             text=True).stdout


def test_a_cuda_library_mocCUDA_lacks_is_refused(make_project):
    done = cuda2cpu("kern.cu", "main.cpp", "-o", "app", "-lcurand", cwd=make_project)
    assert done.returncode == 1 and "-lcurand: MocCUDA has no cuRAND" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (make_project / "app").exists()


# ------------------------------------------------------------------------------ CMake

CMAKE_LISTS = """\
cmake_minimum_required(VERSION 3.18)
project(toolkit_test LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
add_library(kernels STATIC scale.cu twice.cu)
set_target_properties(kernels PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
add_executable(app main.cu dot.cpp)
target_link_libraries(app PRIVATE kernels CUDA::cudart CUDA::cublas)
"""
CMAKE_SOURCES = {
    "twice.h": "__device__ float twice(float x);\n",
    "twice.cu": '#include "twice.h"\n__device__ float twice(float x) { return 2.0f * x; }\n',
    "scale.h": "void scale_all(float *x, int n);\n",
    "scale.cu": ('#include "twice.h"\n#include "scale.h"\n'
                 "__global__ void scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
                 " if (i < n) x[i] = twice(x[i]); }\n"
                 "void scale_all(float *x, int n) { scale<<<(n + 63) / 64, 64>>>(x, n); }\n"),
    "dot.cpp": ("#include <cublas_v2.h>\nfloat dot(const float *x, const float *y, int n) {\n"
                "  cublasHandle_t h; cublasCreate(&h); float r = 0; cublasSdot(h, n, x, 1, y, 1, &r);\n"
                "  cublasDestroy(h); return r; }\n"),
    "main.cu": ('#include <cstdio>\n#include "scale.h"\nfloat dot(const float *x, const float *y, int n);\n'
                "int main() { const int n = 100; float *x; cudaMallocManaged(&x, n * sizeof(float));\n"
                "  for (int i = 0; i < n; ++i) x[i] = 1.0f;\n  scale_all(x, n); cudaDeviceSynchronize();\n"
                '  float d = dot(x, x, n); std::printf("%s %g\\n", d == 400.0f ? "PASS" : "FAIL", d); }\n'),
}


@pytest.mark.skipif(not have("cmake") or not have("make"), reason="needs cmake and make")
@covers("Toolkit stand-in", "CMake: project(LANGUAGES CUDA), FindCUDAToolkit, CUDA::cudart, CUDA::cublas",
        "CMake: separable compilation (relocatable device code across .cu files)")
def test_cmake_project_with_cuda_language_and_cuda_toolkit(toolkit, tmp_path):
    if not (toolkit / "lib64" / "libcublas.so").exists():
        pytest.skip("cuBLAS on the CPU needs OpenBLAS (pip install scipy-openblas32)")
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(CMAKE_LISTS)
    for name, text in CMAKE_SOURCES.items():
        (source / name).write_text(text)
    configured = _run(["cmake", "-S", source, "-B", tmp_path / "build", f"-DCMAKE_CUDA_COMPILER={toolkit}/bin/nvcc"],
                      cwd=tmp_path)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    assert "The CUDA compiler identification is NVIDIA 13.0.0" in configured.stdout
    assert f"Found CUDAToolkit: {toolkit}/include" in configured.stdout
    built = _run(["cmake", "--build", tmp_path / "build"], cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    assert _program(tmp_path / "build" / "app") == "PASS 400\n"


# ------------------------------------------------------------------------------ the driver's flags

def test_objects_and_libraries_link_in_command_line_order(make_project):
    assert cuda2cpu("-c", "kern.cu", cwd=make_project).returncode == 0
    assert cuda2cpu("-lib", "kern.o", "-o", "libfill.a", cwd=make_project).returncode == 0
    done = cuda2cpu("main.cpp", "libfill.a", "-o", "app", cwd=make_project)  # the library after its user
    assert done.returncode == 0, done.stderr
    assert _program(make_project / "app") == "PASS\n"


def test_x_cpp_compiles_a_cu_file_as_cpp(tmp_path):
    (tmp_path / "plain.cu").write_text('#include <cstdio>\nint main() { std::printf("C++ %d\\n", (int)__cplusplus > 0); }\n')
    done = cuda2cpu("-x", "c++", "plain.cu", "-o", "plain", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _program(tmp_path / "plain") == "C++ 1\n"


def test_odir_that_does_not_exist_is_a_clear_error(make_project):
    done = cuda2cpu("-c", "kern.cu", "-odir", "objs", cwd=make_project)
    assert done.returncode == 1 and "-odir objs: no such directory" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_dryrun_shows_the_translation_and_runs_nothing(make_project):
    done = cuda2cpu("--dryrun", "-DN=3", "kern.cu", "main.cpp", "-o", "app", cwd=make_project)
    assert done.returncode == 0, done.stderr
    steps = [line[3:] for line in done.stderr.splitlines() if line.startswith("#$ ") and "=" not in line.split()[1]]
    assert steps[0].startswith("cuda2cpu --emit=openmp -DN=3 kern.cu -o ")
    assert any(" -lcudart_static" in step for step in steps)
    assert "#$ TOP=" in done.stderr and "#$ LIBRARIES=" in done.stderr
    assert not (make_project / "app").exists()


def test_cuda_flag_writes_the_translation(make_project):
    done = cuda2cpu("-cuda", "kern.cu", cwd=make_project)
    assert done.returncode == 0, done.stderr
    translated = (make_project / "kern.cu.cpp.ii").read_text()
    assert "void fill(moccuda::LaunchConfig launch" in translated
    assert cuda2cpu("-c", "-x", "c++", "kern.cu.cpp.ii", "-o", "kern.o", cwd=make_project).returncode == 0


def test_the_sources_own_directory_comes_before_include_directories(tmp_path):
    """nvcc (and g++) search the including file's directory first for "quoted" includes: a -I
    directory with a header of the same name must not shadow it, in the parse or in the compile."""
    (tmp_path / "src").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "src" / "value.h").write_text("#define VALUE 7\n")
    (tmp_path / "other" / "value.h").write_text("#define VALUE 99\n")
    (tmp_path / "src" / "use.cu").write_text(
        '#include <cstdio>\n#include "value.h"\n__global__ void k(int *a) { *a = VALUE; }\n'
        'int main() { int *a; cudaMallocManaged(&a, sizeof(int)); k<<<1, 1>>>(a); cudaDeviceSynchronize();\n'
        '  std::printf("%d %d\\n", *a, VALUE); }\n')
    done = cuda2cpu("-Iother", "src/use.cu", "-o", "use", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _program(tmp_path / "use") == "7 7\n"


def test_cublas_links_mocCUDAs(tmp_path):
    pytest.importorskip("scipy_openblas32", reason="cuBLAS on the CPU needs OpenBLAS (pip install scipy-openblas32)")
    (tmp_path / "blas.cu").write_text(
        "#include <cstdio>\n#include <cublas_v2.h>\n"
        "int main() { float *x; cudaMallocManaged(&x, 3 * sizeof(float)); x[0] = 1; x[1] = 2; x[2] = 2;\n"
        "  cublasHandle_t h; cublasCreate(&h); float r = 0; cublasSnrm2(h, 3, x, 1, &r); cublasDestroy(h);\n"
        '  std::printf("%g\\n", r); }\n')
    done = cuda2cpu("blas.cu", "-o", "blas", "-lcublas", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _program(tmp_path / "blas") == "3\n"


# ------------------------------------------------------------------------------ system headers

@covers("Toolkit stand-in", "__noinline__ beside system headers' __attribute__((__noinline__))")
def test_noinline_and_system_headers_that_use_the_attribute(tmp_path):
    """glibc 2.39's bits/stdio2.h and libstdc++ spell __attribute__((__noinline__)) and
    [[__gnu__::__noinline__]]: they must still parse after MocCUDA's headers, in C++ and in C."""
    system = tmp_path / "sys"
    system.mkdir()
    (system / "attributes.h").write_text(
        "extern int later(int) __attribute__((__noinline__));\n"
        "extern int later2(int) __attribute__ ((__noinline__, __nothrow__));\n"
        "#ifdef __cplusplus\n[[__gnu__::__noinline__]] int later3(int);\n#endif\n")
    (tmp_path / "noinline.cu").write_text(
        "#include <cstdio>\n#include <attributes.h>\n#include <memory>\n"
        "__device__ __noinline__ int twice(int x) { return 2 * x; }\n"
        "static __noinline__ int host_only(int x) { return x + 1; }\n"
        "__global__ void k(int *a) { a[threadIdx.x] = twice(threadIdx.x); }\n"
        "int main() { int *a; cudaMallocManaged(&a, 4 * sizeof(int)); k<<<1, 4>>>(a); cudaDeviceSynchronize();\n"
        '  auto p = std::make_shared<int>(a[3]); std::printf("%d\\n", host_only(*p)); }\n')
    (tmp_path / "c_side.c").write_text("#include <cuda_runtime.h>\n#include <attributes.h>\nint c_side(void) { return 0; }\n")
    done = cuda2cpu("-isystem", system, "-Xcompiler", "-Wall,-Werror", "noinline.cu", "c_side.c", "-o", "noinline",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _program(tmp_path / "noinline") == "7\n"


# ------------------------------------------------------------------------------ clang++

def _clang_links_openmp() -> bool:
    """clang++ is installed with its OpenMP runtime (libomp, a package of its own on Debian)."""
    if not have("clang++"):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "omp.cpp"
        source.write_text("#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
        done = subprocess.run(["clang++", "-fopenmp", str(source), "-o", str(Path(tmp) / "omp")],
                              capture_output=True, text=True)
        return done.returncode == 0


CLANG_LINKS_OPENMP = _clang_links_openmp()

#: The corpus clang++ builds: the examples and the barrier and warp programs.
CLANG_CORPUS = sorted(EXAMPLES.glob("*.cu")) + sorted((ROOT / "tests" / "programs" / "barriers").glob("*.cu")) \
    + sorted((ROOT / "tests" / "programs" / "warp").glob("*.cu"))


@pytest.mark.skipif(not CLANG_LINKS_OPENMP, reason="clang++ cannot link an OpenMP program (apt-get install clang "
                    "libomp-dev; .ci/run does)")
@pytest.mark.parametrize("cu", CLANG_CORPUS, ids=[f"{c.parent.name}/{c.stem}" for c in CLANG_CORPUS])
def test_clang_builds_the_corpus(cu, tmp_path):
    done = cuda2cpu(cu, "-o", tmp_path / cu.stem, env={"CXX": "clang++"})
    assert done.returncode == 0, done.stderr
    assert "PASS" in _program(tmp_path / cu.stem)


@pytest.mark.skipif(not CLANG_LINKS_OPENMP, reason="clang++ cannot link an OpenMP program (apt-get install clang "
                    "libomp-dev; .ci/run does)")
@covers("Toolkit stand-in", "clang++ as the host compiler (-ccbin clang++, CXX=clang++)")
def test_clang_as_host_compiler(tmp_path):
    for example in ("vecadd", "reduction"):
        done = cuda2cpu("-ccbin", "clang++", EXAMPLES / f"{example}.cu", "-o", tmp_path / example)
        assert done.returncode == 0, done.stderr
        assert "PASS" in _program(tmp_path / example)
    done = cuda2cpu(EXAMPLES / "stencil.cu", "-o", tmp_path / "stencil", env={"CXX": "clang++"})
    assert done.returncode == 0, done.stderr
    assert "PASS" in _program(tmp_path / "stencil")
def test_moccuda_toolkit_dir_subcommand(toolkit):
    done = subprocess.run([sys.executable, "-m", "moccuda", "toolkit-dir"], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0 and done.stdout.strip() == str(toolkit), done.stderr


# ------------------------------------------------------------------------------ #line

LINES_CU = """\
#include <cassert>
#include <cstdio>
__global__ void k(int *a)
{
    a[threadIdx.x] = 1;
}
int main() {
    int *a; cudaMallocManaged(&a, 4 * sizeof(int));
    k<<<1, 4>>>(a); cudaDeviceSynchronize();
    int unused_here;
    std::printf("%s:%d\\n", __FILE__, __LINE__); std::fflush(stdout);
    assert(a[0] == 2);
}
"""


@covers("Toolkit stand-in", "#line: host compiler diagnostics, __FILE__/__LINE__ and assert name the .cu's lines")
def test_the_host_compiler_sees_the_cu_files_lines(tmp_path):
    (tmp_path / "lines.cu").write_text(LINES_CU)
    done = cuda2cpu("-O0", "-Xcompiler", "-Wall", "lines.cu", "-o", "lines", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "lines.cu:10:9: warning: unused variable" in done.stderr, done.stderr  # the source line shown is line 10
    run = subprocess.run([str(tmp_path / "lines")], capture_output=True, text=True, timeout=60)
    assert run.stdout == "lines.cu:11\n"
    assert run.returncode != 0 and "lines.cu:12: int main(): Assertion `a[0] == 2' failed." in run.stderr, run.stderr


# ------------------------------------------------------------------------------ cuda2cpu serve

@pytest.mark.parametrize("module", ["fastapi", "uvicorn"])
def test_serve_without_the_server_extra_says_which_extra(module):
    code = (f"import sys; sys.modules[{module!r}] = None\n"  # as if not installed
            "from transpiler.cli import main\nsys.exit(main(['serve', '--port', '0']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 1, done.stderr
    assert f"needs the 'server' extra (no module '{module}')" in done.stderr and "cuda2cpu[server]" in done.stderr
    assert "Traceback" not in done.stderr


# ------------------------------------------------------------------------------ moccuda.torch

def test_a_cuda_build_of_pytorch_is_refused_at_once_saying_what_to_install():
    from moccuda.torch.requirement import cuda_build_reason

    reason = cuda_build_reason("2.5.1+cu124", "12.4")
    assert "CUDA 12.4 build" in reason
    assert "install the CPU wheel: pip install torch --index-url https://download.pytorch.org/whl/cpu" in reason
    assert cuda_build_reason("2.5.1+cpu", None) is None  # the CPU wheel: torch.version.cuda is None
