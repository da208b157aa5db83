"""Front-end tests: each supported construct converts to the expected IR, and each unsupported
one is a located error (file:line:col), never a traceback or silently wrong code."""

from pathlib import Path

import pytest

from foundation import ir
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file


def _translate(tmp_path: Path, source: str, **options):
    cu = tmp_path / "t.cu"
    cu.write_text(source)
    return translate_file(cu, TranslateOptions(**options))


def _kernel(result, name: str) -> ir.Kernel:
    return next(k for k in result.program.kernels if k.name == name)


def _error(tmp_path: Path, source: str) -> str:
    with pytest.raises(CompileError) as info:
        _translate(tmp_path, source)
    return info.value.render(with_source=False)


def test_builtins_become_builtin_nodes(tmp_path):
    r = _translate(tmp_path, "__global__ void k(int *a) { a[threadIdx.x] = blockIdx.y + blockDim.z + gridDim.x; }")
    builtins = {(n.var, n.dim) for n in _kernel(r, "k").walk() if isinstance(n, ir.Builtin)}
    assert builtins == {("threadIdx", "x"), ("blockIdx", "y"), ("blockDim", "z"), ("gridDim", "x")}


def test_barrier_and_shared(tmp_path):
    r = _translate(tmp_path, """
        __global__ void k(float *a) {
            __shared__ float s[32];
            extern __shared__ int dyn[];
            s[threadIdx.x] = a[threadIdx.x];
            __syncthreads();
            a[threadIdx.x] = s[31 - threadIdx.x] + dyn[0];
        }""", pipeline="parallel-loops,barrier-interchange,barrier-split")
    k = _kernel(r, "k")
    grid = k.body
    assert isinstance(grid, ir.GridLoop)
    assert [d.name for d in grid.dynamic_shared] == ["dyn"]
    shared = [s for s in grid.body.stmts if isinstance(s, ir.VarDecl)]
    assert [(d.name, d.type, d.storage) for d in shared] == [("s", "float[32]", "shared")]
    loops = [s for s in grid.body.stmts if isinstance(s, ir.ThreadLoop)]
    assert len(loops) == 2 and not ir.contains(k, ir.Barrier)


def test_same_name_in_two_scopes_has_two_symbols(tmp_path):
    r = _translate(tmp_path, """
        __global__ void k(int *a) {
            for (int i = 0; i < 2; ++i) a[i] = i;
            for (int i = 0; i < 3; ++i) a[i] += i;
        }""")
    decls = [n for n in _kernel(r, "k").walk() if isinstance(n, ir.VarDecl) and n.name == "i"]
    assert len(decls) == 2 and decls[0].sym != decls[1].sym


def test_macro_expanded_operators_convert(tmp_path):
    r = _translate(tmp_path, """
        #define IDX(r, c) ((r) * 16 + (c))
        __global__ void k(float *a) { a[IDX(threadIdx.y, threadIdx.x)] -= 1.5f; }""")
    assert "a[threadIdx.y * 16 + threadIdx.x] -= 1.5f;" in r.source


def test_for_header_parts_placed_correctly(tmp_path):
    r = _translate(tmp_path, """
        __global__ void k(int *a, int n) {
            int i = 0;
            for (; i < n;) { a[i] = i; i += 2; }
            for (int j = 0;; ++j) { if (j > n) break; }
        }""")
    fors = [n for n in _kernel(r, "k").walk() if isinstance(n, ir.For)]
    assert fors[0].init is None and fors[0].cond is not None and fors[0].step is None
    assert fors[1].init is not None and fors[1].cond is None and fors[1].step is not None


def test_template_kernel_stays_a_template(tmp_path):
    r = _translate(tmp_path, """
        template <typename T, int B>
        __global__ void k(T *a) { __shared__ T s[B]; s[threadIdx.x] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = s[0]; }
        void run(float *p) { k<float, 64><<<1, 64>>>(p); }""")
    assert "template <typename T, int B>\nMOCCUDA_KERNEL\nvoid k(moccuda::LaunchConfig launch, T *a)" in r.source
    assert "T s[B];" in r.source
    assert "k<float, 64>(moccuda::LaunchConfig(1, 64), p);" in r.source


