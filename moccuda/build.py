"""Build and find the MocCUDA library.

The library is compiled on first use (with ``$CXX``, else ``g++``) into a cache directory:
``$MOCCUDA_CACHE_DIR``, else ``$XDG_CACHE_HOME/cuda2cpu``, else ``~/.cache/cuda2cpu``, in a
subdirectory named by a hash of the sources, the headers, the flags and the compiler (its path and
version), so an edit or another compiler gives a fresh build and never a stale one.  Builds happen
in a temporary directory and are renamed into place, so readers never see a half-written library,
and one at a time per cache directory (a lock file): a concurrent caller (a parallel test worker, a
parallel make) waits for the build under way and then finds the finished library instead of
compiling the same sources again.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_DIR = PACKAGE_DIR / "src"
INCLUDE_DIR = PACKAGE_DIR / "include"

#: How each source is compiled.  -Werror=switch: the error tables must name every error code.
COMPILE_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-pthread", "-Wall", "-Wextra", "-Werror=switch"]
LIBRARY_NAMES = {"static": "libmoccuda.a", "shared": "libmoccuda.so", "cudart": "libcudart.so.13",
                 "cublas": "libmoccuda_cublas.so", "cublas_by_path": "libmoccuda_cublas_by_path.so"}
#: libcudart.so.13 is the shared library again, as programs built by nvcc -cudart shared import it:
#: that SONAME, and every function in a version node of that name.
CUDART_VERSION_SCRIPT = """libcudart.so.13 {
  global: cuda*; __cuda*; moccuda*; extern "C++" { moccuda::*; };
  local: *;
};
"""
#: cuBLAS on the CPU: its own library, linked against OpenBLAS from the scipy-openblas32 wheel.
CUBLAS_SOURCE = SOURCE_DIR / "cublas" / "cublas.cpp"


class BuildError(RuntimeError):
    """The library could not be compiled; the message holds the command and its output."""


def include_dir() -> Path:
    """The directory holding ``cuda_runtime.h`` (for ``-I``)."""
    return INCLUDE_DIR


#: NVIDIA's header-only libraries that nvcc users find in the toolkit's include directory, from
#: their Python packages (dependencies of cuda2cpu): the package and its include directory.
#: CCCL is Thrust, CUB and libcu++ (``cuda/std/...``); NVTX is ``nvtx3/nvToolsExt.h``.
HEADER_LIBRARIES = {"nvidia.cuda_cccl": "nvidia-cuda-cccl-cu12", "nvidia.nvtx": "nvidia-nvtx-cu12"}

#: Thrust's device system in every translation: device_vector in host memory, its algorithms as
#: OpenMP loops (Thrust's own OpenMP backend).  Its CUDA system needs a GPU.
THRUST_DEVICE_SYSTEM = "THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP"


@functools.cache
def header_library_dir(package: str) -> Path | None:
    """The include directory of one of :data:`HEADER_LIBRARIES`, or None where it is not installed."""
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:  # no nvidia namespace at all
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        if (Path(location) / "include").is_dir():
            return Path(location).resolve() / "include"
    return None


def header_library_dirs() -> list[Path]:
    """The include directories of the installed :data:`HEADER_LIBRARIES`, searched after every other
    directory (``-idirafter``): MocCUDA's own ``cuda/barrier`` and ``cuda/pipeline`` come first."""
    return [d for d in map(header_library_dir, HEADER_LIBRARIES) if d is not None]


def header_library_flags() -> list[str]:
    """What a host compile of a translation (or of a C++ file cuda2cpu builds) needs for the header
    libraries: their directories and Thrust's device system."""
    return [*(arg for d in header_library_dirs() for arg in ("-idirafter", str(d))), f"-D{THRUST_DEVICE_SYSTEM}"]


def _compiler() -> str:
    return os.environ.get("CXX") or "g++"


