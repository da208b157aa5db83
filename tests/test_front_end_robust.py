"""A front end that never crashes: deep nesting, exceptions in libclang callbacks, code that clang
accepts and g++ would not.  Each input either translates to code g++ accepts (and runs right) or
is a located error with exit status 1: never a signal, a traceback or an "internal error"."""

import re
import sys

import pytest

from coverage_table import covers
from support import run_cli, translate_build_run
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.M)


def _program(kernel_body: str, host: str = "") -> str:
    return f"""#include <cstdio>
__global__ void k(int *o) {{ {kernel_body} }}
int main() {{
    int *o;
    cudaMallocManaged(&o, 64 * sizeof(int));
    for (int i = 0; i < 64; ++i) o[i] = 1;
    {host}
    k<<<1, 64>>>(o);
    cudaDeviceSynchronize();
    printf("%d %d\\n", o[0], o[63]);
    return 0;
}}
"""


def _located_error(tmp_path, source: str, expected: str) -> str:
    cu = tmp_path / "deep.cu"
    cu.write_text(source)
    done = run_cli("--emit=openmp", cu, "-o", tmp_path / "deep.cpp")
    assert done.returncode == 1, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert LOCATED.search(done.stderr) and "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert expected in done.stderr
    return done.stderr


@covers("Front end robustness", "a 340-term sum (deeper than Python's default recursion limit)")
def test_a_long_sum_translates_and_runs(tmp_path):
    cu = tmp_path / "sum.cu"
    cu.write_text(_program("o[threadIdx.x] = " + " + ".join(["o[threadIdx.x]"] * 340) + ";"))
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.split() == ["340", "340"], run.stdout + run.stderr


@covers("Front end robustness", "900 nested ifs in a kernel")
def test_nine_hundred_nested_ifs_translate_and_run(tmp_path):
    cu = tmp_path / "ifs.cu"
    cu.write_text(_program("if (o[threadIdx.x] > 0) " * 900 + "o[threadIdx.x] = 5;"))
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.split() == ["5", "5"], run.stdout + run.stderr


@covers("Front end robustness", "nesting deeper than clang's parse takes (30,000-term sum, 10,000 nested ifs)",
        status="not supported", note="located error before libclang parses")
@pytest.mark.parametrize("body", [
    pytest.param("o[0] = " + "+".join(["0"] + ["1"] * 30000) + ";", id="sum-30000"),
    pytest.param("if (threadIdx.x) " * 10000 + "o[0] = 1;", id="if-10000"),
    pytest.param("o[0] = " + "(int)" * 30000 + "o[1];", id="cast-30000"),
])
def test_nesting_clang_cannot_parse_is_a_located_error(tmp_path, body):
    _located_error(tmp_path, _program(body), "code nested too deeply to parse")


@covers("Front end robustness", "device code nested deeper than 1000 levels", status="not supported",
        note="located error")
@pytest.mark.parametrize("body", [
    pytest.param("o[0] = " + "+".join(["0"] + ["1"] * 3000) + ";", id="sum-3000"),
    pytest.param("o[0] = " + "!" * 3000 + "o[1];", id="not-3000"),
])
def test_device_code_deeper_than_the_converter_takes_is_a_located_error(tmp_path, body):
    stderr = _located_error(tmp_path, _program(body), "code nested too deeply: more than 1000 levels")
    assert re.search(r"deep\.cu:2:\d+: error", stderr)


def test_deep_host_code_translates(tmp_path):
    """Host code is kept as written, but the front end's cursor walks go through all of it."""
    cu = tmp_path / "host.cu"
    cu.write_text(_program("o[threadIdx.x] += 1;", host="int x = " + " + ".join(["o[1]"] * 5000) + "; o[0] = x;"))
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.split() == ["5001", "2"], run.stdout + run.stderr


