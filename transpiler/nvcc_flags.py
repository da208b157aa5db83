"""nvcc's command line, as cuda2cpu understands it: one table of options, and the parser.

The spellings follow nvcc (CUDA 13): every option has a long form (``--gpu-architecture``) and
most a short one (``-arch``); an option with a value takes it as the next argument or after
``=`` (``-arch sm_80``, ``-arch=sm_80``), and the one-letter ones also joined (``-Iinc``, ``-O3``,
``-lfoo``).  List options split their value at commas as nvcc does (``-Xcompiler -Wall,-Wextra``,
``-DA=1,B=2``).  Options that only steer GPU code generation are accepted and ignored; options
that ask for GPU artefacts (PTX, cubins) are refused with a message; anything else unknown is an
error, unless ``-forward-unknown-to-host-compiler`` (or ``-linker``) says to pass it on.

:data:`OPTIONS` is the single source of truth: the parser, ``--help`` and the tests all read it.
"""

from __future__ import annotations

import os
import re
import shlex
import textwrap
from dataclasses import dataclass, field

from foundation.options import MOCCUDA_DEVICE_ARCH


class UsageError(Exception):
    """A command-line mistake: the CLI prints it as ``cuda2cpu: error: ...`` and exits 1."""


@dataclass(frozen=True)
class Opt:
    """One nvcc option.  Most options only store into :class:`Invocation` (actions ``store``,
    ``const`` and ``append``, naming the field in ``dest``); the rest have a handler in
    :meth:`Parser._apply`.  A new option is one entry here (and its field in Invocation)."""

    names: tuple[str, ...]           # every spelling; the first is shown first in --help
    action: str                      # store | const | append | host_flag | a handler of Parser._apply
    metavar: str | None = None       # set: the option takes a value
    help: str = ""
    section: str = "build"           # build | deps | own | ignored
    dest: str | None = None          # the Invocation field of store, const and append
    const: object = True             # the value that const stores, the flag that host_flag passes
    joined: bool = False             # also -Xvalue (one-letter options)
    split: bool = False              # the value is a comma-separated list
    choices: tuple[str, ...] | None = None
    optional_value: bool = False     # only --opt or --opt=value (never a separate argument)
    hidden: bool = False             # accepted, not listed in --help


def _o(*names: str, **kw) -> Opt:
    return Opt(tuple(names), **kw)


BOOL = ("true", "false")

