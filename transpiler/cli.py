"""``cuda2cpu``: a drop-in for ``nvcc`` that builds CUDA programs for the CPU.

Parsing follows nvcc's command line: single-dash long options, ``-Xcompiler a,b`` lists, and
the GPU-only options accepted and ignored.  Building is :mod:`transpiler.driver`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field

from transpiler import __version__

#: nvcc options with no meaning on a CPU: accepted and ignored.  Value: takes an argument?
IGNORED_FLAGS = {
    "-arch": True, "--gpu-architecture": True, "-code": True, "--gpu-code": True, "-gencode": True,
    "--generate-code": True, "-maxrregcount": True, "--maxrregcount": True, "-Xptxas": True,
    "--ptxas-options": True, "-Xcudafe": True, "--keep-dir": True, "-t": True, "--threads": True,
    "--default-stream": True, "-Xnvlink": True, "-rdc": True, "--relocatable-device-code": True,
    "--use_fast_math": False, "-use_fast_math": False, "-lineinfo": False, "--generate-line-info": False,
    "-G": False, "--device-debug": False, "--expt-relaxed-constexpr": False, "--expt-extended-lambda": False,
    "--extended-lambda": False, "-res-usage": False, "--resource-usage": False,
    "-Wno-deprecated-gpu-targets": False, "-Wno-deprecated-declarations": False, "-m64": False,
    "--ftz": True, "--prec-div": True, "--prec-sqrt": True, "--fmad": True,
}
_JOINED_IGNORED = re.compile(r"^(-arch=|--gpu-architecture=|-code=|-gencode=|--generate-code=|-rdc=|"
                             r"--relocatable-device-code=|-maxrregcount=|--ftz=|--prec-div=|--prec-sqrt=|"
                             r"--fmad=|--default-stream=|-arch|-Xptxas=|-t=|--threads=)")

HELP = f"""usage: cuda2cpu [options] FILE...

Translate CUDA C++ to C++ with OpenMP and build it for the CPU, like nvcc builds for a GPU.
Inputs: .cu (translated), .cpp/.cc/.cxx/.C (compiled as C++), .c (compiled with $CC or gcc),
.o/.a/.so (linked).

Build options (as nvcc):
  -o FILE               output file (default: a.out, or NAME.o with -c)
  -c, -dc               compile to object files, do not link
  -I DIR, -D NAME[=V], -U NAME, -include FILE
  -O0 .. -O3            host optimization (default -O3)
  -g                    debug information
  -std=c++NN            language standard (default c++17)
  -Xcompiler A,B        pass options to the C++ compiler (also --compiler-options)
  -Xlinker A,B          pass options to the linker (also --linker-options)
  -l LIB, -L DIR        libraries and library directories
  -shared, -fPIC        build a shared library / position-independent code
  -ccbin CXX            the host C++ compiler (also --compiler-bindir); else $CXX, else g++
  -x cu                 treat the following inputs as CUDA
  -w                    no warnings from the C++ compiler
  -v, --verbose         print the commands run;  --dryrun  print them, run nothing
  --version, -V         print the version

cuda2cpu options:
  --emit=openmp         write the translated C++ (to -o FILE or stdout) instead of building
  --keep                keep the translated C++ next to the output
  --explain             print, per kernel, what happened to each barrier (to stderr)
  --explain=json        the same as one JSON object on stdout
  --pipeline=P1,P2      run these passes instead of the default pipeline
  --no-PASS             drop an optional pass (for ablation), e.g. --no-barrier-elim
  --lowering=MODE       barrier lowering: auto (default), split or fallback
  -h, --help            this text

HTTP service: cuda2cpu serve --help

Accepted and ignored (they mean nothing on a CPU):
  {' '.join(sorted(IGNORED_FLAGS))}
  and their -opt=value forms.
