"""The cuda2cpu command line: nvcc's flags, errors, exit codes, and nothing half-written."""

import dataclasses
import os
import re
import subprocess

import pytest

from support import EXAMPLES, PROGRAMS, run_cli as cuda2cpu
from transpiler.nvcc_flags import OPTIONS, UNSUPPORTED, Input, Invocation, UsageError, help_text, parse_args

#: A value each option accepts that changes the Invocation (by default its first choice that is not
#: the field's default).
SAMPLE_VALUES = {"std": "c++14", "opt": "2", "host_value": "8"}
SAMPLE_OVERRIDES = {"-x": "c++"}
#: Options whose effect is not a field of the Invocation: -link is the default mode; the forward
#: options change how unknown options are treated (test_forwarding_unknown_options).
NO_FIELD_EFFECT = {"-link", "-forward-unknown-to-host-compiler", "-forward-unknown-to-host-linker",
                   "-forward-unknown-opts"}


def _spellings():
    for opt in OPTIONS:
        for name in opt.names:
            yield pytest.param(opt, name, id=name)


def _sample(opt, tmp_path) -> str:
    if opt.action == "optf":
        words = tmp_path / "opts.txt"
        words.write_text("-DFROM_FILE=1  # a comment\n")
        return str(words)
    if opt.names[0] in SAMPLE_OVERRIDES:
        return SAMPLE_OVERRIDES[opt.names[0]]
    if opt.choices:
        default = getattr(Invocation(), opt.dest) if opt.dest else None
        return next(c for c in opt.choices if c != default)
    return SAMPLE_VALUES.get(opt.action, "v")


@pytest.mark.parametrize("opt,name", list(_spellings()))
def test_every_option_in_the_table_parses_and_takes_effect(opt, name, tmp_path):
    baseline = parse_args(["a.cu"])
    forms = [[name]]
    if opt.metavar is not None:
        value = _sample(opt, tmp_path)
        forms = [[name + "=" + value]] + ([] if opt.optional_value else [[name, value]])
        if opt.joined and len(name) == 2:
            forms.append([name + value])
    for form in forms:
        inv = parse_args([*form, "a.cu"])
        assert inv.inputs == [Input("a.cu", "c++" if opt.action == "language" else "cu")]
        if opt.names[0] not in NO_FIELD_EFFECT:
            assert inv != baseline, f"{form} parsed but changed nothing"
        if opt.section == "ignored":
            assert inv.ignored == [name if opt.metavar is None else f"{name} {value}"]


def _listed_options(text: str) -> set[str]:
    """Every option spelling --help names, from its option lines and its ignored/refused lists."""
    listed = set()
    section = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line
        elif section.startswith(("Accepted and ignored", "Refused")):
            for word in line.split():
                listed.update(word.removesuffix("=V").split("/"))
        elif re.match(r"  -", line):
            for spelling in line.strip().split("  ")[0].split(", "):
                listed.add(re.split(r"[ =\[]", spelling)[0])
    return listed


def test_help_lists_exactly_the_options_that_parse():
    listed = _listed_options(help_text())
    table = {name for opt in OPTIONS if not opt.hidden for name in opt.names}
    assert listed == table | set(UNSUPPORTED) | {"--no-PASS"}


def test_help_is_the_cli_help():
    done = cuda2cpu("--help")
    assert done.returncode == 0 and done.stdout == help_text()


def test_nvcc_flags_parse():
    inv = parse_args(["-O2", "-g", "-Iinc", "-D", "N=4", "-UFOO", "-std=c++14", "-Xcompiler", "-Wextra,-march=native",
                      "-Xlinker", "--as-needed", "-lm", "-L/opt", "-ccbin", "mpicxx", "-c", "a.cu", "-o", "a.o"])
    assert inv.opt == "-O2" and inv.debug and inv.include_dirs == ["inc"] and inv.defines == ["N=4"]
    assert inv.undefines == ["FOO"] and inv.std == "c++14"
    assert inv.compiler_flags == ["-Wextra", "-march=native"] and inv.linker_flags == ["--as-needed"]
    assert inv.libraries == ["-lm", "-L/opt"] and inv.ccbin == "mpicxx" and inv.mode == "compile"
    assert inv.inputs == [Input("a.cu", "cu")] and inv.output == "a.o"