OPTIONS: tuple[Opt, ...] = (
    # ------------------------------------------------------------------ what to build
    _o("-o", "--output-file", action="store", dest="output", metavar="FILE",
       help="output file (default a.out; with -c NAME.o; with -lib a.a)"),
    _o("-c", "--compile", action="const", dest="mode", const="compile",
       help="compile each input to an object file, do not link"),
    _o("-dc", "--device-c", action="const", dest="mode", const="compile",
       help="same as -c (there is no separate device code to relocate)"),
    _o("-dw", "--device-w", action="const", dest="mode", const="compile", help="same as -c"),
    _o("-link", "--link", action="const", dest="mode", const="link", help="compile and link (the default)"),
    _o("-lib", "--lib", action="const", dest="mode", const="lib",
       help="compile the inputs and put the objects into the static library -o (default a.a)"),
    _o("-dlink", "--device-link", action="const", dest="mode", const="dlink",
       help="device link: there is no device code, so this writes an empty object (-o, default a_dlink.o)"),
    _o("-shared", "--shared", action="const", dest="shared", help="link a shared library (compiles with -fPIC)"),
    _o("-x", "--x", action="language", metavar="LANG", choices=("cu", "c++", "c", "none"),
       help="treat the inputs after it as LANG: cu (translated), c++, c; none: by suffix again"),
    _o("-odir", "--output-directory", action="store", dest="odir", metavar="DIR",
       help="where -c puts object files without -o"),
    _o("-optf", "--options-file", action="optf", metavar="FILE", split=True,
       help="read more options from FILE (shell-style words)"),
    # ------------------------------------------------------------------ preprocessor
    _o("-I", "--include-path", action="append", dest="include_dirs", metavar="DIR", joined=True, split=True,
       help="add DIR to the include path (the .cu file's own directory is always searched)"),
    _o("-isystem", "--system-include", action="append", dest="system_include_dirs", metavar="DIR", split=True,
       help="add DIR to the system include path"),
    _o("-D", "--define-macro", action="append", dest="defines", metavar="NAME[=VAL]", joined=True, split=True,
       help="define a macro"),
    _o("-U", "--undefine-macro", action="append", dest="undefines", metavar="NAME", joined=True, split=True,
       help="undefine a macro"),
    _o("-include", "--pre-include", action="append", dest="pre_includes", metavar="FILE", split=True,
       help="include FILE first"),
    _o("-std", "--std", action="std", metavar="STD",
       help="language standard: c++11, c++14, c++17 (default), c++20 (also gnu++NN)"),
    # ------------------------------------------------------------------ host compiler and linker
    _o("-O", "--optimize", action="opt", metavar="LEVEL", joined=True,
       help="optimization level 0-4, s, g or fast; default 3, as nvcc optimizes device code by default "
            "(here device code is host code); an explicit -O applies to every input"),
    _o("-g", "--debug", action="const", dest="debug", help="debug information"),
    _o("-G", "--device-debug", action="const", dest="debug", help="debug information for kernels (the same as -g here)"),
    _o("-pg", "--profile", action="host_flag", const="-pg", help="instrument for gprof (passes -pg)"),
    _o("-w", "--disable-warnings", action="const", dest="no_warnings",
       help="no warnings from cuda2cpu or the C++ compiler"),
    _o("-Xcompiler", "--compiler-options", action="append", dest="compiler_flags", metavar="A,B", split=True,
       help="pass options to the host C/C++ compiler (compile and link)"),
    _o("-Xlinker", "--linker-options", action="append", dest="linker_flags", metavar="A,B", split=True,
       help="pass options to the linker (as -Wl,A)"),
    _o("-Xarchive", "--archive-options", action="append", dest="archive_flags", metavar="A,B", split=True,
       help="pass options to ar (-lib)"),
    _o("-l", "--library", action="library", metavar="LIB", joined=True, split=True,
       help="link with libLIB (-lcudart, -lcudart_static, -lcudadevrt and -lcuda are MocCUDA and dropped)"),
    _o("-L", "--library-path", action="library_dir", metavar="DIR", joined=True, split=True,
       help="add DIR to the library path"),
    _o("-fPIC", action="host_flag", const="-fPIC", help="position-independent code (also -Xcompiler -fPIC)"),
    _o("-ccbin", "--compiler-bindir", action="store", dest="ccbin", metavar="CXX",
       help="the host C++ compiler (a command, a path, or a directory holding g++); else $CXX, else g++"),
    _o("-arbin", "--archiver-binary", action="store", dest="arbin", metavar="AR",
       help="the archiver for -lib (default ar)"),
    _o("-noeh", "--no-exceptions", action="host_flag", const="-fno-exceptions",
       help="no C++ exceptions (passes -fno-exceptions)"),
    _o("-ftemplate-depth", "--ftemplate-depth", action="host_value", metavar="N",
       help="passed to the host compiler as -ftemplate-depth=N"),
    _o("-ftemplate-backtrace-limit", "--ftemplate-backtrace-limit", action="host_value", metavar="N",
       help="passed to the host compiler as -ftemplate-backtrace-limit=N"),
    _o("-Wreorder", "--Wreorder", action="host_flag", const="-Wreorder", help="passed to the host compiler"),
    _o("-Wno-deprecated-declarations", "--Wno-deprecated-declarations", action="host_flag",
       const="-Wno-deprecated-declarations", help="passed to the host compiler"),
    _o("-Werror", "--Werror", action="werror", metavar="KIND", split=True,
       choices=("all-warnings", "cross-execution-space-call", "reorder", "deprecated-declarations",
                "default-stream-launch", "missing-launch-bounds", "ext-lambda-captures-this"),
       help="warnings made errors: all-warnings (-Werror), reorder and deprecated-declarations go to the host "
            "compiler; the GPU-only kinds are accepted and ignored"),
    # Read before the other arguments (Parser.parse), so their place on the line does not matter.
    _o("-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", action="forward",
       help="pass unknown options to the host compiler instead of failing"),
    _o("-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker", action="forward",
       help="pass unknown options to the linker instead of failing"),
    _o("-forward-unknown-opts", "--forward-unknown-opts", action="forward", help="both of the above"),
    # ------------------------------------------------------------------ dependencies
    _o("-M", "--generate-dependencies", action="const", dest="deps", const="all", section="deps",
       help="write make rules for the inputs' headers (to -MF, -o or stdout), build nothing"),
    _o("-MM", "--generate-nonsystem-dependencies", action="const", dest="deps", const="nonsystem", section="deps",
       help="the same without system headers"),
    _o("-MD", "--generate-dependencies-with-compile", action="const", dest="deps_compile", const="all",
       section="deps", help="build, and write make rules to -MF, else the output with .d, else NAME.d"),
    _o("-MMD", "--generate-nonsystem-dependencies-with-compile", action="const", dest="deps_compile",
       const="nonsystem", section="deps", help="the same without system headers"),
    _o("-MF", "--dependency-output", action="store", dest="dep_file", metavar="FILE", section="deps",
       help="the file for the make rules"),
    _o("-MT", "--dependency-target-name", action="append", dest="dep_targets", metavar="TARGET", section="deps",
       help="the rule's target (default: the object file)"),
    _o("-MP", "--generate-dependency-targets", action="const", dest="dep_phony", section="deps",
       help="add an empty rule for each header"),
    # ------------------------------------------------------------------ driver
    _o("-v", "--verbose", action="const", dest="verbose", help="print the commands run (as #$ lines on stderr)"),
    _o("-dryrun", "--dryrun", action="const", dest="dryrun", help="print the commands, run nothing"),
    _o("-cuda", "--cuda", action="const", dest="emit", const="cuda",
       help="write the translated C++ of each .cu instead of building (-o FILE, else NAME.cu.cpp.ii, as nvcc "
            "names its output)"),
    _o("-keep", "--keep", action="const", dest="keep",
       help="keep the translated C++ of each .cu as NAME.cu.cpp next to the output"),
    _o("-save-temps", "--save-temps", action="const", dest="keep", help="same as --keep"),
    _o("-keep-dir", "--keep-dir", action="store", dest="keep_dir", metavar="DIR",
       help="where --keep puts the translated C++"),
    _o("-V", "--version", action="const", dest="show_version", help="print the version"),
    _o("-h", "--help", action="const", dest="show_help", help="this text"),
    # ------------------------------------------------------------------ cuda2cpu's own
    _o("--emit", action="store", dest="emit", metavar="KIND", choices=("openmp", "kernel-library"), section="own",
       help="--emit=openmp: write the translated C++ instead of building: to -o FILE (- for stdout), "
            "to stdout for one input without -o, or to NAME.omp.cpp for each of several inputs. "
            "--emit=kernel-library: build the kernels of the .cu inputs (no host code, no main) as a shared "
            "library for the program nvcc builds from them, run with `moccuda run --kernels LIB -- ./app` "
            "(-o LIB; default libNAME_kernels.so)"),
    _o("--toolkit-dir", action="const", dest="show_toolkit_dir", section="own",
       help="print a directory laid out like a CUDA toolkit (bin/nvcc, include/, lib64/ with libcudart, libcuda "
            "and libcublas), all cuda2cpu and MocCUDA, making it if needed: for CUDA_DIR=, CUDA_HOME=, PATH= "
            "and cmake -DCMAKE_CUDA_COMPILER=DIR/bin/nvcc"),
    _o("--explain", action="store", dest="explain", metavar="FMT", optional_value=True, const="text",
       choices=("text", "json"), section="own",
       help="report what the passes did to each kernel (barriers, kept values, hoisted code, "
            "schedule, prefetched streams) and the launch regions: text on stderr (default), "
            "--explain=json: one JSON object on stdout"),
    _o("--pipeline", action="store", dest="pipeline", metavar="P1,P2", section="own",
       help="run these passes instead of the default pipeline"),
    _o("--torch-host-checks", action="const", dest="torch_host", section="own",
       help="PyTorch extensions: rewrite host checks for CUDA tensors (x.is_cuda(), torch::kCUDA) to accept "
            "the CPU tensors that stand in for them; each rewrite is listed by --explain"),
    _o("--reassociate-reductions", action="const", dest="reassociate_reductions", section="own",
       help="opt-in: a block's tree reduction of floating-point values over a __shared__ array (for (s = "
            "blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) a[tid] += a[tid + s]; __syncthreads(); }) becomes one "
            "SIMD sum of the array in any order, as integer trees always do; the sums may round differently "
            "from CUDA's tree"),
    _o("--lowering", action="store", dest="lowering", metavar="MODE", choices=("auto", "split", "fallback"),
       section="own", help="barrier lowering: split (loops split at barriers), fallback (each thread a "
            "fiber that waits at barriers) or auto (default: split, and fallback with a warning for "
            "each kernel split cannot express)"),
    _o("--schedule", action="store", dest="schedule", metavar="MODE", choices=("auto", "blocks", "flat", "nested"),
       section="own",
       help="how OpenMP runs blocks and threads: auto (default: flat where a kernel has no shared memory and "
            "no barrier, else blocks), blocks (parallel blocks, SIMD threads), flat (one collapsed loop over "
            "blocks and threads), nested (parallel threads inside parallel blocks)"),
)

