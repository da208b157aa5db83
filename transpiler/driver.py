"""The build driver behind ``cuda2cpu``: translate, compile, link, with nothing half-written.

Every output is made in a temporary directory and moved into place only when its step
succeeded, so a failed build leaves no output and no intermediates behind (``--keep`` keeps the
translated C++ of each ``.cu`` as ``NAME.cu.cpp`` beside the output, or in ``--keep-dir``).
An output that cannot be written (its directory missing, a full disk, a file-size limit) is a
:class:`transpiler.build_steps.BuildError` naming it, and whatever was there before stays as it was.
The command line it carries out is a :class:`transpiler.nvcc_flags.Invocation`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from moccuda import build as moccuda_build
from transpiler import build_steps as steps
from transpiler import kernel_library, toolkit
from transpiler.nvcc_flags import Input
from transpiler.translate import translate_file


def _emit(inv) -> list[dict]:
    """--emit=openmp and -cuda: the translations themselves."""
    explains = []
    for source in inv.inputs:
        result = translate_file(source.path, steps.translate_options(inv, Path(source.path)))
        steps.print_warnings(inv, result)
        explains.append(result.explain)
        if inv.emit == "cuda":
            _preprocessed(inv, source, result, Path(inv.output or Path(source.path).name + ".cpp.ii"))
        elif inv.output == "-" or (inv.output is None and len(inv.inputs) == 1 and inv.explain != "json"):
            steps.write_stdout(result.source)
        else:
            target = Path(inv.output) if inv.output else Path(Path(source.path).stem + ".omp.cpp")
            steps.atomic_write_text(target, result.source)
    return explains


def _preprocessed(inv, source: Input, result, target: Path) -> None:
    """-cuda: the translation preprocessed, as nvcc's NAME.cu.cpp.ii is (host C++, compiled as it is)."""
    work = Path(tempfile.mkdtemp(prefix="cuda2cpu-"))
    try:
        cpp = work / (Path(source.path).name + ".cpp")
        steps.atomic_write_text(cpp, result.source)
        command = steps.compile_command(inv, source, str(cpp), work / "out.ii", result.include_dirs)
        command[command.index("-c")] = "-E"
        steps.execute(command, inv)
        steps.install(work / "out.ii", target, inv)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _object_target(inv, source: Input) -> Path:
    """Where -c puts the object of ``source``: -o, else NAME.o in -odir or here."""
    if inv.output:
        return Path(inv.output)
    return Path(inv.odir or ".") / (Path(source.path).stem + ".o")


def _dependency_target(inv, source: Input) -> Path:
    """Where -MD puts ``source``'s rules: -MF, else -c's -o with .d, else NAME.d."""
    if inv.dep_file:
        return Path(inv.dep_file)
    if inv.output and inv.mode == "compile":
        return Path(inv.output).with_suffix(".d")
    return Path(Path(source.path).stem + ".d")