def test_launch_forms(tmp_path):
    r = _translate(tmp_path, """
        __global__ void k() {}
        __global__ void k2(int x) {}
        void run(cudaStream_t st) { k<<<dim3(2, 2), 32, 0, st>>>(); k2<<<1, 1>>>(3); }""")
    assert "k(moccuda::LaunchConfig(dim3(2, 2), 32, 0, st));" in r.source
    assert "k2(moccuda::LaunchConfig(1, 1), 3);" in r.source


def test_device_function_gets_builtins_transitively(tmp_path):
    r = _translate(tmp_path, """
        __device__ int lane() { return threadIdx.x % 32; }
        __device__ int twice_lane() { return 2 * lane(); }
        __device__ int plain(int v) { return v + 1; }
        __global__ void k(int *a) { a[threadIdx.x] = twice_lane() + plain(1); }""")
    assert "int lane(const uint3 threadIdx)" in r.source
    assert "int twice_lane(const uint3 threadIdx)" in r.source
    assert "return 2 * lane(threadIdx);" in r.source
    assert "a[threadIdx.x] = twice_lane(threadIdx) + plain(1);" in r.source
    assert "__device__ int plain(int v) { return v + 1; }" in r.source  # kept verbatim


def test_host_code_is_kept_verbatim(tmp_path):
    host = "int main() {\n    // a comment the user wrote\n    int   spacing = 1 ;\n    return spacing - 1;\n}\n"
    r = _translate(tmp_path, "__global__ void k() {}\n" + host)
    assert host in r.source


def test_user_variable_named_like_a_loop_index(tmp_path):
    r = _translate(tmp_path, "__global__ void k(int *a) { int tx = threadIdx.x; a[tx] = tx; }")
    assert "for (unsigned tx_ = " in r.source and "for (unsigned tx = " not in r.source
    assert "int tx = threadIdx.x;" in r.source


@pytest.mark.parametrize("body, what", [
    ("a[0] = __shfl(a[1], 0);", "the pre-CUDA-9 shuffle __shfl() without a mask (use __shfl_sync) is not "
                                "supported"),
    ("a[0] = [](int v) { return v; }(1);", "a lambda in device code other than one stored in a local variable"),
    ("auto f = [](int v) { return v; }; auto g = f; a[0] = g(1);", "a use of the lambda 'f' other than a call"),
    ("int b[2] = {1, 2}; auto f = [=] { return b[0]; }; a[0] = f();", "captures the array 'b' by value"),
    ("int v = 1; auto f = [&v] { return v; }; { int v = 2; a[v] = f(); }", "captures 'v' by reference where another"),
    ("int v = 1; auto f = [w = v] { return w; }; a[0] = f();", "the capture 'w = v' of a lambda"),
    ("asm(\"nop\"); a[0] = 1;", "the PTX instruction 'nop' in inline assembly is not supported"),
    ("if (threadIdx.x) { __syncthreads(); }", "depends on threadIdx"),
])
def test_unsupported_constructs_are_located_errors(tmp_path, body, what):
    message = _error(tmp_path, "__global__ void k(int *a) {\n  " + body + "\n}\n")
    assert what in message
    assert message.startswith(str(tmp_path / "t.cu") + ":2:")


def test_syntax_error_reports_clang_message(tmp_path):
    message = _error(tmp_path, "__global__ void k(int *a) {\n  a[0] = ;\n}\n")
    assert ":2:" in message and "expected expression" in message


def test_binary_input_is_refused(tmp_path):
    cu = tmp_path / "junk.cu"
    cu.write_bytes(b"\x7fELF\x00\x01\x02garbage")
    with pytest.raises(CompileError) as info:
        translate_file(cu)
    assert "binary" in info.value.render()