def test_defaults_are_nvccs():
    inv = parse_args(["a.cu"])
    assert inv.mode == "link" and inv.opt is None and inv.lowering == "auto" and inv.explain is None
    assert inv == dataclasses.replace(Invocation(), inputs=[Input("a.cu", "cu")])
    assert parse_args(["-c", "--link", "a.cu"]).mode == "link"  # the last mode given wins, as in nvcc


def test_lists_split_at_commas_and_options_files_expand(tmp_path):
    words = tmp_path / "flags"
    words.write_text("-DB=2 -I 'dir with space'\n")
    inv = parse_args(["-DA=1,C", "-optf", str(words), "-x", "cu", "k.cpp", "-x", "none", "m.cpp"])
    assert inv.defines == ["A=1", "C", "B=2"] and inv.include_dirs == ["dir with space"]
    assert inv.inputs == [Input("k.cpp", "cu"), Input("m.cpp", "c++")]


def test_forwarding_unknown_options():
    with pytest.raises(UsageError, match="unknown option '-fno-fast'"):
        parse_args(["-fno-fast", "a.cu"])
    assert parse_args(["-fno-fast", "a.cu", "-forward-unknown-to-host-compiler"]).compiler_flags == ["-fno-fast"]
    inv = parse_args(["--forward-unknown-to-host-linker", "-rpath=/x", "a.cu"])
    assert inv.link_args == ["-rpath=/x"] and inv.compiler_flags == []


@pytest.mark.parametrize("argv,message", [
    (["--frobnicate", "a.cu"], "unknown option '--frobnicate'"),
    (["-ptx", "a.cu"], "not supported by cuda2cpu: it asks for GPU code"),
    (["-O7", "a.cu"], "unknown optimization level '7'"),
    (["--lowering=magic", "a.cu"], "'magic' is not a value of '--lowering'"),
    (["-g=1", "a.cu"], "option '-g' takes no value"),
    (["a.cu", "-o"], "option '-o' needs a value"),
    (["a.txt"], "don't know what to do with 'a.txt'"),
    ([], "no input files"),
    (["-c", "a.cu", "b.cu", "-o", "x.o"], "-c with -o takes one input"),
])
def test_command_line_mistakes_are_errors(argv, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_args(argv)


def test_usage_error_exit_1_without_traceback():
    done = cuda2cpu("-cubin", "a.cu")
    assert done.returncode == 1 and done.stderr.startswith("cuda2cpu: error: nvcc option '-cubin' is not supported")
    assert "Traceback" not in done.stderr


def test_unsupported_construct_exit_1_and_no_output(tmp_path):
    cu = tmp_path / "bad.cu"
    cu.write_text("__global__ void k(int *a) {\n  asm(\"nop\"); a[0] = 1;\n}\nint main() { return 0; }\n")
    done = cuda2cpu(cu, "-o", tmp_path / "bad")
    assert done.returncode == 1
    assert f"{cu}:2:8: error: the PTX instruction 'nop' in inline assembly is not supported" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.cu"]


def test_syntax_error_exit_1(tmp_path):
    cu = tmp_path / "syntax.cu"
    cu.write_text("int main() { return ; ; }}\n")
    done = cuda2cpu(cu, "-o", tmp_path / "x")
    assert done.returncode == 1 and "syntax.cu:1:" in done.stderr and "error" in done.stderr


def test_missing_input(tmp_path):
    done = cuda2cpu(tmp_path / "nope.cu", "-o", tmp_path / "x")
    assert done.returncode == 1 and "no such file" in done.stderr


def test_compile_then_link_with_cpp(tmp_path):
    (tmp_path / "kern.cu").write_text(
        "__global__ void fill(int *a, int v) { a[threadIdx.x] = v + threadIdx.x; }\n"
        "void launch_fill(int *a, int v) { fill<<<1, 8>>>(a, v); cudaDeviceSynchronize(); }\n")
    (tmp_path / "main.cpp").write_text(
        "#include <cstdio>\nvoid launch_fill(int *a, int v);\n"
        "int main() { int a[8]; launch_fill(a, 40); std::printf(a[7] == 47 ? \"PASS\\n\" : \"FAIL\\n\"); }\n")
    assert cuda2cpu("-c", "kern.cu", "-arch=sm_70", cwd=tmp_path).returncode == 0
    assert (tmp_path / "kern.o").exists()
    linked = cuda2cpu("kern.o", "main.cpp", "-o", "app", cwd=tmp_path)
    assert linked.returncode == 0, linked.stderr
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "PASS\n"


def test_emit_openmp_writes_compilable_source(tmp_path):
    out = tmp_path / "vecadd.cpp"
    done = cuda2cpu("--emit=openmp", EXAMPLES / "vecadd.cu", "-o", out)
    assert done.returncode == 0, done.stderr
    assert "#pragma omp parallel for" in out.read_text()


def test_emit_to_a_pipe_writes_into_it(tmp_path):
    # -o /dev/null or a named pipe: written in place, not replaced by a file renamed over it
    # (as root that rename turned /dev/null into a regular file).
    import os
    import stat
    import threading

    pipe = tmp_path / "out.fifo"
    os.mkfifo(pipe)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()), daemon=True)
    reader.start()
    done = cuda2cpu("--emit=openmp", EXAMPLES / "vecadd.cu", "-o", pipe)
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert received and "#pragma omp parallel for" in received[0]


