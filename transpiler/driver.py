"""The build driver behind ``cuda2cpu``: translate, compile, link, with nothing half-written.

Every output is written to a temporary file in the output's directory and renamed into place
only when its step succeeded, so a failed build leaves no output and no intermediates behind
(``--keep`` keeps the translated C++ of each ``.cu`` as ``NAME.cu.cpp`` beside the output).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from transpiler.options import TranslateOptions


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


def _translate_options(inv, source: Path) -> TranslateOptions:
    return TranslateOptions(
        include_dirs=tuple(inv.include_dirs), defines=tuple(inv.defines), undefines=tuple(inv.undefines),
        pre_includes=tuple(inv.pre_includes), std=inv.std, pipeline=inv.pipeline,
        disabled_passes=tuple(inv.disabled_passes), lowering=inv.lowering)


def _execute(cmd: list[str], inv) -> None:
    if inv.verbose or inv.dryrun:
        print("#$ " + shlex.join(cmd), file=sys.stderr)
    if inv.dryrun:
        return
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise BuildError(f"cannot run '{cmd[0]}': not found (set -ccbin or $CXX)") from None
    sys.stderr.write(done.stderr)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        raise BuildError(f"'{os.path.basename(cmd[0])}' failed with exit status {done.returncode}")


def _atomic_write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run(inv) -> list[dict]:
    """Carry out one invocation; return the explain report of each translated file."""
    from moccuda import build as moccuda_build
    from transpiler.translate import translate_file

    cxx = host_compiler(inv)
    explains: list[dict] = []
    cu_inputs = [p for p, lang in inv.inputs if lang == "cu"]
    for path, _ in inv.inputs:
        if not os.path.exists(path):
            raise BuildError(f"{path}: no such file")

    if inv.emit == "openmp":
        if inv.output and len(cu_inputs) > 1:
            raise BuildError("--emit=openmp with -o takes one .cu input")
        for path in cu_inputs:
            result = translate_file(path, _translate_options(inv, Path(path)))
            explains.append(result.explain)
            if inv.output == "-" or (inv.output is None and len(cu_inputs) == 1 and inv.explain != "json"):
                sys.stdout.write(result.source)
            else:
                target = Path(inv.output) if inv.output else Path(Path(path).stem + ".omp.cpp")
                _atomic_write_text(target, result.source)
        return explains

    include = [f"-I{moccuda_build.include_dir()}"]
    common = ["-fopenmp", inv.opt, f"-std={inv.std or 'c++17'}"]
    if inv.debug:
        common.append("-g")
    if inv.no_warnings:
        common.append("-w")
    user = [f"-I{d}" for d in inv.include_dirs] + [f"-D{d}" for d in inv.defines] + [f"-U{u}" for u in inv.undefines]
    if inv.shared:
        common.append("-fPIC")

    if inv.compile_only and inv.output and len(inv.inputs) > 1:
        raise BuildError("-c with -o takes one input")
    work = Path(tempfile.mkdtemp(prefix="cuda2cpu-"))
    try:
        objects: list[str] = []
        for path, lang in inv.inputs:
            if lang == "object":
                objects.append(path)
                continue
            stem = Path(path).stem
            obj_target = Path(inv.output) if (inv.compile_only and inv.output) else Path(stem + ".o")
            obj = (work / (stem + ".o")) if not inv.compile_only else work / obj_target.name
            if lang == "cu":
                result = translate_file(path, _translate_options(inv, Path(path)))
                explains.append(result.explain)
                cpp = work / (Path(path).name + ".cpp")
                cpp.write_text(result.source)
                if inv.keep:
                    kept = (Path(inv.output).parent if inv.output else Path(".")) / cpp.name
                    shutil.copyfile(cpp, kept)
                    print(f"cuda2cpu: kept the translation of {path} as {kept}", file=sys.stderr)
                src_dir = os.path.dirname(os.path.abspath(path))
                extra = [f"-I{src_dir}"] + [f"-I{d}" for d in result.include_dirs]
                cmd = [cxx, *common, *include, *user, *extra, *inv.compiler_flags, "-c", str(cpp), "-o", str(obj)]
            elif lang == "c":
                cmd = [c_compiler(), inv.opt, "-fopenmp", *include, *user, *inv.compiler_flags, "-c", path, "-o", str(obj)]
            else:
                cmd = [cxx, *common, *include, *user, *inv.compiler_flags, "-c", path, "-o", str(obj)]
            _execute(cmd, inv)
            if inv.compile_only:
                if not inv.dryrun:
                    shutil.move(str(obj), obj_target)
            else:
                objects.append(str(obj))
        if inv.compile_only:
            return explains
        output = Path(inv.output or "a.out")
        linked = work / output.name
        runtime = moccuda_build.build("shared" if inv.shared else "static") if not inv.dryrun else Path("libmoccuda.a")
        cmd = [cxx, "-fopenmp", *(["-shared"] if inv.shared else []), *objects, "-o", str(linked), str(runtime),
               *inv.libraries, *[f"-Wl,{f}" for f in inv.linker_flags], *inv.compiler_flags, "-lm", "-pthread"]
        _execute(cmd, inv)
        if not inv.dryrun:
            shutil.move(str(linked), output)
        return explains
    finally:
        shutil.rmtree(work, ignore_errors=True)