def test_include_of_file_with_kernels_is_inlined(tmp_path):
    (tmp_path / "kern.cu").write_text("#pragma once\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\n")
    (tmp_path / "plain.h").write_text("#pragma once\ninline int helper() { return 1; }\n")
    r = _translate(tmp_path, '#include "plain.h"\n#include "kern.cu"\nvoid run(int *a) { k<<<1, 4>>>(a); }\n')
    assert '#include "plain.h"' in r.source
    assert '#include "kern.cu"' not in r.source.replace('// begin #include "kern.cu"', "")
    assert "void k(moccuda::LaunchConfig launch, int *a)" in r.source


def test_symbol_ids_of_distinct_declarations_are_distinct():
    """Symbol ids (and the keys host-code scans put declarations in sets by) were
    ``Cursor.hash``, clang's 32-bit hash of the declaration's address and kind: about 8 pairs of
    300,000 declarations share one (n^2 / 2^33 expected), so a big enough unit (PyTorch's headers
    hold hundreds of thousands) could make two variables one symbol to the analyses.  The ids are
    now the addresses themselves.  Distinct declarations are told apart here by clang's own
    cursor equality (a set of cursors)."""
    import clang.cindex as ci

    from cuda_front.convert import symbol_id
    from cuda_front.parse import clang_arguments

    fields = ", ".join(f"a{j}" for j in range(1000))
    source = "".join(f"struct S{i} {{ int {fields}; }};\n" for i in range(300))
    tu = ci.Index.create().parse("ids.cu", args=clang_arguments(TranslateOptions()), unsaved_files=[("ids.cu", source)])
    declarations = {c for top in tu.cursor.get_children() if top.location.file and top.location.file.name == "ids.cu"
                    for c in [top, *top.get_children()]}
    assert len(declarations) == 300 * 1001
    assert len({symbol_id(c) for c in declarations}) == len(declarations)
    again = {symbol_id(f) for top in tu.cursor.get_children() if top.spelling == "S7" for f in top.get_children()}
    assert again <= {symbol_id(c) for c in declarations} and len(again) == 1000


def test_top_level_declarations_are_located_as_libclang_locates_each(tmp_path):
    """``ParsedUnit.top_level`` locates every top-level declaration once for all the scans of the
    user's code (file names cached by libclang file handle): each entry must say what asking the
    cursor itself says, and ``user_top_level`` must be exactly those outside system headers."""
    from cuda_front.parse import parse_file

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "helper.h").write_text("__host__ __device__ inline int twice(int v) { return 2 * v; }\n"
                                             "struct Pair { int a, b; };\n")
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "vendor.h").write_text("__host__ __device__ inline int vendor_id() { return 7; }\n")
    cu = tmp_path / "t.cu"
    cu.write_text('#include <cstdio>\n#include <vector>\n#include "helper.h"\n#include <vendor.h>\n'
                  "__global__ void k(int *o) { o[0] = twice(vendor_id()); }\n"
                  "int main() { std::vector<int> v(1); printf(\"%d\\n\", v[0]); }\n")
    unit = parse_file(cu, TranslateOptions(include_dirs=(str(tmp_path / "inc"),),
                                           system_include_dirs=(str(tmp_path / "sys"),)))
    cursors = list(unit.tu.cursor.get_children())
    assert [d.cursor for d in unit.top_level] == cursors
    for decl, cursor in zip(unit.top_level, cursors):
        file = cursor.location.file
        assert decl.file == (file.name if file is not None else None)
        assert decl.system == (file is not None and cursor.location.is_in_system_header)
    user = unit.user_top_level()
    assert {c.location.file.name for c in user} == {str(cu), str(tmp_path / "inc" / "helper.h")}
    assert {"twice", "Pair", "k", "main"} <= {c.spelling for c in user}
    assert "vendor_id" not in {c.spelling for c in user}