def test_ccbin_selects_the_host_compiler(tmp_path):
    log = tmp_path / "called"
    wrapper = tmp_path / "mycxx"
    wrapper.write_text(f"#!/bin/sh\necho called >> {log}\nexec g++ \"$@\"\n")
    wrapper.chmod(0o755)
    done = cuda2cpu("-ccbin", wrapper, EXAMPLES / "vecadd.cu", "-o", tmp_path / "v")
    assert done.returncode == 0, done.stderr
    assert log.read_text().count("called") >= 2  # compile and link


def test_explain_json(tmp_path):
    import json
    done = cuda2cpu("--explain=json", "--emit=openmp", EXAMPLES / "reduction.cu", "-o", tmp_path / "r.cpp")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (kernel,) = report["kernels"]
    assert kernel["name"] == "block_sum" and kernel["lowering"] == "split"
    assert len(kernel["barriers"]) == 8 and all(b["action"] == "kept" for b in kernel["barriers"])
    lines = (EXAMPLES / "reduction.cu").read_text().splitlines()
    barrier_lines = [n for n, text in enumerate(lines, 1) if text.strip().startswith("__syncthreads();")]
    assert [b["line"] for b in kernel["barriers"]] == barrier_lines


def test_version_and_help():
    assert cuda2cpu("--version").stdout.startswith("cuda2cpu ")
    assert "--emit=openmp" in cuda2cpu("--help").stdout


def test_keep_leaves_the_translation_beside_the_output(tmp_path):
    done = cuda2cpu("--keep", EXAMPLES / "vecadd.cu", "-o", tmp_path / "v")
    assert done.returncode == 0, done.stderr
    kept = tmp_path / "vecadd.cu.cpp"
    assert kept.exists() and "void vecadd(moccuda::LaunchConfig launch" in kept.read_text()