#: nvcc options that steer only GPU code generation or GPU tools: accepted, ignored.
#: (spellings, metavar or None, split)
_IGNORED: tuple[tuple[tuple[str, ...], str | None, tuple[str, ...] | None], ...] = (
    (("-arch", "--gpu-architecture"), "ARCH", None),
    (("-code", "--gpu-code"), "CODE", None),
    (("-gencode", "--generate-code"), "SPEC", None),
    (("-rdc", "--relocatable-device-code"), "BOOL", BOOL),
    (("-maxrregcount", "--maxrregcount"), "N", None),
    (("-Xptxas", "--ptxas-options"), "OPTS", None),
    (("-Xnvlink", "--nvlink-options"), "OPTS", None),
    (("-Xcudafe",), "OPTS", None),
    (("-default-stream", "--default-stream"), "MODE", ("legacy", "null", "per-thread")),
    (("-t", "--threads"), "N", None),
    (("-ftz", "--ftz"), "BOOL", BOOL),
    (("-prec-div", "--prec-div"), "BOOL", BOOL),
    (("-prec-sqrt", "--prec-sqrt"), "BOOL", BOOL),
    (("-fmad", "--fmad"), "BOOL", BOOL),
    (("-cudart", "--cudart"), "KIND", ("none", "shared", "static")),
    (("-cudadevrt", "--cudadevrt"), "KIND", ("none", "static")),
    (("-m", "--machine"), "BITS", ("64",)),
    (("-ldir", "--libdevice-directory"), "DIR", None),
    (("-target-dir", "--target-directory"), "DIR", None),
    (("-opt-info", "--optimization-info"), "KIND", None),
    (("-Ofc", "--Ofast-compile"), "LEVEL", None),
    (("-dopt", "--dopt"), "KIND", None),
    (("-split-compile", "--split-compile"), "N", None),
    (("-split-compile-extended", "--split-compile-extended"), "N", None),
    (("-fdevice-time-trace", "--fdevice-time-trace"), "FILE", None),
    (("-time", "--time"), "FILE", None),
    (("-e", "--entries"), "NAMES", None),
    (("-diag-error", "--diag-error"), "N", None),
    (("-diag-suppress", "--diag-suppress"), "N", None),
    (("-diag-warn", "--diag-warn"), "N", None),
    (("-static-global-template-stub", "--static-global-template-stub"), "BOOL", BOOL),
    (("-device-entity-has-hidden-visibility", "--device-entity-has-hidden-visibility"), "BOOL", BOOL),
    (("-brief-diag", "--brief-diagnostics"), "BOOL", BOOL),
    (("-jtd", "--jump-table-density"), "N", None),
    (("-device-stack-protector", "--device-stack-protector"), "BOOL", BOOL),
    (("-compress-mode", "--compress-mode"), "MODE", None),
    (("-hls", "--host-linker-script"), "MODE", None),
    (("-idp", "--input-drive-prefix"), "PREFIX", None),
    (("-ddp", "--dependency-drive-prefix"), "PREFIX", None),
    (("-dp", "--drive-prefix"), "PREFIX", None),
    (("-lineinfo", "--generate-line-info"), None, None),
    (("-use_fast_math", "--use_fast_math"), None, None),
    (("-expt-relaxed-constexpr", "--expt-relaxed-constexpr"), None, None),
    (("-expt-extended-lambda", "--expt-extended-lambda"), None, None),
    (("-extended-lambda", "--extended-lambda"), None, None),
    (("-res-usage", "--resource-usage"), None, None),
    (("-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets"), None, None),
    (("-Wdefault-stream-launch", "--Wdefault-stream-launch"), None, None),
    (("-Wmissing-launch-bounds", "--Wmissing-launch-bounds"), None, None),
    (("-Wext-lambda-captures-this", "--Wext-lambda-captures-this"), None, None),
    (("-m64", "--m64"), None, None),
    (("-allow-unsupported-compiler", "--allow-unsupported-compiler"), None, None),
    (("-noprof", "--dont-use-profile"), None, None),
    (("-objtemp", "--objdir-as-tempdir"), None, None),
    (("-use-local-env", "--use-local-env"), None, None),
    (("-dlto", "--dlink-time-opt"), None, None),
    (("-lto", "--lto"), None, None),
    (("-gen-opt-lto", "--gen-opt-lto"), None, None),
    (("-nohdinitlist", "--no-host-device-initializer-list"), None, None),
    (("-nohdmoveforward", "--no-host-device-move-forward"), None, None),
    (("-extra-device-vectorization", "--extra-device-vectorization"), None, None),
    (("-keep-device-functions", "--keep-device-functions"), None, None),
    (("-src-in-ptx", "--source-in-ptx"), None, None),
    (("-restrict", "--restrict"), None, None),
    (("-ewp", "--extensible-whole-program"), None, None),
    (("-no-compress", "--no-compress"), None, None),
    (("-astoolspatch", "--compile-as-tools-patch"), None, None),
    (("-err-no", "--display-error-number"), None, None),
    (("-no-err-no", "--no-display-error-number"), None, None),
    (("-aug-hls", "--augment-host-linker-script"), None, None),
    (("-reloc-ptx", "--relocatable-ptx"), None, None),
    (("-nodlink", "--no-device-link"), None, None),
    (("-fdevice-syntax-only", "--fdevice-syntax-only"), None, None),
    (("-jobserver", "--jobserver"), None, None),
    (("--no-align-double",), None, None),
)