def test_an_exception_in_a_libclang_visitor_callback_propagates(tmp_path):
    """ctypes hands an exception raised in a callback to sys.unraisablehook, which prints and drops
    it: ``get_children`` returned a short list and translation went on.  Here the callback runs
    out of recursion depth; every attempt must either see all children or raise."""
    from cuda_front.parse import parse_file

    cu = tmp_path / "t.cu"
    cu.write_text("__global__ void k(int *o) { o[0] = 1; o[1] = 2; o[2] = 3; }\n")
    unit = parse_file(cu, TranslateOptions())
    kernel = next(c for c in unit.tu.cursor.get_children() if c.spelling == "k")
    body = list(kernel.get_children())[-1]
    assert len(list(body.get_children())) == 3

    def children_at_depth(frames_left: int):
        if frames_left > 0:
            return children_at_depth(frames_left - 1)
        return len(list(body.get_children()))

    limit = sys.getrecursionlimit()
    outcomes = set()
    try:
        for slack in range(1, 12):
            sys.setrecursionlimit(limit)
            depth = 0
            frame = sys._getframe()
            while frame is not None:
                depth, frame = depth + 1, frame.f_back
            sys.setrecursionlimit(depth + 40)
            try:
                outcomes.add(children_at_depth(40 - slack - 4))
            except Exception:  # RecursionError, or ctypes' ArgumentError wrapping it
                outcomes.add("raised")
    finally:
        sys.setrecursionlimit(limit)
    assert outcomes <= {3, "raised"}, outcomes
    assert "raised" in outcomes


def test_translation_errors_are_compile_errors_not_recursion_errors(tmp_path):
    cu = tmp_path / "t.cu"
    cu.write_text(_program("o[0] = " + "!" * 1500 + "o[1];"))
    with pytest.raises(CompileError) as info:
        translate_file(cu, TranslateOptions())
    assert "nested too deeply" in info.value.render(with_source=False)


@covers("Front end robustness", "threadIdx/blockIdx/blockDim/gridDim read in host code (a host function or lambda)",
        status="not supported", note="located error (there is no CUDA thread there)")
@covers("Front end robustness", "threadIdx/blockIdx/blockDim/gridDim spelled by a macro in a member function",
        status="not supported", note="located error (write it in the function)")
@pytest.mark.parametrize("source, line", [
    pytest.param("__global__ void k(int *o) { o[threadIdx.x] = 1; }\n"
                 "int main() { int x = blockIdx.x; return x; }\n", 2, id="host-function"),
    pytest.param("#define TID threadIdx.x\n__global__ void k(int *o) { o[TID] = 1; }\n"
                 "int main() { return TID; }\n", 3, id="host-through-a-macro"),
    pytest.param("#define LANE (threadIdx.x % 32)\nstruct S { __device__ int lane() const { return LANE; } };\n"
                 "__global__ void k(int *o) { S s; o[0] = s.lane(); }\nint main() { return 0; }\n", 2,
                 id="macro-in-device-member"),
    pytest.param("__global__ void k(int *o) { o[0] = 1; }\n"
                 "int main() { auto f = [] { return gridDim.x; }; return f(); }\n", 2, id="host-lambda"),
])
def test_builtin_index_variables_outside_device_code_are_a_located_error(tmp_path, source, line):
    expected = "spelled by a macro in a member function" if "struct" in source else \
        "in host code (outside a __global__ or __device__ function)"
    stderr = _located_error(tmp_path, source, expected)
    assert re.search(rf"deep\.cu:{line}:\d+: error", stderr), stderr


def test_builtin_index_variables_in_a_host_device_function_still_translate(tmp_path):
    cu = tmp_path / "hd.cu"
    cu.write_text(_program("o[threadIdx.x] = lane();").replace(
        "__global__", "__host__ __device__ int lane() { return threadIdx.x % 4; }\n__global__", 1))
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.split() == ["0", "3"], run.stdout + run.stderr


@covers("Front end robustness", "functional casts to multi-word and cv-qualified types (unsigned int(n), const float4(p))",
        "a local array of a class type (__half a[4]) and a default-constructed local")