def test_shared_library_build(tmp_path):
    (tmp_path / "lib.cu").write_text(
        "__global__ void inc(int *a) { a[threadIdx.x] += 1; }\n"
        'extern "C" int bump(int *a, int n) { inc<<<1, n>>>(a); return (int)cudaGetLastError(); }\n')
    done = cuda2cpu("-shared", "-Xcompiler", "-fPIC", "lib.cu", "-o", "libbump.so", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    import ctypes
    lib = ctypes.CDLL(str(tmp_path / "libbump.so"))
    values = (ctypes.c_int * 4)(1, 2, 3, 4)
    assert lib.bump(values, 4) == 0 and list(values) == [2, 3, 4, 5]
    assert lib.bump(values, 2048) == 9  # cudaErrorInvalidConfiguration, as CUDA reports it


def test_barrier_under_a_thread_dependent_condition_is_a_located_error(tmp_path):
    cu = tmp_path / "sync.cu"
    cu.write_text("__global__ void k(int *a) {\n    int t = threadIdx.x * 2;\n"
                  "    if (t < 16) {\n        __syncthreads();\n    }\n    a[t] = 1;\n}\n")
    done = cuda2cpu("--emit=openmp", cu, "-o", tmp_path / "out.cpp")
    assert done.returncode == 1 and f"{cu}:3:9: error:" in done.stderr, done.stderr
    assert "depends on threadIdx" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out.cpp").exists()


def test_thread_dependent_early_return_before_a_barrier_in_a_device_function_is_a_located_error(tmp_path):
    # An early return the threads take alike translates (tests/test_others_code.py runs it); one
    # that depends on threadIdx leaves the others waiting at the barrier: undefined in CUDA.
    cu = tmp_path / "sync.cu"
    cu.write_text("__device__ int helper(int *s, int v) {\n    if (threadIdx.x < v)\n        return 0;\n"
                  "    __syncthreads();\n    return s[0];\n}\n"
                  "__global__ void k(int *a) { a[threadIdx.x] = helper(a, 1); }\n")
    done = cuda2cpu("--emit=openmp", cu, "-o", tmp_path / "out.cpp")
    assert done.returncode == 1 and re.search(rf"{re.escape(str(cu))}:\d+:\d+: error:", done.stderr), done.stderr
    assert "depends on threadIdx" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out.cpp").exists()


KERNEL = ('#include "fill.h"\n'
          "__global__ void fill(int *a, int v) { a[threadIdx.x] = v + threadIdx.x; }\n"
          "void launch_fill(int *a, int v) { fill<<<1, 8>>>(a, v); cudaDeviceSynchronize(); }\n")
MAIN = ('#include <cstdio>\n#include "fill.h"\n'
        'int main() { int a[8]; launch_fill(a, 40); std::printf(a[7] == 47 ? "PASS\\n" : "FAIL\\n"); }\n')


@pytest.fixture
def fill_project(tmp_path):
    """A .cu file that includes a header of its own, and a C++ main that calls it."""
    (tmp_path / "fill.h").write_text("void launch_fill(int *a, int v);\n")
    (tmp_path / "kern.cu").write_text(KERNEL)
    (tmp_path / "main.cpp").write_text(MAIN)
    return tmp_path


def test_dependency_rules_name_the_headers(fill_project):
    tmp_path = fill_project
    nonsystem = cuda2cpu("-MM", "kern.cu", cwd=tmp_path)
    assert nonsystem.returncode == 0, nonsystem.stderr
    assert nonsystem.stdout.replace("\\\n", " ").split() == ["kern.o:", "kern.cu", "fill.h"]
    everything = cuda2cpu("-M", "kern.cu", "-MT", "out/kern.o", "-MP", "-o", "kern.dep", cwd=tmp_path)
    assert everything.returncode == 0 and everything.stdout == "", everything.stderr
    words = (tmp_path / "kern.dep").read_text().replace("\\\n", " ").split()
    assert words[:2] == ["out/kern.o:", "kern.cu"]
    assert "fill.h" in words and "fill.h:" in words  # -MP: an empty rule for the header
    assert any(w.endswith("moccuda/include/cuda_runtime.h") for w in words)  # -M: system headers too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fill.h", "kern.cu", "kern.dep", "main.cpp"]  # nothing built


def test_objects_library_and_device_link_build_a_program(fill_project):
    tmp_path = fill_project
    (tmp_path / "objs").mkdir()
    compiled = cuda2cpu("-dc", "kern.cu", "-odir", "objs", "-MD", "-arch=sm_80", cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    rule = (tmp_path / "kern.d").read_text().replace("\\\n", " ").split()
    assert rule[:2] == ["objs/kern.o:", "kern.cu"] and "fill.h" in rule
    for argv in (["-lib", "objs/kern.o", "-o", "libfill.a"], ["-dlink", "objs/kern.o", "-o", "dlink.o"],
                 ["main.cpp", "dlink.o", "-L.", "-lfill", "-lcudart", "-o", "app"]):
        done = cuda2cpu(*argv, cwd=tmp_path)
        assert done.returncode == 0, (argv, done.stderr)
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "PASS\n"


#: Every kind of output the driver writes, as a command line with OUT for the output's path.
OUTPUT_KINDS = {
    "program": ["kern.cu", "-o", "OUT"],
    "object": ["-c", "kern.cu", "-o", "OUT"],
    "library": ["-lib", "kern.cu", "-o", "OUT"],
    "openmp": ["--emit=openmp", "kern.cu", "-o", "OUT"],
    "kernel library": ["--emit=kernel-library", "kern.cu", "-o", "OUT"],
    "make rules": ["-M", "kern.cu", "-o", "OUT"],
    "kept translation": ["-c", "kern.cu", "--keep", "--keep-dir", "OUT", "-o", "kern.o"],
}


def _cuda2cpu_limited(*args, cwd, file_size_limit=None, stdout=subprocess.PIPE):
    """cuda2cpu with an optional RLIMIT_FSIZE (bytes); Python ignores SIGXFSZ, so a write past it
    fails with EFBIG ("File too large")."""
    import os
    import resource
    import sys

    from support import ROOT

    def limit():
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run([sys.executable, "-m", "transpiler.cli", *map(str, args)], cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, preexec_fn=limit, env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_output_in_a_missing_directory_is_an_error(kind, fill_project):
    # Issue 18: these were "internal error: FileNotFoundError", exit 2.
    argv = [a.replace("OUT", "missing/out") if a == "OUT" else a for a in OUTPUT_KINDS[kind]]
    done = cuda2cpu(*argv, cwd=fill_project)
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    assert re.search(r"^cuda2cpu: error: .*missing", done.stderr, re.M), done.stderr
    assert sorted(p.name for p in fill_project.iterdir()) == ["fill.h", "kern.cu", "main.cpp"]


def test_output_that_is_a_directory_is_an_error(fill_project):
    # It was moved into the directory, under the directory's own name, with exit status 0.
    (fill_project / "bin").mkdir()
    for kind in ("program", "openmp"):
        done = cuda2cpu(*[a.replace("OUT", "bin") for a in OUTPUT_KINDS[kind]], cwd=fill_project)
        assert done.returncode == 1 and "cuda2cpu: error: cannot write bin: it is a directory" in done.stderr, done.stderr
        assert list((fill_project / "bin").iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a device that is always full)")
def test_full_disk_is_an_error(fill_project):
    for kind in ("object", "openmp"):
        done = cuda2cpu(*[a.replace("OUT", "/dev/full") for a in OUTPUT_KINDS[kind]], cwd=fill_project)
        assert done.returncode == 1 and "cannot write /dev/full: No space left on device" in done.stderr, done.stderr
    for argv in (["--emit=openmp", "kern.cu"], ["-M", "kern.cu"], ["--version"]):
        with open("/dev/full", "w") as full:
            done = _cuda2cpu_limited(*argv, cwd=fill_project, stdout=full)
        assert done.returncode == 1, (argv, done.stderr)
        assert done.stderr == "cuda2cpu: error: cannot write standard output: No space left on device\n", done.stderr


@pytest.mark.parametrize("kind", ["program", "object", "openmp", "make rules"])
def test_file_too_large_is_an_error_and_leaves_the_old_output(kind, fill_project):
    argv = [a.replace("OUT", "out") for a in OUTPUT_KINDS[kind]]
    (fill_project / "out").write_text("old\n")
    done = _cuda2cpu_limited(*argv, cwd=fill_project, file_size_limit=200)
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    assert re.search(r"^cuda2cpu: error: .*File too large|^cuda2cpu: error: '\S+' failed", done.stderr, re.M), done.stderr
    assert (fill_project / "out").read_text() == "old\n"
    assert sorted(p.name for p in fill_project.iterdir()) == ["fill.h", "kern.cu", "main.cpp", "out"]


LAUNCH_BY_API = r"""
#include <cstdio>
__device__ float total(const float *a, int n) { float s = 0; for (int i = 0; i < n; ++i) s += a[i]; return s; }
__global__ void normalize(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] / total(in, n);
}
__global__ void scale(float *a, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= f;
}
int main() {
  const int n = 100;
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; ++i) in[i] = 1.0f;
  normalize<<<4, 32>>>(out, in, n);
  float f = 100.0f;
  int count = n;
  void *args[] = {&out, &f, &count};
  cudaLaunchKernel(scale, dim3(4), dim3(32), args, 0, 0);  // the arguments unpacked by index
  cudaDeviceSynchronize();
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != 0.01f * 100.0f;
  std::printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
"""


@pytest.mark.parametrize("std", ["c++11", "c++14", "c++17", "c++20"])
def test_every_language_standard_nvcc_accepts_builds(std, tmp_path):
    # MocCUDA's headers are compiled with the user's -std: a C++17 library type in them
    # (std::optional) failed every C++11 and C++14 build.
    (tmp_path / "norm.cu").write_text(LAUNCH_BY_API)
    licm = PROGRAMS / "openmp" / "licm_guarded.cu"  # computes a call once per block: moccuda::BlockOnce
    for name, source in (("norm", "norm.cu"), ("licm", str(licm))):
        built = cuda2cpu(f"-std={std}", "-Xcompiler", "-Wall", source, "-o", name, cwd=tmp_path)
        assert built.returncode == 0, built.stderr[-3000:]
        # and no warning of MocCUDA's (`if constexpr` is an extension before C++17)
        assert "moccuda/include" not in built.stderr, built.stderr[-3000:]
        run = subprocess.run([str(tmp_path / name)], capture_output=True, text=True)
        assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