OPTIONS = OPTIONS + tuple(
    Opt(names, "ignored", metavar=metavar, section="ignored", choices=choices,
        joined=(names[0] == "-t"), help="ignored")
    for names, metavar, choices in _IGNORED
)

#: nvcc options whose whole point is a GPU artefact or a GPU tool: refused, with the reason.
UNSUPPORTED: dict[str, str] = {
    **dict.fromkeys(("-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-optix-ir", "--optix-ir",
                     "-ltoir", "--ltoir"),
                    "it asks for GPU code; cuda2cpu makes CPU code (use --emit=openmp for the translated C++)"),
    **dict.fromkeys(("-E", "--preprocess"),
                    "preprocessed CUDA is not useful on a CPU (use --emit=openmp for the translated C++, "
                    "-M for dependencies)"),
    **dict.fromkeys(("-run", "--run", "-run-args", "--run-args"), "build with -o, then run the program"),
    **dict.fromkeys(("-arch-ls", "--list-gpu-arch", "-code-ls", "--list-gpu-code"), "there are no GPU targets"),
    **dict.fromkeys(("-clean", "--clean-targets"), "delete the outputs yourself"),
}

#: Libraries the CUDA runtime provided and MocCUDA now does: dropped from the link line (MocCUDA's
#: runtime is linked instead).  -lcublas is linked, from the toolkit directory (transpiler.toolkit).
CUDA_RUNTIME_LIBS = {"cudart", "cudart_static", "cudadevrt", "cuda",
                     "nvToolsExt"}  # NVTX 2's library: NVTX 3 (moccuda.build.HEADER_LIBRARIES) is header-only