"""


@dataclass
class Invocation:
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (path, language)
    output: str | None = None
    compile_only: bool = False
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    undefines: list[str] = field(default_factory=list)
    pre_includes: list[str] = field(default_factory=list)
    opt: str = "-O3"
    debug: bool = False
    std: str | None = None
    compiler_flags: list[str] = field(default_factory=list)
    linker_flags: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)
    shared: bool = False
    ccbin: str | None = None
    no_warnings: bool = False
    verbose: bool = False
    dryrun: bool = False
    emit: str | None = None
    keep: bool = False
    explain: str | None = None
    pipeline: str | None = None
    disabled_passes: list[str] = field(default_factory=list)
    lowering: str = "auto"
    show_help: bool = False
    show_version: bool = False


class UsageError(Exception):
    pass


def _language(path: str, forced: str | None) -> str:
    if forced:
        return forced
    ext = os.path.splitext(path)[1]
    if ext == ".cu":
        return "cu"
    if ext in (".cpp", ".cc", ".cxx", ".C", ".c++"):
        return "c++"
    if ext == ".c":
        return "c"
    if ext in (".o", ".a", ".so", ".obj") or re.search(r"\.so(\.\d+)*$", path):
        return "object"
    raise UsageError(f"don't know what to do with '{path}' (expected .cu, .cpp, .c, .o, .a or .so)")


def parse_args(argv: list[str]) -> Invocation:
    inv = Invocation()
    forced_language = None
    args = list(argv)
    i = 0

    def value(flag: str) -> str:
        nonlocal i
        if i + 1 >= len(args):
            raise UsageError(f"option '{flag}' needs an argument")
        i += 1
        return args[i]

    while i < len(args):
        a = args[i]
        if a in ("-h", "--help", "-help"):
            inv.show_help = True
        elif a in ("--version", "-V"):
            inv.show_version = True
        elif a == "-o" or a == "--output-file":
            inv.output = value(a)
        elif a in ("-c", "-dc", "--compile", "--device-c"):
            inv.compile_only = True
        elif a.startswith("-I"):
            inv.include_dirs.append(a[2:] or value(a))
        elif a.startswith("-D"):
            inv.defines.append(a[2:] or value(a))
        elif a.startswith("-U"):
            inv.undefines.append(a[2:] or value(a))
        elif a == "-include":
            inv.pre_includes.append(value(a))
        elif re.fullmatch(r"-O[0-3s]?", a):
            inv.opt = a if a != "-O" else "-O1"
        elif a == "-g":
            inv.debug = True
        elif a.startswith("-std=") or a.startswith("--std="):
            inv.std = a.split("=", 1)[1]
        elif a == "--std":
            inv.std = value(a)
        elif a in ("-Xcompiler", "--compiler-options"):
            inv.compiler_flags += [f for f in value(a).split(",") if f]
        elif a.startswith("-Xcompiler=") or a.startswith("--compiler-options="):
            inv.compiler_flags += [f for f in a.split("=", 1)[1].split(",") if f]
        elif a in ("-Xlinker", "--linker-options"):
            inv.linker_flags += [f for f in value(a).split(",") if f]
        elif a.startswith("-l"):
            inv.libraries.append("-l" + (a[2:] or value(a)))
        elif a.startswith("-L"):
            inv.libraries.append("-L" + (a[2:] or value(a)))
        elif a in ("-shared", "--shared"):
            inv.shared = True
        elif a == "-fPIC":
            inv.compiler_flags.append("-fPIC")
        elif a in ("-ccbin", "--compiler-bindir"):
            inv.ccbin = value(a)
        elif a.startswith("-ccbin=") or a.startswith("--compiler-bindir="):
            inv.ccbin = a.split("=", 1)[1]
        elif a == "-x":
            lang = value(a)
            if lang not in ("cu", "c++", "c", "none"):
                raise UsageError(f"unknown language '{lang}' for -x (cu, c++, c or none)")
            forced_language = None if lang == "none" else lang
        elif a == "-w":
            inv.no_warnings = True
        elif a in ("-v", "--verbose"):
            inv.verbose = True
        elif a == "--dryrun":
            inv.dryrun = True
        elif a.startswith("--emit="):
            inv.emit = a.split("=", 1)[1]
            if inv.emit != "openmp":
                raise UsageError(f"unknown --emit kind '{inv.emit}' (only 'openmp')")
        elif a == "--keep":
            inv.keep = True
        elif a == "--explain":
            inv.explain = "text"
        elif a.startswith("--explain="):
            inv.explain = a.split("=", 1)[1]
            if inv.explain not in ("json", "text"):
                raise UsageError(f"unknown --explain format '{inv.explain}' (json or text)")
        elif a.startswith("--pipeline="):
            inv.pipeline = a.split("=", 1)[1]
        elif a.startswith("--lowering="):
            inv.lowering = a.split("=", 1)[1]
            if inv.lowering not in ("auto", "split", "fallback"):
                raise UsageError(f"unknown --lowering '{inv.lowering}' (auto, split or fallback)")
        elif re.fullmatch(r"--no-[a-z0-9-]+", a):
            inv.disabled_passes.append(a[len("--no-"):])
        elif a in IGNORED_FLAGS:
            if IGNORED_FLAGS[a]:
                value(a)
        elif _JOINED_IGNORED.match(a):
            pass
        elif a.startswith("-"):
            raise UsageError(f"unknown option '{a}' (see cuda2cpu --help)")
        else:
            inv.inputs.append((a, _language(a, forced_language)))
        i += 1
    return inv


def _explain_text(explain: dict) -> str:
    lines = []
    for k in explain.get("kernels", []):
        lines.append(f"kernel {k['name']} (line {k['line']}): lowering {k['lowering']}")
        for b in k["barriers"]:
            lines.append(f"  barrier at {b['line']}:{b['column']}: {b['action']} ({b['reason']})")
        for kv in k["kept_values"]:
            names = ", ".join(kv["names"]) or "none"
            lines.append(f"  values kept across the barrier at line {kv['barrier_line']}: {names}")
        for h in k["hoisted"]:
            lines.append(f"  hoisted to {h['to']} level from line {h['line']}: {h['text']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from transpiler import driver
    from transpiler.diagnostics import CompileError

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        from server.cli import main as serve
        return serve(argv[1:])
    try:
        inv = parse_args(argv)
    except UsageError as exc:
        print(f"cuda2cpu: error: {exc}", file=sys.stderr)
        return 1
    if inv.show_help:
        print(HELP)
        return 0
    if inv.show_version:
        print(f"cuda2cpu {__version__} (CUDA to C++/OpenMP; MocCUDA runtime)")
        return 0
    if not inv.inputs:
        print("cuda2cpu: error: no input files (see cuda2cpu --help)", file=sys.stderr)
        return 1
    try:
        explains = driver.run(inv)
    except CompileError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except driver.BuildError as exc:
        print(f"cuda2cpu: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug in cuda2cpu: say so, without a traceback unless asked
        if os.environ.get("CUDA2CPU_DEBUG"):
            raise
        print(f"cuda2cpu: internal error: {type(exc).__name__}: {exc} (set CUDA2CPU_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 2
    if inv.explain == "json":
        merged = {"kernels": [k for e in explains for k in e.get("kernels", [])]}
        print(json.dumps(merged, indent=2))
    elif inv.explain == "text":
        print("\n".join(_explain_text(e) for e in explains), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
