"""The build steps of ``cuda2cpu``'s drivers: the host compiler's command lines, running them,
and putting outputs in place whole or not at all.

Both the program driver (:mod:`transpiler.driver`) and the kernel-library build use them.  An
output is made beside its target and renamed over it only when complete, so a failed step leaves
nothing half-written; an output that cannot be written (its directory missing, a full disk, a
file-size limit) is a :class:`BuildError` naming it, and whatever was there before stays.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from foundation.options import TranslateOptions
from moccuda import build as moccuda_build
from transpiler import nvcc_flags, toolkit
from transpiler.nvcc_flags import CUDA_RUNTIME_LIBS, UNSUPPORTED_CUDA_LIBS, Input


class BuildError(Exception):
    pass


def host_compiler(inv) -> str:
    if inv.ccbin:
        if os.path.isdir(inv.ccbin):
            return os.path.join(inv.ccbin, "g++")
        return inv.ccbin
    return os.environ.get("CXX") or "g++"


def c_compiler() -> str:
    return os.environ.get("CC") or "gcc"


def translate_options(inv, source: Path) -> TranslateOptions:
    return TranslateOptions(
        include_dirs=(*inv.include_dirs, *inv.system_include_dirs), defines=tuple(inv.defines), undefines=tuple(inv.undefines),
        pre_includes=tuple(inv.pre_includes), std=inv.std, pipeline=inv.pipeline,
        disabled_passes=tuple(inv.disabled_passes), lowering=inv.lowering, torch_host=inv.torch_host,
        schedule=inv.schedule, reassociate_reductions=inv.reassociate_reductions, host_openmp=asks_for_openmp(inv.compiler_flags),
        device_arch=nvcc_flags.device_arch(inv.ignored))


def asks_for_openmp(host_flags) -> bool:
    """Whether the host compiler's flags turn OpenMP on (``-Xcompiler -fopenmp``): only then does
    nvcc's host compiler define ``_OPENMP`` for the source."""
    return any(f == "-fopenmp" or f.startswith("-fopenmp=") for f in host_flags)


def execute(cmd: list[str], inv) -> None:
    if inv.verbose or inv.dryrun:
        print("#$ " + shlex.join(cmd), file=sys.stderr)
    if inv.dryrun:
        return
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise BuildError(f"cannot run '{cmd[0]}': not found (set -ccbin or $CXX)") from None
    sys.stderr.write(done.stderr)
    write_stdout(done.stdout)
    if done.returncode != 0:
        raise BuildError(f"'{os.path.basename(cmd[0])}' failed with exit status {done.returncode}")


def write_stdout(text: str) -> None:
    try:
        sys.stdout.flush()
        # bytes of the input that are not UTF-8 are in ``text`` as lone surrogates: write them back
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
    except OSError as exc:
        raise BuildError(f"cannot write standard output: {exc.strerror or exc}") from None


def _write_error(path: Path, exc: OSError) -> BuildError:
    return BuildError(f"cannot write {path}: {exc.strerror or exc}")


def check_output_path(path: Path) -> None:
    """A clear error, before any work, for an output that cannot be made: a directory named as
    the output, or a missing directory to put it in."""
    if path.is_dir():
        raise BuildError(f"cannot write {path}: it is a directory")
    if not path.parent.is_dir():
        raise BuildError(f"cannot write {path}: no such directory {path.parent}")