#: CUDA's other libraries, which MocCUDA does not provide: -lNAME is refused, saying so (an installed
#: toolkit's would need a GPU).
UNSUPPORTED_CUDA_LIBS = {"curand": "cuRAND", "curand_static": "cuRAND", "cufft": "cuFFT", "cufft_static": "cuFFT",
                         "cusparse": "cuSPARSE", "cusolver": "cuSOLVER", "cublasLt": "cuBLASLt",
                         "nvrtc": "NVRTC", "nvjpeg": "nvJPEG", "nppc": "NPP", "cudnn": "cuDNN"}

BY_NAME: dict[str, Opt] = {name: opt for opt in OPTIONS for name in opt.names}
JOINED: dict[str, Opt] = {name: opt for opt in OPTIONS if opt.joined for name in opt.names
                          if len(name) == 2 and name.startswith("-")}

_STD = re.compile(r"(c|gnu)\+\+(03|98|11|14|17|1z|20|2a|23|2b|26|2c)")
_OPT_LEVEL = re.compile(r"[0-4sg]|fast")
NO_PASS = re.compile(r"--no-[a-z0-9][a-z0-9-]*")


@dataclass
class Input:
    path: str
    language: str  # cu | c++ | c | object


@dataclass
class Invocation:
    """Everything one command line asks for."""

    inputs: list[Input] = field(default_factory=list)
    output: str | None = None
    mode: str = "link"  # link | compile | lib | dlink
    include_dirs: list[str] = field(default_factory=list)
    system_include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    undefines: list[str] = field(default_factory=list)
    pre_includes: list[str] = field(default_factory=list)
    opt: str | None = None  # "-O2"; None: the default
    debug: bool = False
    std: str | None = None
    compiler_flags: list[str] = field(default_factory=list)  # host compiler, compile and link
    linker_flags: list[str] = field(default_factory=list)    # raw linker options (-Xlinker)
    link_args: list[str] = field(default_factory=list)       # forwarded unknown options for the link
    archive_flags: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)       # -lfoo / -Ldir, in order
    shared: bool = False
    ccbin: str | None = None
    arbin: str | None = None
    odir: str | None = None
    no_warnings: bool = False
    verbose: bool = False
    dryrun: bool = False
    keep: bool = False
    keep_dir: str | None = None
    deps: str | None = None          # -M: "all" | "nonsystem"; dependencies only
    deps_compile: str | None = None  # -MD: "all" | "nonsystem"; dependencies beside the build
    dep_file: str | None = None
    dep_targets: list[str] = field(default_factory=list)
    dep_phony: bool = False
    emit: str | None = None
    explain: str | None = None
    pipeline: str | None = None
    disabled_passes: list[str] = field(default_factory=list)
    torch_host: bool = False
    reassociate_reductions: bool = False
    lowering: str = "auto"
    schedule: str = "auto"
    show_help: bool = False
    show_version: bool = False
    show_toolkit_dir: bool = False
    ignored: list[str] = field(default_factory=list)  # the GPU-only options given, for -v


