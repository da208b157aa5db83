"""The ``moccuda`` command.

``moccuda run [--kernels LIB.so ...] -- ./app args...`` runs a program built with
``nvcc -cudart shared`` on the CPU: MocCUDA's ``libcudart.so.13`` (and its ``libcublas.so.13``
when OpenBLAS is installed) is preloaded and put first on the library path, and the kernels are
looked up by mangled name in the kernel libraries (``$MOCCUDA_KERNELS``), which
``cuda2cpu --emit=kernel-library app.cu -o LIB.so`` builds from the program's sources.  A program
with CUDA's runtime linked in statically (nvcc's default) cannot be served, and is refused with
that reason.

``moccuda info`` prints the emulated device and where the libraries are; ``moccuda toolkit-dir``
prints a directory laid out like a CUDA toolkit (``cuda2cpu --toolkit-dir``, transpiler.toolkit).  The old flags
(``--include-dir``, ``--lib-dir``, ``--build``, ``--link-flags``) still work.

Environment (set by ``moccuda run``, or by hand): ``MOCCUDA_KERNELS`` (colon-separated kernel
libraries), ``LD_PRELOAD`` and ``LD_LIBRARY_PATH`` (MocCUDA's library directory).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from moccuda import build

DEVICE = "MocCUDA (Tesla V100-SXM2-16GB on the CPU): compute capability 7.0, 80 multiprocessors, 16 GB"


def needed_libraries(program: Path) -> list[str] | None:
    """The program's DT_NEEDED entries, or None if it is not a dynamic ELF file readelf can read."""
    done = subprocess.run(["readelf", "-dW", str(program)], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return [line.split("[", 1)[1].rstrip("]") for line in done.stdout.splitlines()
            if "(NEEDED)" in line and "[" in line]


def static_cudart_reason(program: Path) -> str | None:
    """Why MocCUDA cannot stand in for the program's CUDA runtime, or None if it can."""
    needed = needed_libraries(program)
    if needed is None:
        return f"{program}: not a dynamically linked program"
    if not any(name.startswith("libcudart.so") for name in needed):
        return (f"{program} does not load libcudart.so (CUDA's runtime is linked in statically, nvcc's "
                "default), so MocCUDA cannot replace it: rebuild with `nvcc -cudart shared`")
    return None


def run_environment(kernels: list[str], base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment that runs a program on MocCUDA."""
    env = dict(os.environ if base is None else base)
    cudart = build.build("cudart")
    preload = [str(cudart)]
    try:
        preload.append(str(build.build("cublas")))
    except build.BuildError:
        pass  # no OpenBLAS: programs without cuBLAS still run
    lib_dir = str(cudart.parent)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (lib_dir, env.get("LD_LIBRARY_PATH", "")) if p)
    env["LD_PRELOAD"] = " ".join(p for p in (*preload, env.get("LD_PRELOAD", "")) if p)
    libraries = [str(Path(k).resolve()) for k in kernels]
    if env.get("MOCCUDA_KERNELS"):
        libraries.append(env["MOCCUDA_KERNELS"])
    env["MOCCUDA_KERNELS"] = ":".join(libraries)
    return env


def _run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("moccuda run: no program given (moccuda run --kernels LIB.so -- ./app args)", file=sys.stderr)
        return 2
    program = shutil.which(command[0]) or command[0]
    reason = static_cudart_reason(Path(program))
    if reason is not None:
        print(f"moccuda run: {reason}", file=sys.stderr)
        return 2
    for kernel_library in args.kernels:
        if not Path(kernel_library).is_file():
            print(f"moccuda run: no kernel library {kernel_library}", file=sys.stderr)
            return 2
    env = run_environment(args.kernels)
    return subprocess.run(command, env=env).returncode


def _info() -> int:
    print(f"device:      {DEVICE}")
    print(f"include:     {build.include_dir()}")
    print(f"libcudart:   {build.build('cudart')}")
    try:
        print(f"libcublas:   {build.build('cublas')}")
    except build.BuildError as exc:
        print(f"libcublas:   unavailable ({str(exc).splitlines()[0]})")
    print(f"kernels:     {os.environ.get('MOCCUDA_KERNELS') or '(MOCCUDA_KERNELS not set)'}")
    return 0


def _legacy(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="moccuda", description="Find or build the MocCUDA runtime.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--include-dir", action="store_true", help="print the header directory")
    group.add_argument("--lib-dir", action="store_true", help="print the library directory (building it)")
    group.add_argument("--build", nargs="?", const="static", choices=list(build.LIBRARY_NAMES),
                       help="build a library (default: static) and print its path")
    group.add_argument("--link-flags", action="store_true",
                       help="print what a link needs after its objects (building the library)")
    args = parser.parse_args(argv)
    if args.include_dir:
        print(build.include_dir())
    elif args.lib_dir:
        print(build.build("static").parent)
    elif args.link_flags:
        print(" ".join(build.link_flags()))
    else:
        print(build.build(args.build))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv and argv[0] == "info":
            return _info()
        if argv and argv[0] == "toolkit-dir":  # a CUDA toolkit layout of cuda2cpu and MocCUDA
            from transpiler import toolkit
            print(toolkit.toolkit_dir())
            return 0
        if argv and argv[0] == "run":
            parser = argparse.ArgumentParser(prog="moccuda run",
                                             description="Run a program built with nvcc -cudart shared on the CPU.")
            parser.add_argument("--kernels", action="append", default=[], metavar="LIB.so",
                                help="a kernel library (cuda2cpu --emit=kernel-library app.cu -o LIB.so); repeatable")
            parser.add_argument("command", nargs=argparse.REMAINDER, help="-- ./app args...")
            return _run(parser.parse_args(argv[1:]))
        return _legacy(argv)
    except build.BuildError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