def _archiver() -> str:
    """``$AR``, else the compiler's own: a cross compiler ``aarch64-linux-gnu-g++`` has
    ``aarch64-linux-gnu-ar`` beside it, and the host's ``ar`` may not read its objects' symbols."""
    if os.environ.get("AR"):
        return os.environ["AR"]
    compiler = os.path.basename(_compiler())
    for suffix in ("g++", "c++", "clang++"):
        prefix = compiler[:-len(suffix)] if compiler.endswith(suffix) else ""
        if prefix.endswith("-") and shutil.which(prefix + "ar"):
            return prefix + "ar"
    return "ar"


@functools.lru_cache(maxsize=None)
def _compiler_identity(compiler: str) -> str:
    """The compiler's resolved path and version, so that upgrading it invalidates the cache."""
    path = shutil.which(compiler) or compiler
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        version = ""
    return f"{path}\n{version}"


def _cache_root() -> Path:
    if os.environ.get("MOCCUDA_CACHE_DIR"):
        return Path(os.environ["MOCCUDA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cuda2cpu"


def _sources() -> list[Path]:
    return sorted(SOURCE_DIR.glob("*.cpp"))


def _inputs() -> list[Path]:
    """Every file whose content the library depends on."""
    return _sources() + [CUBLAS_SOURCE] + sorted(SOURCE_DIR.glob("*.h")) + sorted(INCLUDE_DIR.rglob("*.h"))


def library_dir() -> Path:
    """Where the library for the current sources and compiler lives (it may not be built yet)."""
    digest = hashlib.sha256()
    digest.update(_compiler_identity(_compiler()).encode())
    digest.update(" ".join(COMPILE_FLAGS).encode())
    for path in _inputs():
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return _cache_root() / f"moccuda-{digest.hexdigest()[:16]}"


def build(kind: str = "static") -> Path:
    """Return the path of ``libmoccuda.a`` (kind="static"), ``libmoccuda.so`` (kind="shared"),
    ``libcudart.so.13`` (kind="cudart", the stand-in for CUDA's runtime under nvcc-built programs) or
    ``libmoccuda_cublas.so`` (kind="cublas"), or the same cuBLAS without a SONAME (kind="cublas_by_path":
    a program linked with it records its path, so it runs without a library path; the CUDA toolkit
    directory's ``libcublas.so`` is this one), building it first if it is not up to date.  Raises
    :class:`BuildError` if compilation fails or (for cuBLAS) OpenBLAS is not installed."""
    if kind not in LIBRARY_NAMES:
        raise ValueError(f"kind must be one of {', '.join(LIBRARY_NAMES)}, not {kind!r}")
    target_dir = library_dir()
    target = target_dir / LIBRARY_NAMES[kind]
    if target.exists():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    with open(target_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the build fails
        if target.exists():  # built by the caller that held the lock before us
            return target
        if kind in ("cublas", "cublas_by_path"):
            _build_cublas(target_dir)
            return target
        return _build_runtime(target_dir, target)


def _build_runtime(target_dir: Path, target: Path) -> Path:
    """Compile the static, shared and cudart libraries (the same objects: one build makes all three)."""
    with tempfile.TemporaryDirectory(dir=target_dir, prefix=".build-") as tmp:
        tmp_path = Path(tmp)
        objects = _compile_all(tmp_path)
        static, shared = tmp_path / LIBRARY_NAMES["static"], tmp_path / LIBRARY_NAMES["shared"]
        cudart = tmp_path / LIBRARY_NAMES["cudart"]
        script = tmp_path / "cudart.map"
        script.write_text(CUDART_VERSION_SCRIPT)
        _run([_archiver(), "rcs", str(static), *objects])
        _run([_compiler(), "-shared", "-pthread", "-o", str(shared), *objects])
        _run([_compiler(), "-shared", "-pthread", "-o", str(cudart), *objects, "-ldl",
              f"-Wl,-soname,{cudart.name}", f"-Wl,--version-script={script}"])
        for built in (static, shared, cudart):
            os.replace(built, target_dir / built.name)  # atomic: readers see a whole library or none
    return target


def openblas_dir() -> Path:
    """The directory of ``libscipy_openblas.so`` (the scipy-openblas32 wheel)."""
    try:
        import scipy_openblas32
    except ImportError as exc:
        raise BuildError("cuBLAS on the CPU needs OpenBLAS: pip install scipy-openblas32") from exc
    return Path(scipy_openblas32.get_lib_dir())


def _build_cublas(target_dir: Path) -> None:
    """Compile the cuBLAS library twice from one object: SONAME ``libcublas.so.13`` with its
    functions in a version node of that name (what programs built by nvcc import; ``moccuda run``
    preloads it), and without a SONAME (``cublas_by_path``: what ``-lcublas`` links, so that the
    program names the file itself and runs without LD_LIBRARY_PATH).  Both have an rpath to OpenBLAS."""
    blas = openblas_dir()
    with tempfile.TemporaryDirectory(dir=target_dir, prefix=".build-") as tmp:
        tmp_path = Path(tmp)
        script = tmp_path / "cublas.map"
        script.write_text("libcublas.so.13 {\n  global: cublas*;\n  local: *;\n};\n")
        obj = tmp_path / "cublas.o"
        _run([_compiler(), *COMPILE_FLAGS, f"-I{INCLUDE_DIR}", "-c", str(CUBLAS_SOURCE), "-o", str(obj)])
        link = [f"-Wl,--version-script={script}", f"-L{blas}", "-lscipy_openblas", f"-Wl,-rpath,{blas}"]
        versioned = tmp_path / LIBRARY_NAMES["cublas"]
        by_path = tmp_path / LIBRARY_NAMES["cublas_by_path"]
        _run([_compiler(), "-shared", "-o", str(versioned), str(obj), "-Wl,-soname,libcublas.so.13", *link])
        _run([_compiler(), "-shared", "-o", str(by_path), str(obj), *link])
        soname_link = tmp_path / "libcublas.so.13"  # what the loader looks for, by SONAME
        soname_link.symlink_to(versioned.name)
        for built in (soname_link, by_path, versioned):  # the one build() checks for, last
            os.replace(built, target_dir / built.name)


def _compile_all(out_dir: Path) -> list[str]:
    """Compile every source into ``out_dir``, in parallel; return the object files."""
    def compile_one(src: Path) -> str:
        obj = out_dir / (src.stem + ".o")
        _run([_compiler(), *COMPILE_FLAGS, f"-I{INCLUDE_DIR}", "-c", str(src), "-o", str(obj)])
        return str(obj)

    with ThreadPoolExecutor(max_workers=max(1, min(len(_sources()), os.cpu_count() or 1))) as pool:
        return list(pool.map(compile_one, _sources()))


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"building MocCUDA failed: {' '.join(cmd)}\n{done.stdout}{done.stderr}")


#: What a program linking MocCUDA needs from the system: libm, threads, libdl (dlopen of kernel
#: libraries; a separate library before glibc 2.34), and its own symbols exported, so that
#: cudaMemcpyToSymbol("name", ...) (CUDA 4's string-named symbols) finds variables by name.
SYSTEM_LINK_FLAGS = ["-lm", "-pthread", "-ldl", "-rdynamic"]

#: What every compile of a translated .cu needs besides OpenMP and its include directories.  CUDA code reads
#: and writes one type through a pointer to another (``reinterpret_cast<float *>(&packed)[k] = x``
#: on a local ``uint4`` in fp16/bf16 kernels) and nvcc compiles that as written; g++'s strict
#: aliasing (on from -O2) lets it drop such stores, so the translation is compiled without it.
#: A member function that synchronizes is inlined into the kernels (``inline-device``), where its
#: body names the class's private members and types: nvcc has checked the access already, so the
#: translation is compiled without access control.
TRANSLATION_COMPILE_FLAGS = ["-fno-strict-aliasing", "-fno-access-control"]


def link_flags(kind: str = "static") -> list[str]:
    """What a program linking MocCUDA needs after its own objects: the library (built if needed),
    OpenMP and SYSTEM_LINK_FLAGS."""
    return [str(build(kind)), "-fopenmp", *SYSTEM_LINK_FLAGS]


__all__ = ["BuildError", "include_dir", "header_library_dir", "header_library_dirs", "header_library_flags",
           "HEADER_LIBRARIES", "THRUST_DEVICE_SYSTEM", "library_dir", "build", "link_flags", "SYSTEM_LINK_FLAGS", "TRANSLATION_COMPILE_FLAGS"]