_SECTIONS = (
    ("build", "Options as nvcc's (building for the CPU: translate each .cu, compile with the host compiler\n"
              "and -fopenmp, link with the MocCUDA runtime)"),
    ("deps", "Dependencies (make rules from the host compiler's preprocessor, run on the sources)"),
    ("own", "cuda2cpu's own options"),
)


def _spelling(opt: Opt, name: str) -> str:
    if opt.metavar is None:
        return name
    if opt.optional_value:
        return f"{name}[={opt.metavar}]"
    if name.startswith("--") and opt.section == "own":
        return f"{name}={opt.metavar}"
    return f"{name} {opt.metavar}"


def _words(words) -> list[str]:
    return textwrap.wrap(" ".join(words), 98, initial_indent="  ", subsequent_indent="  ",
                         break_on_hyphens=False, break_long_words=False)


def help_text() -> str:
    """``cuda2cpu --help``, written from :data:`OPTIONS` so that it lists exactly what parses."""
    out = [
        "usage: cuda2cpu [options] FILE...",
        "       cuda2cpu serve [options]    (the HTTP service: cuda2cpu serve --help)",
        "",
        "Translate CUDA C++ to C++ with OpenMP and build it for the CPU, as nvcc builds it for a GPU.",
        "Inputs: .cu (translated), .cpp/.cc/.cxx/.C (C++), .c (compiled with $CC or gcc), .o/.a/.so (linked).",
        "An option with a value takes it as the next argument or after '=' (-o a.out, -o=a.out); the",
        "one-letter ones also joined (-Iinc, -O2, -lm); lists split at commas (-Xcompiler -Wall,-Wextra).",
    ]
    for section, title in _SECTIONS:
        out += ["", title + ":"]
        for opt in OPTIONS:
            if opt.section != section or opt.hidden:
                continue
            left = ", ".join(_spelling(opt, n) for n in opt.names)
            text = textwrap.wrap(opt.help, 100 - 32, break_on_hyphens=False) or [""]
            if len(left) > 28:
                out.append(f"  {left}")
                out += [" " * 32 + t for t in text]
            else:
                out.append(f"  {left:<28}  {text[0]}")
                out += [" " * 32 + t for t in text[1:]]
        if section == "own":
            out.append(f"  {'--no-PASS':<28}  drop an optional pass from the pipeline (for ablation), "
                       "e.g. --no-barrier-elim")
    ignored = ["/".join(opt.names) + ("=V" if opt.metavar else "") for opt in OPTIONS if opt.section == "ignored"]
    out += ["", "Accepted and ignored (they steer only GPU code; =V: takes a value):"] + _words(ignored)
    out += ["", "Refused with a reason (they ask for GPU artefacts or GPU tools):"] + _words(UNSUPPORTED)
    return "\n".join(out) + "\n"


def language_of(path: str, forced: str | None) -> str:
    """The language of an input: objects and libraries by suffix always, the rest by -x or suffix."""
    base = os.path.basename(path)
    ext = os.path.splitext(base)[1]
    if ext in (".o", ".a", ".so", ".obj", ".lo") or re.search(r"\.so(\.\d+)+$", base):
        return "object"
    if forced:
        return forced
    if ext == ".cu":
        return "cu"
    if ext in (".cpp", ".cc", ".cxx", ".C", ".c++", ".cp", ".CPP", ".ii"):
        return "c++"
    if ext in (".c", ".i"):
        return "c"
    raise UsageError(f"don't know what to do with '{path}' "
                     "(expected .cu, .cpp/.cc/.cxx/.C, .c, .o, .a or .so; or use -x cu|c++|c)")


def _unsupported(name: str) -> UsageError:
    return UsageError(f"nvcc option '{name}' is not supported by cuda2cpu: {UNSUPPORTED[name]}")


