"""A directory laid out like a CUDA toolkit, in which everything is cuda2cpu and MocCUDA.

Build systems find CUDA as a directory (``CUDA_DIR``, ``CUDA_HOME``, CMake's ``CUDAToolkit_ROOT``)
or as an ``nvcc`` on the ``PATH``, not as a command.  ``cuda2cpu --toolkit-dir`` (or ``moccuda
toolkit-dir``) prints such a directory::

    bin/nvcc                   cuda2cpu (this interpreter, this package)
    include/                   MocCUDA's headers (a link to moccuda/include)
    lib64/libcudart_static.a   linker scripts: MocCUDA's static runtime, with the OpenMP runtime
    lib64/libcudart.so         ... MocCUDA's shared runtime, named by its path (no library path needed)
    lib64/libcuda.so           ... the same (MocCUDA has no driver API; this keeps -lcuda links working)
    lib64/libcudadevrt.a       an empty archive (there is no device code to link)
    lib64/libcublas.so         ... MocCUDA's cuBLAS, by its path (when OpenBLAS is installed)
    lib64/libcudart.so.13, libcublas.so.13   the SONAME links, for programs built by nvcc
    nvvm/libdevice/            empty: CMake requires it to exist
    version.json, version.txt  the CUDA version MocCUDA follows (13.0)

The libraries are linker scripts (as glibc's ``libc.so`` is), so that ``g++ ... -L$CUDA_DIR/lib64
-lcudart`` links MocCUDA together with what its code needs (the OpenMP runtime) and the program
runs without ``LD_LIBRARY_PATH``.  The directory is made in the MocCUDA cache, in a subdirectory
named by the library build it refers to, this interpreter, this package and this module (so that a
change of layout gives a new directory); it is made in a
temporary directory and renamed into place, so a reader never sees half a toolkit.

:func:`is_toolkit_include_dir` and :func:`is_toolkit_library_dir` recognise an installed CUDA
toolkit's own directories, which the driver keeps off its command lines: NVIDIA's headers break
the parse, and NVIDIA's libraries cannot run on the CPU.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from moccuda import build

#: The CUDA release whose runtime API, types and layouts MocCUDA follows (CUDART_VERSION 13000).
CUDA_RELEASE = (13, 0, 0)
#: The compute capability MocCUDA's device reports (cudaGetDeviceProperties: a V100's 7.0).
COMPUTE_CAPABILITY = 70
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: Set by the toolkit's bin/nvcc to its toolkit: what -v reports and links go to, whatever $CXX
#: (CMake runs the compiler with its own) makes of the library cache.
ROOT_VARIABLE = "CUDA2CPU_TOOLKIT_ROOT"


def release() -> str:
    return f"{CUDA_RELEASE[0]}.{CUDA_RELEASE[1]}"


def version_lines() -> list[str]:
    """``--version``: ours, then the lines that tools parse from nvcc's (CMake identifies an nvcc by the
    first, and reads the toolkit version from ``V13.0.0``; FindCUDA and Makefiles read ``release 13.0``)."""
    from transpiler import __version__

    major, minor, patch = CUDA_RELEASE
    return [f"cuda2cpu {__version__} (CUDA to C++/OpenMP for the CPU; MocCUDA runtime)",
            "nvcc: NVIDIA (R) Cuda compiler driver (command-line interface, emulated by cuda2cpu; no NVIDIA code)",
            f"Cuda compilation tools, release {major}.{minor}, V{major}.{minor}.{patch}",
            f"Build cuda2cpu_{__version__} (runtime API {major}.{minor}, compute capability "
            f"{COMPUTE_CAPABILITY // 10}.{COMPUTE_CAPABILITY % 10}, on the CPU)"]


def _openmp_library() -> str:
    """The OpenMP runtime the host compiler's -fopenmp code calls: clang's libomp, else GCC's libgomp."""
    return "-lomp" if "clang" in os.path.basename(os.environ.get("CXX") or "g++") else "-lgomp"


def _root_for(library_dir: Path) -> Path:
    digest = hashlib.sha256("\0".join((str(library_dir), sys.executable, str(PACKAGE_ROOT), _openmp_library(),
                                       Path(__file__).read_text())).encode()).hexdigest()[:16]
    return library_dir.parent / f"toolkit-{digest}"