def _kernel_library(inv, sources) -> list[dict]:
    """Translate each ``.cu`` of ``inv`` as a kernel library's source, compile it with ``-fPIC
    -fvisibility=hidden`` and link them into ``inv.output`` (``-shared``, without MocCUDA)."""
    explains = []
    work = Path(tempfile.mkdtemp(prefix="cuda2cpu-kernels-"))
    try:
        objects = []
        for n, source in enumerate(sources):
            options = steps.translate_options(inv, Path(source.path))
            result = translate_file(source.path, options, kernel_library=True)
            steps.print_warnings(inv, result)
            explains.append(result.explain)
            cpp = work / f"{n}_{Path(source.path).name}.cpp"
            steps.atomic_write_text(cpp, result.source)
            if inv.keep:
                kept_name = Path(source.path).with_suffix(".kernels.cpp").name
                kept = Path(inv.keep_dir or Path(inv.output).parent) / kept_name
                steps.keep(cpp, kept)
            obj = work / f"{n}.o"
            cmd = steps.compile_command(inv, source, str(cpp), obj, result.include_dirs)
            cmd[cmd.index("-c"):cmd.index("-c")] = ["-fPIC", "-fvisibility=hidden"]
            steps.execute(cmd, inv)
            objects.append(str(obj))
        library = work / Path(inv.output).name
        steps.execute([steps.host_compiler(inv), "-shared", "-fopenmp", *objects, "-o", str(library),
                         *steps.libraries(inv), *[f"-Wl,{f}" for f in inv.linker_flags], *inv.link_args], inv)
        steps.install(library, Path(inv.output), inv)
        return explains
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(inv) -> list[dict]:
    """Carry out one invocation (a :class:`transpiler.nvcc_flags.Invocation`); return the explain
    report of each translated file."""
    for source in inv.inputs:
        if not os.path.exists(source.path):
            raise steps.BuildError(f"{source.path}: no such file")
    if inv.odir and inv.mode == "compile" and not inv.output and not os.path.isdir(inv.odir):
        raise steps.BuildError(f"-odir {inv.odir}: no such directory")
    if inv.output and inv.output != "-" and not inv.dryrun:  # before any work: cannot be written?
        output = Path(inv.output)
        if output.is_dir() or not output.exists() or output.is_file():
            steps.check_output_path(output)
    dropped, shadowed = steps.without_installed_toolkit(inv)
    if inv.verbose or inv.dryrun:  # nvcc's settings first, as CMake reads them from `nvcc -v`
        root = toolkit.current_root() if not inv.dryrun else toolkit.planned_root()
        for line in toolkit.verbose_variables(root):
            print(f"#$ {line}", file=sys.stderr)
    if inv.verbose and dropped:
        print("cuda2cpu: not using an installed CUDA toolkit's headers in " + " ".join(dropped) + " (MocCUDA's stand in "
              "for them)", file=sys.stderr)
    if inv.verbose and shadowed:
        print("cuda2cpu: not using an installed CUDA toolkit's libcudart, libcuda or libcublas in " + " ".join(shadowed)
              + " (MocCUDA's, in the toolkit directory searched first, stand in for them)", file=sys.stderr)
    if inv.verbose and inv.ignored:
        print("cuda2cpu: ignored (they steer only GPU code): " + " ".join(inv.ignored), file=sys.stderr)
    if inv.emit in ("openmp", "cuda"):  # -cuda: nvcc's "translated source" step, which is ours
        return _emit(inv)
    if inv.emit == "kernel-library":
        inv.output = inv.output or kernel_library.default_output(inv.inputs[0].path)
        return _kernel_library(inv, inv.inputs)

    explains: list[dict] = []
    sources = [s for s in inv.inputs if s.language != "object"]
    work = Path(tempfile.mkdtemp(prefix="cuda2cpu-"))
    try:
        if inv.deps:  # -M/-MM: the rules only, to -MF, -o or stdout
            for source in sources:
                target = inv.dep_file or inv.output
                steps.execute(steps.dependency_command(inv, source, inv.deps, work / "deps.d" if target else None,
                                             inv.dep_targets), inv)
                if target:
                    steps.install(work / "deps.d", Path(target), inv)
            return explains
        if inv.mode == "dlink":  # no device code to link: an empty object keeps Makefiles working
            obj = work / "dlink.o"
            steps.execute([steps.host_compiler(inv), "-x", "c++", "-c", os.devnull, "-o", str(obj)], inv)
            steps.install(obj, Path(inv.output or "a_dlink.o"), inv)
            return explains

        objects: list[str] = []  # in the command line's order, as nvcc links them (main.cu libfoo.a)
        for n, source in enumerate(inv.inputs):
            if source.language == "object":
                objects.append(source.path)
                continue
            (work / str(n)).mkdir()  # a directory each: a.cu and a.cpp both make a.o (the name ar keeps)
            obj = work / str(n) / (Path(source.path).stem + ".o")
            path, extra_includes = source.path, []
            if source.language == "cu":
                cpp = work / (Path(source.path).name + ".cpp")
                if inv.verbose or inv.dryrun:
                    print("#$ " + shlex.join(steps.translate_command(inv, source, cpp)), file=sys.stderr)
                if not inv.dryrun:
                    result = translate_file(source.path, steps.translate_options(inv, Path(source.path)))
                    steps.print_warnings(inv, result)
                    explains.append(result.explain)
                    steps.atomic_write_text(cpp, result.source)
                    extra_includes = result.include_dirs  # the inlined headers' own includes
                path = str(cpp)
                if inv.keep and not inv.dryrun:
                    kept = Path(inv.keep_dir or (Path(inv.output).parent if inv.output else ".")) / cpp.name
                    steps.keep(cpp, kept)
                    print(f"cuda2cpu: kept the translation of {source.path} as {kept}", file=sys.stderr)
            steps.execute(steps.compile_command(inv, source, path, obj, extra_includes), inv)
            if inv.deps_compile:
                object_name = str(_object_target(inv, source) if inv.mode == "compile" else Path(source.path).stem + ".o")
                steps.execute(steps.dependency_command(inv, source, inv.deps_compile, work / "deps.d",
                                             inv.dep_targets or [object_name]), inv)
                steps.install(work / "deps.d", _dependency_target(inv, source), inv)
            if inv.mode == "compile":
                steps.install(obj, _object_target(inv, source), inv)
            else:
                objects.append(str(obj))
        if inv.mode == "compile":
            return explains
        if inv.mode == "lib":
            output = Path(inv.output or "a.a")
            archive = work / output.name
            steps.execute([inv.arbin or "ar", *inv.archive_flags, "rcs", str(archive), *objects], inv)
            steps.install(archive, output, inv)
            return explains
        output = Path(inv.output or "a.out")
        linked = work / output.name
        libraries = steps.libraries(inv)
        root = toolkit.planned_root() if inv.dryrun else toolkit.current_root()
        if not inv.dryrun and any(lib in ("-lcublas", "-lcublas_static") for lib in libraries) \
                and not toolkit.add_cublas(root):
            moccuda_build.openblas_dir()  # raises, saying what to install
        # MocCUDA's runtime as nvcc links CUDA's, from the toolkit directory, whose library directory comes
        # first (so -lcublas is MocCUDA's too): the static runtime (a shared library links the shared one),
        # after the user's libraries, as a static library of CUDA code calls into it.
        runtime = "-lcudart" if inv.shared else "-lcudart_static"
        cmd = [steps.host_compiler(inv), "-fopenmp", *(["-shared"] if inv.shared else []), *objects, "-o", str(linked),
               toolkit.library_flag_arg(root), *libraries, runtime, *[f"-Wl,{f}" for f in inv.linker_flags],
               *inv.compiler_flags, *inv.link_args, *moccuda_build.SYSTEM_LINK_FLAGS]
        steps.execute(cmd, inv)
        steps.install(linked, output, inv)
        return explains
    finally:
        shutil.rmtree(work, ignore_errors=True)