class Parser:
    def __init__(self) -> None:
        self.inv = Invocation()
        self.forced_language: str | None = None
        self.forward_compiler = False
        self.forward_linker = False
        self.options_files: list[str] = []

    # ------------------------------------------------------------------------------ tokens

    def parse(self, argv: list[str]) -> Invocation:
        args = list(argv)
        names = set(args)
        if names & {"-forward-unknown-opts", "--forward-unknown-opts"}:
            self.forward_compiler = self.forward_linker = True
        if names & {"-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler"}:
            self.forward_compiler = True
        if names & {"-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker"}:
            self.forward_linker = True
        i = 0
        while i < len(args):
            a = args[i]
            i += 1
            if not a.startswith("-") or a == "-":
                self._input(a)
                continue
            opt, value, took_next = self._match(a, args[i] if i < len(args) else None)
            if took_next:
                i += 1
            if opt is None:
                continue
            if opt.action == "optf":
                args[i:i] = self._options_file_words(value)
                continue
            self._apply(opt, a, value)
        return self.inv

    def _match(self, a: str, following: str | None) -> tuple[Opt | None, str | None, bool]:
        """(option, value, whether the value was the next argument) for the argument ``a``."""
        if a in UNSUPPORTED:
            raise _unsupported(a)
        opt = BY_NAME.get(a)
        if opt is not None:
            if opt.metavar is None or opt.optional_value:
                return opt, None, False
            if following is None:
                raise UsageError(f"option '{a}' needs a value ({opt.metavar})")
            return opt, following, True
        if "=" in a:
            name, value = a.split("=", 1)
            opt = BY_NAME.get(name)
            if opt is not None:
                if opt.metavar is None:
                    raise UsageError(f"option '{name}' takes no value")
                return opt, value, False
            if name in UNSUPPORTED:
                raise _unsupported(name)
        opt = JOINED.get(a[:2])
        if opt is not None and len(a) > 2:
            return opt, a[2:], False
        if NO_PASS.fullmatch(a):
            self.inv.disabled_passes.append(a[len("--no-"):])
            return None, None, False
        if self.forward_compiler or self.forward_linker:
            if self.forward_compiler:
                self.inv.compiler_flags.append(a)
            if self.forward_linker and not self.forward_compiler:
                self.inv.link_args.append(a)
            return None, None, False
        raise UsageError(f"unknown option '{a}' (see cuda2cpu --help; pass host compiler options "
                         "with -Xcompiler, or use -forward-unknown-to-host-compiler)")

    def _options_file_words(self, value: str) -> list[str]:
        words: list[str] = []
        for path in value.split(","):
            if path in self.options_files:
                raise UsageError(f"options file '{path}' includes itself")
            self.options_files.append(path)
            try:
                with open(path) as f:
                    words += shlex.split(f.read(), comments=True)
            except OSError as exc:
                raise UsageError(f"cannot read options file '{path}': {exc.strerror}") from None
            except ValueError as exc:
                raise UsageError(f"options file '{path}': {exc}") from None
        return words

    def _input(self, path: str) -> None:
        self.inv.inputs.append(Input(path, language_of(path, self.forced_language)))

    # ------------------------------------------------------------------------------ actions

    def _apply(self, opt: Opt, spelled: str, value: str | None) -> None:
        inv = self.inv
        values = [v for v in value.split(",") if v] if (value is not None and opt.split) else [value]
        if opt.split and value is not None and not values:
            raise UsageError(f"option '{spelled}' needs a value ({opt.metavar})")
        if opt.choices and value is not None:
            for v in values:
                if v not in opt.choices:
                    raise UsageError(f"'{v}' is not a value of '{opt.names[0]}' (one of: {', '.join(opt.choices)})")
        act = opt.action
        if act == "store":
            setattr(inv, opt.dest, opt.const if value is None else value)  # None: an optional value left out
        elif act == "const":
            setattr(inv, opt.dest, opt.const)
        elif act == "append":
            getattr(inv, opt.dest).extend(values)
        elif act == "host_flag":
            inv.compiler_flags.append(opt.const)
        elif act == "language":
            self.forced_language = None if value == "none" else value
        elif act == "std":
            if not _STD.fullmatch(value):
                raise UsageError(f"unknown language standard '{value}' (c++11, c++14, c++17, c++20, ...)")
            inv.std = value
        elif act == "opt":
            if not _OPT_LEVEL.fullmatch(value):
                raise UsageError(f"unknown optimization level '{value}' for -O (0-4, s, g or fast)")
            inv.opt = "-O" + value
        elif act == "library":
            inv.libraries += [f"-l{v}" for v in values]
        elif act == "library_dir":
            inv.libraries += [f"-L{v}" for v in values]
        elif act == "host_value":
            if not value.isdigit():
                raise UsageError(f"option '{opt.names[0]}' needs a number, not '{value}'")
            inv.compiler_flags.append(f"{opt.names[0]}={value}")
        elif act == "werror":
            for v in values:
                if v == "all-warnings":
                    inv.compiler_flags.append("-Werror")
                elif v in ("reorder", "deprecated-declarations"):
                    inv.compiler_flags.append(f"-Werror={v}")
        elif act == "forward":
            pass  # read up front, in parse()
        elif act == "ignored":
            name = spelled.split("=", 1)[0]
            if name not in opt.names:  # joined, as -t4
                name = name[:2]
            inv.ignored.append(name if value is None else f"{name} {value}")
        else:  # pragma: no cover - a table entry without a handler is a bug
            raise AssertionError(f"no handler for option action {act!r}")