def _place(path: Path, fill) -> None:
    """Make ``path`` whole or not at all: ``fill(f)`` writes a temporary binary file beside it,
    which is renamed over it only when complete (a full disk or a file-size limit leaves no
    half-written output).  A path that exists and is not a regular file (``-o /dev/null``, a
    pipe) is written in place: renaming over it would replace the device or pipe with a file.
    Every failure is a :class:`BuildError` naming ``path``."""
    try:
        if path.exists() and not path.is_file():
            with open(path, "wb") as f:
                fill(f)
            return
        check_output_path(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600: the mode a plain open() would have given
        os.replace(tmp, path)
    except OSError as exc:
        raise _write_error(path, exc) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (see :func:`_place`)."""
    _place(path, lambda f: f.write(text.encode("utf-8", "surrogateescape")))  # bytes that were not UTF-8, as they were


def _user_flags(inv) -> list[str]:
    """The preprocessor options of the command line, for the host compiler."""
    return ([f"-I{d}" for d in inv.include_dirs] + [f"-isystem{d}" for d in inv.system_include_dirs]
            + [f"-D{d}" for d in inv.defines] + [f"-U{u}" for u in inv.undefines])


def libraries(inv) -> list[str]:
    """``-l``/``-L`` in order, without the CUDA runtime libraries (MocCUDA is linked instead)."""
    return [lib for lib in inv.libraries if not (lib.startswith("-l") and lib[2:] in CUDA_RUNTIME_LIBS)]


def without_installed_toolkit(inv) -> tuple[list[str], list[str]]:
    """Drop from ``inv`` the -I/-isystem directories of an installed CUDA toolkit (NVIDIA's headers
    break the parse; MocCUDA's stand in for them), and refuse CUDA libraries MocCUDA does not
    provide.  An -L into a toolkit stays (other libraries may live there): the link searches the
    toolkit directory's lib64 first, so -lcudart, -lcuda and -lcublas are MocCUDA's all the same.
    Returns the dropped include directories and those library directories, for -v."""
    dropped = [d for d in (*inv.include_dirs, *inv.system_include_dirs) if toolkit.is_toolkit_include_dir(d)]
    shadowed = [lib[2:] for lib in inv.libraries if lib.startswith("-L") and toolkit.is_toolkit_library_dir(lib[2:])]
    inv.include_dirs = [d for d in inv.include_dirs if d not in dropped]
    inv.system_include_dirs = [d for d in inv.system_include_dirs if d not in dropped]
    for lib in inv.libraries:
        if lib.startswith("-l") and lib[2:] in UNSUPPORTED_CUDA_LIBS:
            raise BuildError(f"{lib}: MocCUDA has no {UNSUPPORTED_CUDA_LIBS[lib[2:]]} (it provides the CUDA runtime, "
                             "-lcudart/-lcuda, and cuBLAS, -lcublas)")
    return dropped, shadowed


def compile_command(inv, source: Input, path: str, obj: Path, extra_includes: list[str] = ()) -> list[str]:
    """The host compiler command that makes ``obj`` from ``path`` (``source``'s translation for .cu)."""
    common = [inv.opt or "-O3", "-fopenmp", f"-I{moccuda_build.include_dir()}", *moccuda_build.header_library_flags(),
              *_user_flags(inv)]
    if inv.debug:
        common.append("-g")
    if inv.no_warnings:
        common.append("-w")
    if inv.shared:
        common.append("-fPIC")
    if source.language == "c":
        language = ["-x", "c"] if os.path.splitext(path)[1] not in (".c", ".i") else []
        return [c_compiler(), *common, *_pre_includes(inv), *inv.compiler_flags, "-c", *language, path, "-o", str(obj)]
    cxx = [host_compiler(inv), f"-std={inv.std or 'c++17'}", *common]
    if source.language == "cu":
        # The .cu's directory, for the quoted includes the translation left in place: searched first,
        # as for the .cu itself (-iquote comes before every -I), so that no -I directory shadows it.
        cxx[1:1] = ["-iquote", os.path.dirname(os.path.abspath(source.path))]
        cxx += moccuda_build.TRANSLATION_COMPILE_FLAGS
        cxx += [f"-I{d}" for d in extra_includes]
        return [*cxx, *inv.compiler_flags, "-c", path, "-o", str(obj)]
    cxx += _pre_includes(inv)
    # -x c++ on a .cu (or another suffix the host compiler does not know): C++, as nvcc compiles it.
    language = ["-x", "c++"] if os.path.splitext(path)[1] not in _CXX_SUFFIXES else []
    return [*cxx, *inv.compiler_flags, "-c", *language, path, "-o", str(obj)]


#: Suffixes g++ and clang++ compile as C++ by themselves.
_CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".C", ".c++", ".cp", ".CPP", ".ii")


def _pre_includes(inv) -> list[str]:
    return [arg for f in inv.pre_includes for arg in ("-include", f)]


def dependency_command(inv, source: Input, kind: str, dep_file: Path | None, targets: list[str]) -> list[str]:
    """make rules for ``source``'s headers, from the host preprocessor with the front end's view of a .cu:
    ``__CUDACC__`` defined and MocCUDA's ``cuda_runtime.h`` included first, as a system header."""
    if source.language == "c":
        cmd = [c_compiler()]
    else:
        cmd = [host_compiler(inv), f"-std={inv.std or 'c++17'}"]
    cmd += ["-M" if kind == "all" else "-MM", "-isystem", str(moccuda_build.include_dir()),
            *moccuda_build.header_library_flags(), *_user_flags(inv)]
    if source.language == "cu":
        cmd += ["-x", "c++", "-D__CUDACC__", "-D__NVCC__", "-include", "cuda_runtime.h"]
    cmd += _pre_includes(inv)
    if dep_file is not None:
        cmd += ["-MF", str(dep_file)]
    cmd += [arg for t in targets for arg in ("-MT", t)]
    if inv.dep_phony:
        cmd.append("-MP")
    return [*cmd, *inv.compiler_flags, source.path]


def translate_command(inv, source: Input, cpp: Path) -> list[str]:
    """The translation step as a command line of its own (shown by -v and --dryrun)."""
    flags = ([f"-I{d}" for d in inv.include_dirs] + [arg for d in inv.system_include_dirs for arg in ("-isystem", d)]
             + [f"-D{d}" for d in inv.defines] + [f"-U{u}" for u in inv.undefines]
             + [arg for f in inv.pre_includes for arg in ("-include", f)] + ([f"-std={inv.std}"] if inv.std else []))
    return ["cuda2cpu", "--emit=openmp", *flags, source.path, "-o", str(cpp)]


def print_warnings(inv, result) -> None:
    """The translation's warnings (a kernel lowered with the fiber fallback, ...), unless -w."""
    if not inv.no_warnings:
        for w in result.warnings:
            print(w.render(), file=sys.stderr)


def install(built: Path, target: Path, inv) -> None:
    """Put a finished output in place, whole or not at all (nothing to move in a dry run): renamed
    when it can be, else copied through :func:`_place`, with its mode (an executable stays one)."""
    if inv.dryrun:
        return
    if target.is_file() or not target.exists():
        check_output_path(target)
        try:
            os.replace(built, target)
            return
        except OSError:
            pass  # another file system: copied below

    def copy(f) -> None:
        with open(built, "rb") as source:
            shutil.copyfileobj(source, f)

    _place(target, copy)
    if target.is_file():
        try:
            shutil.copymode(built, target)
        except OSError as exc:
            raise _write_error(target, exc) from None


def keep(cpp: Path, kept: Path) -> None:
    """--keep: a copy of the translation ``cpp`` at ``kept``."""
    _place(kept, lambda f: f.write(cpp.read_bytes()))