def test_type_spellings_in_casts_and_declarations_translate_and_run(tmp_path):
    cu = tmp_path / "types.cu"
    cu.write_text("""#include <cstdio>
#include <cuda_fp16.h>
struct Pair { int a; __device__ Pair() : a(3) {} };
template <typename T>
__global__ void k(unsigned *o, float4 *q, int n) {
    typedef unsigned int u32;
    using CF = const float4;
    __half h[4];
    Pair pair;
    h[threadIdx.x % 4] = __float2half(2.0f);
    float4 v = CF(q[threadIdx.x]);
    o[threadIdx.x] = u32(n) + (unsigned)__half2float(h[threadIdx.x % 4]) + pair.a + (unsigned)v.y + T(1);
}
int main() {
    unsigned *o; float4 *q;
    cudaMallocManaged(&o, 64 * sizeof(unsigned));
    cudaMallocManaged(&q, 64 * sizeof(float4));
    for (int i = 0; i < 64; ++i) q[i] = make_float4(0, i, 0, 0);
    k<unsigned int><<<1, 64>>>(o, q, 10);
    cudaDeviceSynchronize();
    printf("%u %u\\n", o[0], o[63]);
    return 0;
}
""")
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.split() == ["16", "79"], run.stdout + run.stderr


@covers("Front end robustness", "an auto local of a template-dependent type kept across __syncthreads()",
        status="partial", note="the fiber fallback lowering, with a warning")
def test_an_auto_local_kept_across_a_barrier_in_a_template_kernel_runs(tmp_path):
    cu = tmp_path / "auto.cu"
    cu.write_text("""#include <cstdio>
template <typename T>
__global__ void k(T *o) {
    __shared__ T s[64];
    auto x = o[threadIdx.x] * 2;
    s[threadIdx.x] = x;
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x] + x;
}
int main() {
    float *o; cudaMallocManaged(&o, 64 * sizeof(float));
    for (int i = 0; i < 64; ++i) o[i] = i;
    k<<<1, 64>>>(o); cudaDeviceSynchronize();
    printf("%g %g\\n", o[0], o[63]);
    return 0;
}
""")
    result, run, _ = translate_build_run(cu, tmp_path)
    assert run.stdout.split() == ["126", "126"], run.stdout + run.stderr
    assert any("'auto' variable" in w.message for w in result.warnings)


@covers("Front end robustness", "duplicated declaration specifiers (const const, extern extern)", status="not supported",
        note="located error (clang only warns; g++ rejects)")
@pytest.mark.parametrize("source", [
    "__global__ void k(const const float *o, float *p) { p[threadIdx.x] = o[0]; }\nint main() { return 0; }\n",
    "extern extern int g;\n__global__ void k(int *o) { o[0] = 1; }\nint main() { return 0; }\n",
])
def test_duplicated_declaration_specifiers_are_a_located_error(tmp_path, source):
    _located_error(tmp_path, source, "duplicate '")


_OPENMP_HOST = """#include <cstdio>
__global__ void k(int *o) {{ o[threadIdx.x] += 1; }}
int main() {{
    int *o, sum = 0;
    cudaMallocManaged(&o, 64 * sizeof(int));
    for (int i = 0; i < 64; ++i) o[i] = i;
    k<<<1, 64>>>(o);
    cudaDeviceSynchronize();
{pragma}
    for (int i = 0; i < 64; ++i) sum += o[i];
    printf("%d\\n", sum);
    return 0;
}}
"""


@covers("Front end robustness", "a malformed '#pragma omp' in host code (the parse ignores OpenMP, g++ -fopenmp does not)",
        status="not supported", note="located error at the pragma")