def parse_args(argv: list[str]) -> Invocation:
    """Parse a cuda2cpu/nvcc command line; raise :class:`UsageError` on a mistake."""
    inv = Parser().parse(argv)
    _check(inv)
    return inv


def _check(inv: Invocation) -> None:
    """Combinations that cannot work, refused before anything runs."""
    if inv.show_help or inv.show_version or inv.show_toolkit_dir:
        return
    if not inv.inputs:
        raise UsageError("no input files (see cuda2cpu --help)")
    sources = [i for i in inv.inputs if i.language != "object"]
    if inv.emit == "kernel-library":
        if any(i.language != "cu" for i in inv.inputs):
            others = ", ".join(i.path for i in inv.inputs if i.language != "cu")
            raise UsageError(f"--emit=kernel-library builds .cu inputs only (not {others}; the nvcc-built program "
                             "has the host code)")
        if not inv.output and len(inv.inputs) > 1:
            raise UsageError("--emit=kernel-library with several inputs needs -o LIB")
        if inv.output == "-":
            raise UsageError("--emit=kernel-library writes a shared library: give -o LIB")
        return
    if inv.emit:
        spelled = "-cuda" if inv.emit == "cuda" else "--emit=openmp"
        if any(i.language != "cu" for i in inv.inputs):
            others = ", ".join(i.path for i in inv.inputs if i.language != "cu")
            raise UsageError(f"{spelled} translates .cu inputs only (not {others}; use -x cu for other names)")
        if inv.output and len(inv.inputs) > 1:
            default = "NAME.cu.cpp.ii" if inv.emit == "cuda" else "NAME.omp.cpp"
            raise UsageError(f"{spelled} with -o takes one input (without -o, each goes to {default})")
        if inv.emit == "cuda":
            return
        if inv.explain == "json" and (inv.output == "-" or (inv.output is None and len(inv.inputs) == 1)):
            raise UsageError("--explain=json and --emit=openmp would both write to stdout: give -o FILE")
        return
    if inv.deps:
        if not sources:
            raise UsageError("-M/-MM needs source inputs")
        if (inv.dep_file or inv.output) and len(sources) > 1:
            raise UsageError("-M/-MM with -MF or -o takes one input")
        return
    if inv.mode == "compile":
        if inv.output and len(inv.inputs) > 1:
            raise UsageError("-c with -o takes one input (without -o, each goes to NAME.o)")
        if not sources:
            raise UsageError("-c needs source inputs (.cu, .cpp, .c)")
    if inv.deps_compile and (inv.dep_file or (inv.output and inv.mode == "compile")) and len(sources) > 1:
        raise UsageError("-MD/-MMD with -MF or -o takes one input")


#: Device code built without a GPU target, or for every GPU (``-arch=native``, ``all``,
#: ``all-major``), sees MocCUDA's device.
DEFAULT_DEVICE_ARCH = MOCCUDA_DEVICE_ARCH

_TARGET = re.compile(r"(?:sm|compute|lto)_(\d+)[af]?$")


def device_arch(ignored: list[str]) -> int:
    """The ``__CUDA_ARCH__`` device code is compiled with, from the GPU targets given
    (``-arch sm_60``, ``-gencode arch=compute_70,code=sm_70``, ``-code``).  nvcc compiles device
    code once per architecture, and the runtime runs the newest image the device supports: for
    MocCUDA's device (7.0) the newest target up to 700, else (every target newer) the oldest."""
    archs = []
    for entry in ignored:
        name, _, value = entry.partition(" ")
        if name not in ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code"):
            continue
        for word in re.split(r"[,=\[\]\s]+", value):
            m = _TARGET.match(word)
            if m:
                archs.append(int(m.group(1)) * 10)
    if not archs:
        return DEFAULT_DEVICE_ARCH
    supported = [a for a in archs if a <= DEFAULT_DEVICE_ARCH]
    return max(supported) if supported else min(archs)