def _linker_script(inputs: list[str], needed: list[str]) -> str:
    quoted = " ".join(f'"{p}"' for p in inputs)
    return ("/* MocCUDA standing in for a CUDA library (a GNU ld linker script, as glibc's libc.so is). */\n"
            f"INPUT({quoted})\nINPUT(AS_NEEDED({' '.join(needed)}))\n")


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    """Write a file whole or not at all (a temporary file renamed over it)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _nvcc_script(root: Path) -> str:
    return ("#!/bin/sh\n"
            "# cuda2cpu, standing in for nvcc: CUDA programs built for the CPU (made by cuda2cpu --toolkit-dir).\n"
            f"PYTHONPATH={shlex.quote(str(PACKAGE_ROOT))}${{PYTHONPATH:+:$PYTHONPATH}}\n"
            "export PYTHONPATH\n"
            f"{ROOT_VARIABLE}={shlex.quote(str(root))}\n"
            f"export {ROOT_VARIABLE}\n"
            f"exec {shlex.quote(sys.executable)} -m transpiler.cli \"$@\"\n")


def _populate(root: Path, final_root: Path, library_dir: Path) -> None:
    """Lay out the toolkit in ``root`` (a fresh directory, renamed to ``final_root`` when done)."""
    (root / "bin").mkdir()
    _write(root / "bin" / "nvcc", _nvcc_script(final_root), 0o755)
    (root / "include").symlink_to(build.include_dir())
    (root / "nvvm" / "libdevice").mkdir(parents=True)
    lib = root / "lib64"
    lib.mkdir()
    openmp = _openmp_library()
    static = _linker_script([str(library_dir / build.LIBRARY_NAMES["static"])], [openmp, "-lpthread", "-ldl", "-lm"])
    shared = _linker_script([str(library_dir / build.LIBRARY_NAMES["shared"])], [openmp])
    for name, text in (("libcudart_static.a", static), ("libcudart.so", shared), ("libcuda.so", shared)):
        _write(lib / name, text)
    _write(lib / "libcudadevrt.a", "!<arch>\n")  # an empty archive: no device code to link
    (lib / "libcudart.so.13").symlink_to(library_dir / build.LIBRARY_NAMES["cudart"])
    (root / "lib").symlink_to("lib64")
    major, minor, patch = CUDA_RELEASE
    _write(root / "version.txt", f"CUDA Version {major}.{minor}.{patch} (cuda2cpu and MocCUDA, on the CPU)\n")
    _write(root / "version.json", json.dumps({
        "cuda": {"name": "CUDA SDK", "version": f"{major}.{minor}.{patch}"},
        "cuda_cudart": {"name": "CUDA Runtime (cudart): MocCUDA, on the CPU", "version": f"{major}.{minor}.{patch}"},
        "cuda_nvcc": {"name": "CUDA NVCC: cuda2cpu", "version": f"{major}.{minor}.{patch}"},
        "libcublas": {"name": "CUDA cuBLAS: MocCUDA's, over OpenBLAS", "version": f"{major}.{minor}.{patch}"},
    }, indent=2) + "\n")


def add_cublas(root: Path) -> bool:
    """Add cuBLAS to the toolkit (building it); False when OpenBLAS is not installed."""
    lib = root / "lib64"
    if (lib / "libcublas.so").exists():
        return True
    try:
        by_path = build.build("cublas_by_path")
    except build.BuildError:
        return False
    script = _linker_script([str(by_path)], [_openmp_library()])
    soname_link = lib / "libcublas.so.13"
    if not soname_link.is_symlink():
        tmp = lib / f".libcublas.so.13.{os.getpid()}"
        tmp.symlink_to(by_path.parent / build.LIBRARY_NAMES["cublas"])
        os.replace(tmp, soname_link)
    _write(lib / "libcublas_static.a", script)
    _write(lib / "libcublas.so", script)
    return True


def planned_root() -> Path:
    """Where :func:`toolkit_dir` puts the toolkit, without making anything (for --dryrun)."""
    return _invoked_root() or _root_for(build.library_dir())


def _invoked_root() -> Path | None:
    """The toolkit whose bin/nvcc runs this process, if one does."""
    root = os.environ.get(ROOT_VARIABLE)
    return Path(root) if root and (Path(root) / "lib64").is_dir() else None


def current_root() -> Path:
    """The toolkit for this command: the one whose bin/nvcc was run, else :func:`toolkit_dir`'s."""
    return _invoked_root() or toolkit_dir(cublas=False)