@pytest.mark.parametrize("pragma, expected", [
    ("#pragma omp parallel for reduction+( : sum)", "expected '(' after 'reduction'"),
    ("#pragma omp parallel for reduction(+ : total)", "use of undeclared identifier 'total'"),
    ('_Pragma("omp parallel for reduction(+ : sum) collapse(2)")', "expected 2 for loops"),
])
def test_a_malformed_openmp_pragma_in_host_code_is_a_located_error(tmp_path, pragma, expected):
    """The front end parses with OpenMP off (clang would hide a region's body from the cursor API),
    so clang took these as unknown pragmas and the translation kept them for g++ -fopenmp, which
    rejected it.  A second parse with OpenMP on, made only where a '#pragma omp' is found, refuses
    them at the pragma's line."""
    stderr = _located_error(tmp_path, _OPENMP_HOST.format(pragma=pragma), expected)
    assert re.search(r"deep\.cu:(9|10):\d+: error: ", stderr), stderr


def test_openmp_pragmas_in_host_and_device_code_translate_and_run(tmp_path):
    """Well-formed pragmas pass the check: the host's reduction runs with OpenMP; in device code
    (kernels are written anew from their syntax tree) a pragma is ignored, as nvcc's device
    compiler ignores it."""
    cu = tmp_path / "omp.cu"
    cu.write_text(_OPENMP_HOST.format(pragma="#pragma omp parallel for reduction(+ : sum)").replace(
        "{ o[threadIdx.x] += 1; }",
        "{ int v = 0;\n#pragma omp simd reduction(+ : v)\n for (int i = 0; i < 3; ++i) v += 1;\n o[threadIdx.x] += v; }"))
    _, run, _ = translate_build_run(cu, tmp_path, threads=3)
    assert run.returncode == 0 and run.stdout.split() == [str(sum(range(64)) + 3 * 64)], run.stdout + run.stderr


def test_the_openmp_check_keeps_the_sources_openmp_macro(tmp_path):
    """The check's parse has OpenMP on, but ``_OPENMP`` as the translation has it: undefined unless
    the host flags ask for OpenMP (nvcc's host compiler defines it only then), so it takes the
    same branches of ``#ifdef _OPENMP`` as the first parse and as g++."""
    cu = tmp_path / "omp.cu"
    cu.write_text("#ifdef _OPENMP\n#error only -Xcompiler -fopenmp defines _OPENMP\n#endif\n"
                  + _OPENMP_HOST.format(pragma="#pragma omp parallel for reduction(+ : sum)"))
    _, run, _ = translate_build_run(cu, tmp_path, threads=3)
    assert run.returncode == 0 and run.stdout.split() == [str(sum(range(64)) + 64)], run.stdout + run.stderr
    with pytest.raises(CompileError, match="only -Xcompiler -fopenmp defines _OPENMP"):
        translate_file(cu, TranslateOptions(host_openmp=True))


@covers("Front end robustness", "a __device__ function that synchronizes and is nested too deeply to translate",
        status="not supported", note="located error (it cannot be kept as written: host code has no barriers)")
@pytest.mark.parametrize("sync", ["__syncthreads();", "v = __shfl_xor_sync(0xffffffffu, v, 1);",
                                  "cg::this_thread_block().sync();"])
def test_a_synchronizing_device_function_too_deep_to_translate_is_a_located_error(tmp_path, sync):
    """A __device__ function the converter cannot read (here 1,200 nested assignments) was kept as
    written, as host code, where a barrier, a warp collective or a cooperative group's sync does not
    exist: g++ rejected the translation (the fuzz found it with grid.sync() in
    cooperative/grid_sync.cu).  Its reason is now the error."""
    chain = "q = " * 1200
    source = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
              f"__device__ int helper(int v)\n{{\n    {{ int q; q = {chain}1; (void)q; }}\n    {sync}\n    return v;\n}}\n"
              "__global__ void k(int *out) { out[threadIdx.x] = helper(threadIdx.x); }\nint main() { return 0; }\n")
    stderr = _located_error(tmp_path, source, "code nested too deeply")
    assert re.search(r"deep\.cu:5:\d+: error: ", stderr), stderr[:300]