def toolkit_dir(cublas: bool = True) -> Path:
    """The toolkit directory for the current sources, compiler and interpreter, made if missing
    (with cuBLAS when ``cublas`` and OpenBLAS is installed).  Builds the MocCUDA libraries first."""
    runtime = build.build("static")  # one build makes the static, shared and cudart libraries
    library_dir = runtime.parent
    root = _root_for(library_dir)
    if not root.is_dir():
        tmp = Path(tempfile.mkdtemp(dir=root.parent, prefix=f".{root.name}-"))
        try:
            _populate(tmp, root, library_dir)
            os.chmod(tmp, 0o755)
            os.rename(tmp, root)
        except OSError:
            if not root.is_dir():  # not a concurrent maker that won the rename
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if cublas:
        add_cublas(root)
    return root


def verbose_variables(root: Path) -> list[str]:
    """The settings nvcc prints first under -v and --dryrun (``#$ NAME=value``), which CMake reads to
    find the toolkit (TOP), its headers (INCLUDES) and its libraries (LIBRARIES, which the link line
    then contains).  Answered for the CPU: the headers and libraries are MocCUDA's."""
    bin_dir = root / "bin"
    return [
        "_NVVM_BRANCH_=nvvm", "_SPACE_= ", "_CUDART_=cudart", f"_HERE_={bin_dir}", f"_THERE_={bin_dir}",
        "_TARGET_SIZE_=", "_TARGET_DIR_=", f"TOP={root}", f"NVVMIR_LIBRARY_DIR={root / 'nvvm' / 'libdevice'}",
        f"LD_LIBRARY_PATH={root / 'lib64'}:{os.environ.get('LD_LIBRARY_PATH', '')}",
        f"PATH={bin_dir}:{os.environ.get('PATH', '')}",
        f"INCLUDES={include_flag(root)}", f"LIBRARIES={library_flag(root)}",
        "CUDAFE_FLAGS=", "PTXAS_FLAGS=",
        # The architecture a build gets by default (CMake reads "-arch compute_NN"): the device MocCUDA reports.
        f"CUDA2CPU_DEVICE=-arch compute_{COMPUTE_CAPABILITY} (MocCUDA's device, on the CPU)",
    ]


def include_flag(root: Path) -> str:
    return shlex.join([f"-I{root / 'include'}"])


def library_flag_arg(root: Path) -> str:
    return f"-L{root / 'lib64'}"


def library_flag(root: Path) -> str:
    return shlex.join([library_flag_arg(root)])


def _resolved(path: str) -> Path | None:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return None


def is_toolkit_include_dir(path: str) -> bool:
    """Whether ``path`` holds another CUDA toolkit's runtime headers (NVIDIA's), not MocCUDA's."""
    where = _resolved(path)
    if where is None or where == build.include_dir().resolve():
        return False
    return (where / "cuda_runtime_api.h").is_file() or (where / "crt" / "host_defines.h").is_file()


def is_toolkit_library_dir(path: str) -> bool:
    """Whether ``path`` holds another CUDA toolkit's runtime libraries, not this toolkit's."""
    where = _resolved(path)
    if where is None or not where.is_dir() or (where / build.LIBRARY_NAMES["static"]).exists():
        return False  # MocCUDA's own library directory
    if (where / "libcudart.so").is_file() and "MocCUDA" in _head(where / "libcudart.so"):
        return False
    names = ("libcudart.so", "libcudart_static.a", "libcublas.so", "libcuda.so", "libcudadevrt.a")
    return any((where / n).exists() for n in names) or any(where.glob("libcudart.so.*"))


def _head(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(200).decode("latin-1")
    except OSError:
        return ""


__all__ = ["CUDA_RELEASE", "toolkit_dir", "version_lines", "verbose_variables", "is_toolkit_include_dir",
           "is_toolkit_library_dir", "release"]
