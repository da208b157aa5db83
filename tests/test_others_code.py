"""Constructs met in CUDA written by others (HeCBench, cuda-samples, Rodinia; docs/CORPUS.md).

Each program in tests/programs/others_code/ is a minimal, self-checking reproducer of one class of
construct that stopped such code; it is translated, built with g++ and MocCUDA, and run.  What
cannot be translated faithfully is checked to be a located error that names the construct."""

from __future__ import annotations

import subprocess

import pytest

from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, run_built, run_cli, translate_build_run
from foundation.options import TranslateOptions

OTHERS = PROGRAMS / "others_code"


def _build(tmp_path, source: str):
    """``source`` written to t.cu and built by cuda2cpu: the file and the completed build."""
    cu = tmp_path / "t.cu"
    cu.write_text(source)
    return cu, run_cli(cu, "-o", tmp_path / "t")


def _passes(tmp_path, name: str, *args: str, lowering: str = "auto", threads: int = 2) -> None:
    _, run, _ = translate_build_run(OTHERS / name, tmp_path, TranslateOptions(lowering=lowering), args=args,
                                    threads=threads)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Macros", "function-like macro in a rewritten expression", "object-like macro naming a function",
        "macro around an intrinsic (__mul24)")
def test_macros_inside_rewritten_expressions(tmp_path):
    _passes(tmp_path, "macro_expressions.cu")


@covers("Macros", "grid-stride for loop spelled by a macro", "for (;;) spelled by a macro")
def test_for_loops_spelled_by_macros(tmp_path):
    _passes(tmp_path, "macro_grid_loop.cu")


@covers("Source files", "source and included header not in UTF-8 (Latin-1)")
def test_source_that_is_not_utf8_passes_through(tmp_path):
    _passes(tmp_path, "latin1_source.cu")


@covers("Kernels and memory", "launch with spaced brackets (k << < g, b >> > (args))")
@covers("Source files", "string literal followed directly by a macro (\"x=\"FMT)")
def test_what_nvcc_lexes_and_clang_does_not(tmp_path):
    _passes(tmp_path, "nvcc_lexing.cu")


@covers("Kernels and memory", "c ? __syncthreads() : __syncwarp(); (a barrier chosen by a conditional)")
def test_barrier_chosen_by_a_conditional_expression(tmp_path):
    _passes(tmp_path, "conditional_barrier.cu")


@covers("Kernels and memory", "local static_assert in device code", "local namespace alias in device code")
def test_local_static_assert_and_namespace_alias(tmp_path):
    _passes(tmp_path, "local_declarations.cu")


def test_a_failing_local_static_assert_still_fails_the_build(tmp_path):
    cu, built = _build(tmp_path, "template <int B> __global__ void k(int *a) {\n  static_assert(B % 32 == 0, \"whole warps\");\n"
                  "  __shared__ int s[B]; s[threadIdx.x] = 1; __syncthreads(); a[threadIdx.x] = s[0];\n}\n"
                  "int main() { int *d = nullptr; k<48><<<1, 48>>>(d); }\n")
    assert built.returncode != 0 and "whole warps" in built.stderr


@covers("Headers", "cuComplex.h (cuFloatComplex, cuDoubleComplex and their arithmetic)")
def test_cucomplex_header(tmp_path):
    _passes(tmp_path, "cucomplex.cu")


@covers("Headers", "mma.h (nvcuda::wmma): fragments of half, bf16, tf32, int8; m16n16k16, m32n8k16, m8n32k16, m16n16k8",
        "wmma::load_matrix_sync/store_matrix_sync of tiles the warp's lanes store (a warp sync either side)",
        note="every lane holds the whole tile (num_elements = rows x columns)")
@pytest.mark.parametrize("lowering", ["auto", "fallback"])
def test_warp_matrix_functions(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "wmma_gemm.cu", tmp_path, TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Kernels and memory", "local changed by a member call, a reference argument or an array-member store, "
        "used after a barrier")
def test_values_changed_by_calls_are_kept_across_barriers(tmp_path):
    _passes(tmp_path, "value_changed_by_call.cu")


def test_wmma_memory_operation_inside_an_expression_is_a_located_error(tmp_path):
    cu, built = _build(tmp_path, "#include <mma.h>\nusing namespace nvcuda;\n"
                       "__global__ void k(const half *a, int *n) {\n"
                       "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;\n"
                       "  n[threadIdx.x] = (wmma::load_matrix_sync(f, a, 16), f.num_elements);\n}\n"
                       "int main() { return 0; }\n")
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:5:" in built.stderr and "wmma::load_matrix_sync inside an expression" in built.stderr, built.stderr


@covers("Headers", "omp.h and OpenMP in a .cu's host code")
def test_openmp_in_host_code(tmp_path):
    _passes(tmp_path, "openmp_host.cu")


@covers("Kernels and memory", "compound literal (T2){x, y} in device code")
def test_compound_literals(tmp_path):
    _passes(tmp_path, "compound_literal.cu")


@covers("Kernels and memory", "#ifdef inside <<< >>> and inside a launch's arguments")
def test_preprocessor_conditionals_inside_a_launch(tmp_path):
    _passes(tmp_path, "directives_in_launch.cu")


@covers("Kernels and memory", "cudaLaunchKernel/cudaLaunchCooperativeKernel inside a macro's argument")
def test_launches_inside_a_macro_argument(tmp_path):
    _passes(tmp_path, "launch_in_macro_argument.cu")


UNTRANSLATABLE = """\
__device__ unsigned sm() { unsigned r; asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned unused_inline() { asm("brkpt;"); return 1; }
__device__ unsigned unused_plain() { asm("exit;"); return 2; }
__host__ __device__ int either(int v) { return v + 1; }
__global__ void uses_sm(unsigned *a) { a[threadIdx.x] = sm() + either(1); }
__global__ void counts(int *a) { static int calls = 0; a[0] = ++calls; }
int main() { return 0; }
"""


@covers("Inline PTX", "an instruction outside the translated subset, in a kernel or __device__ helper",
        status="not supported", note="located error at the instruction, naming it; every one of the file is reported")
def test_every_untranslatable_construct_is_reported_where_it_stands(tmp_path):
    cu = tmp_path / "bad.cu"
    cu.write_text(UNTRANSLATABLE)
    done = run_cli(cu, "-o", tmp_path / "bad")
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    # The helper a kernel calls, the helper g++ would emit anyway, and the kernel's static local;
    # not the inline helper nobody calls (never emitted, as under nvcc's host compiler).
    assert [e.split(": error: ")[0] for e in errors] == [f"{cu}:1:54", f"{cu}:3:43", f"{cu}:6:45"], done.stderr
    assert "the PTX instruction 'mov.u32' in inline assembly is not supported: the special register %nsmid" \
        in errors[0], errors[0]
    assert "the PTX instruction 'exit' in inline assembly is not supported" in errors[1], errors[1]
    assert "__popc" in done.stderr  # what to do instead


@covers("Inline PTX", "add, sub (.s/.u 32, .f32 with .ftz/.sat, .f64); mul.lo/.hi/.wide; mad.lo; fma.rn; div; rem",
        "abs, neg, min, max (integer, .f32 with .ftz: a NaN operand gives the other)", "copysign",
        "shl, shr (a count of the width or more shifts every bit out)", "bfe, bfi, prmt, lop3, popc, clz, brev, bfind",
        "and, or, not, cnot; selp; setp with a pair of results, ordered and unordered comparisons",
        "@p and @!p guards",
        "cvt: .rzi/.rni to integers (NaN 0, saturated), .sat and narrowing between integers, int to float, "
        "f32 to f16, f32 to f64",
        "mov: registers, immediates (0f bits), {a, b} packing and unpacking", "{ } scopes with .reg declarations",
        "operands: =r, +r, a tied \"0\", n, h, l, f, d, %[name]",
        "special registers %laneid, %tid, %ntid, %ctaid, %lanemask_lt")
@covers("Inline PTX", "ex2/lg2/rcp/rsqrt/sqrt/tanh .approx (f32)", "ex2.approx.f16x2, tanh.approx.f16",
        status="partial", note="approximate instructions give the correctly rounded value (as __expf does)")
def test_inline_ptx_instructions(tmp_path):
    _passes(tmp_path, "inline_ptx_instructions.cu")


@covers("Inline PTX", "asm in __device__ helpers (overloaded, templates with \"n\" operands, reading %laneid/%warpid)",
        "an operand of a template parameter's type (a float's bits, an integer's value)",
        "st.global through an \"l\" operand", "\"memory\" clobber (a compiler barrier)")
@covers("Device code", "h2exp2, h2tanh_approx, htanh_approx (cuda_fp16.h)")
@covers("Source files", "#if defined(__PTX__) / __NVPTX__ (nvcc defines neither)")
def test_inline_ptx_in_device_helpers(tmp_path):
    _passes(tmp_path, "inline_ptx_device_helpers.cu")


@covers("Inline PTX", "shfl.sync (.bfly/.down/.up/.idx, segment widths from c) in a reduction",
        "vote.sync.ballot, activemask, redux.sync, match.any.sync", note="warp collectives of the IR, as __shfl_xor_sync")
@covers("Inline PTX", "bar.sync 0 (as __syncthreads())")
@pytest.mark.parametrize("lowering", ["auto", "fallback"])
def test_inline_ptx_warp_collectives(tmp_path, lowering):
    _passes(tmp_path, "inline_ptx_warp_reduce.cu", lowering=lowering)


@covers("Inline PTX", "cp.async (.ca/.cg, 4/8/16 bytes, src-size zero fill, @p form) with commit_group/wait_group",
        note="the copy is made at once: waiting for its group waits for nothing")
@covers("Inline PTX", "ld/st .shared through cvta.to.shared and __cvta_generic_to_shared addresses",
        note="a 32-bit window address that maps back to the pointer (cuda2cpu_ptx.h)")
@covers("Inline PTX", "ld.acquire, st.release, ld/st.volatile vectors (.v2/.v4)",
        note=".volatile is relaxed at system scope, as PTX defines it")
@covers("Inline PTX", "atom.add/.cas, red.max")
@pytest.mark.parametrize("lowering", ["auto", "fallback"])
def test_inline_ptx_memory(tmp_path, lowering):
    _passes(tmp_path, "inline_ptx_memory.cu", lowering=lowering)


#: What stays a located error, by kind: a template using it, and what the message names.
PTX_NOT_TRANSLATED = {
    "branches and labels (bra)": ('asm("bra.uni DONE;");', "'bra.uni'"),
    "matrix instructions (mma, wmma, ldmatrix)": ('asm("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : '
                                                  '"=r"(a[0]) : "r"(0u));', "'ldmatrix.sync.aligned.m8n8.x1.shared.b16'"),
    "mbarrier and cp.async.bulk": ('asm("cp.async.bulk.shared::cluster.global [%0], [%1], 16;" :: "r"(0u), "l"(a));',
                                   "'cp.async.bulk.shared::cluster.global'"),
    "carry chains (add.cc, addc)": ('asm("add.cc.u32 %0, %0, 1;" : "+r"(a[0]));', "carry chains"),
    "directed rounding (.rz/.rm/.rp) of floating-point arithmetic": (
        'asm("add.rz.f32 %0, %0, 1.0;" : "+f"(f));', "the rounding .rz"),
    "shfl and vote without .sync": ('asm("shfl.bfly.b32 %0, %0, 1, 0x1f;" : "+r"(a[0]));', "without .sync"),
    "bar.sync with a thread count": ('asm("bar.sync 1, 64;");', "a thread count"),
    "special registers other than the thread's and block's indices, lane masks and clocks": (
        'asm("mov.u32 %0, %%smid;" : "=r"(a[0]));', "the special register %smid"),
}


@covers("Inline PTX", *PTX_NOT_TRANSLATED, status="not supported", note="located error naming the instruction")
@pytest.mark.parametrize("kind", sorted(PTX_NOT_TRANSLATED))
def test_ptx_outside_the_subset_is_a_located_error(tmp_path, kind):
    statement, named = PTX_NOT_TRANSLATED[kind]
    cu, built = _build(tmp_path, f"__global__ void k(unsigned *a) {{\n  float f = 0;\n  {statement}\n  a[1] = f;\n}}\n"
                                 "int main() { return 0; }\n")
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:3:" in built.stderr and "in inline assembly is not supported" in built.stderr \
        and named in built.stderr, built.stderr


def test_every_unsupported_instruction_of_a_function_is_reported(tmp_path):
    cu, built = _build(tmp_path, "__global__ void k(float *a) {\n"
                       "  asm(\"mbarrier.init.shared.b64 [%0], 1;\\n\\tadd.f32 %1, %1, 1.0;\\n\\tbra DONE;\" "
                       ":: \"r\"(0), \"f\"(a[0]));\n"
                       "  asm(\"cvt.rz.f32.f64 %0, %1;\" : \"=f\"(a[1]) : \"d\"(1.0));\n"
                       "  asm(\"add.f32 %0, %0, 1.0;\" : \"+f\"(a[2]));\n}\nint main() { return 0; }\n")
    errors = [line for line in built.stderr.splitlines() if ": error: " in line]
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert errors == [
        f"{cu}:2:8: error: the PTX instruction 'mbarrier.init.shared.b64' in inline assembly is not supported",
        f"{cu}:2:69: error: the PTX instruction 'bra' in inline assembly is not supported",
        f"{cu}:3:8: error: the PTX instruction 'cvt.rz.f32.f64' in inline assembly is not supported: the rounding "
        ".rz (round to nearest is translated)"], built.stderr


@covers("Kernels and memory", "<<< >>> launch through a function pointer (variable, typedef, using, member)")
def test_kernels_launched_through_function_pointers(tmp_path):
    _passes(tmp_path, "kernel_pointer_launch.cu")


@covers("Kernels and memory", "cudaLaunchKernel((void *)kernel, ...) of a variable holding a kernel (auto kernel = K<...>)")
def test_kernel_variable_launched_through_void_pointer(tmp_path):
    _passes(tmp_path, "kernel_variable_void_launch.cu")


@covers("Kernels and memory", "a synchronizing function template with its first template arguments written, the rest "
        "deduced (also from pointer arithmetic), and default arguments left out (reading threadIdx)")
@pytest.mark.parametrize("lowering", ["auto", "fallback"])
def test_synchronizing_calls_with_default_arguments(tmp_path, lowering):
    _passes(tmp_path, "synchronizing_call_defaults.cu", lowering=lowering)


@covers("Atomics", "__nv_atomic_fetch_add/_fetch_or/_fetch_max", "__nv_atomic_add (float)",
        "__nv_atomic_load_n/_store_n/_exchange_n/_compare_exchange_n", "__nv_atomic_thread_fence",
        "__NV_ATOMIC_* orders and __NV_THREAD_SCOPE_* scopes")
def test_scoped_atomics_with_memory_orders(tmp_path):
    _passes(tmp_path, "scoped_atomics.cu")


@covers("Kernels and memory", "struct/enum defined inside a kernel")
def test_types_defined_inside_a_kernel(tmp_path):
    _passes(tmp_path, "local_types.cu")


@covers("Device functions", "an overload kept as written beside a translated one (a local union in one, a device "
        "assert in the other)", note="the kept overload takes the set's thread-index parameters, unused")
def test_overload_kept_as_written_beside_a_translated_one(tmp_path):
    _passes(tmp_path, "overload_kept_beside_translated.cu")


@covers("Device functions", "explicit specializations of a translated __device__ function template (deduced or "
        "written template arguments, differing only in the return type)")
def test_translated_explicit_specializations_stay_specializations(tmp_path):
    _passes(tmp_path, "explicit_specialization_translated.cu")


@covers("Kernels and memory", "struct defined inside a kernel that uses the kernel's locals", status="not supported",
        note="located error (define the type outside the kernel)")
def test_local_type_using_a_local_is_a_located_error(tmp_path):
    cu = tmp_path / "t.cu"
    cu.write_text("__global__ void k(int *a) {\n  constexpr int n = 4;\n  struct S { int v[n]; };\n"
                  "  S s; s.v[0] = 1; a[threadIdx.x] = s.v[0];\n}\n")
    done = run_cli(cu, "-o", tmp_path / "t")
    assert done.returncode == 1 and f"{cu}:3:" in done.stderr and "define the type outside" in done.stderr, done.stderr


@covers("Math", "SIMD video intrinsics (__vadd4, __vmaxs4, __vsubss4, __vcmpgtu4, __vsadu4, __vavgs2, ...)")
def test_simd_video_intrinsics(tmp_path):
    _passes(tmp_path, "simd_video.cu")


@covers("Device functions", "synchronizing function template called with deduced template arguments")
def test_synchronizing_templates_with_deduced_arguments(tmp_path):
    _passes(tmp_path, "deduced_sync_template.cu")


@covers("Device functions", "synchronizing function template called with deduced template arguments inside a "
        "template (T &, const T *, T from the caller's own parameter types)",
        note="was a located error asking for the arguments (wedford)")
def test_synchronizing_templates_with_deduced_arguments_inside_templates(tmp_path):
    _passes(tmp_path, "deduced_in_kernel_template.cu")


@covers("Source files", "a dependent member template called without the template keyword "
        "(C<T>::f<N>(...), x.get<U>()), in the source and in a header",
        note="the keyword is inserted where clang reports it missing; the header is carried into the translation")
def test_dependent_member_templates_called_without_the_keyword(tmp_path):
    _passes(tmp_path, "member_template_keyword.cu")


def test_where_the_template_keyword_goes():
    from cuda_front.template_keyword import insertion_point

    # clang's diagnostic at instantiation names no template, and points at the qualified name.
    call = b"  cast<A<T>, B>::run<N>(d.ptr(), const_cast<V<S, N> *>(&s)->ptr());"
    assert call[insertion_point(call, 2, ""):].startswith(b"run<N>(")
    # A template argument that is itself qualified is a class (::- follows), not the member.
    nested = b"a::b<c::d<e>>::f<3>(x);"
    assert nested[insertion_point(nested, 0, ""):].startswith(b"f<3>")
    # Nothing to insert: a comparison, a keyword already there, an unqualified template.
    for text in (b"x < y;", b"A<T>::template f<3>(x);", b"f<3>(x);"):
        assert insertion_point(text, 0, "") is None


def test_a_template_keyword_that_does_not_help_reports_clangs_first_errors(tmp_path):
    cu = tmp_path / "t.cu"
    cu.write_text("template <typename T> struct S { static int f; };\n"
                  "template <typename T> __device__ int g(int n) { return S<T>::f<int>(n); }\n"
                  "__global__ void k(int *a) { a[0] = g<int>(1); }\nint main() {}\n")
    done = run_cli(cu, "-o", tmp_path / "t")
    assert done.returncode == 1 and "Traceback" not in done.stderr and f"{cu}:2:" in done.stderr, done.stderr
    assert "use 'template' keyword to treat 'f' as a dependent template name" in done.stderr, done.stderr


@covers("Macros", "sizeof(T) of a template parameter inside a macro's argument")
def test_sizeof_inside_a_macro_argument(tmp_path):
    _passes(tmp_path, "sizeof_in_macro_argument.cu")


@covers("Device functions", "__device__ function templates with a parameter pack or a template template parameter")
def test_calls_of_templates_with_packs_and_template_parameters(tmp_path):
    _passes(tmp_path, "template_argument_kinds.cu")


@covers("Headers", "cuda_profiler_api.h (cudaProfilerStart/Stop)")
@covers("Streams", "cudaStreamAttachMemAsync")
def test_profiler_range_and_stream_attached_memory(tmp_path):
    _passes(tmp_path, "profiler_and_attach.cu")


@covers("Math", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax")
def test_integer_min_max_by_type(tmp_path):
    _passes(tmp_path, "integer_min_max.cu")


@covers("Kernels and memory", "__shared__ (and static __shared__) declared in a member function (CUB's PrivateStorage)",
        note="static thread_local: one per declaration and instantiation for the blocks an OpenMP thread runs; "
             "not under --schedule=nested (a run-time error there)")
@covers("Kernels and memory", "C<T, N>(args): a construction of a class template with non-type arguments")
def test_shared_variables_declared_in_member_functions(tmp_path):
    _passes(tmp_path, "shared_in_member_function.cu")


@covers("Kernels and memory", "threadIdx/blockIdx/blockDim/gridDim read in a functor's operator() or a member function",
        note="moccuda::ambient(): set for each thread's code; such kernels' thread loops are not SIMD")
@covers("Kernels and memory", "a __device__ function reading threadIdx called from a member initializer list")
@covers("Kernels and memory", "a class-type local kept across __syncthreads() whose default constructor has effects",
        note="constructed again in each thread where it is declared")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_builtin_vectors_read_in_member_functions(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "builtins_in_member_function.cu", tmp_path,
                                    TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Kernels and memory", "int(x) on an operand of dependent type in a kernel template",
        "typename Alias::Member of a local typedef (CUB's __shared__ typename Load::TempStorage)")
def test_spellings_that_depend_on_template_parameters(tmp_path):
    _passes(tmp_path, "dependent_spellings.cu")


@covers("Kernels and memory", "parameter pack expansion in device code (f(args...), g(args)...)",
        "sizeof...(Pack) in device code")
def test_parameter_packs_in_a_variadic_kernel(tmp_path):
    _passes(tmp_path, "parameter_packs.cu")


@covers("Kernels and memory", "__syncthreads() in a member function (of a class template, a member template, "
        "static), called on an object, a pointer, a temporary or this",
        note="inlined into the kernel as non-member synchronizing functions are, this bound to the object; the "
             "translation is compiled with -fno-access-control (the inlined body names private members)")
@covers("Kernels and memory", "overloaded member functions chosen by a tag argument (CUB's Int2Type<false>())")
@covers("Kernels and memory", "a class-type local without default constructor or assignment kept across "
        "__syncthreads()", note="made in place in the thread's storage (moccuda::kept_init)")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_synchronizing_member_functions_are_inlined(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "synchronizing_member_functions.cu", tmp_path,
                                    TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Kernels and memory", "a member function template called with written template arguments on a __shared__ "
        "object of its class, declared in a static member function (Rodinia dwt2d's FDWT53::run)",
        "the class's private nested type, enumerator and own name in an inlined member function's body",
        "a local constexpr in a type or template argument (typedef C<width> R; R::run(...))")
def test_member_template_called_on_a_shared_object(tmp_path):
    _passes(tmp_path, "member_template_on_shared_object.cu")


@covers("Kernels and memory", "a pointer to a local kept across __syncthreads() (S s; S *p = &s; ... p->x)",
        note="the local is kept per thread too")
def test_a_local_pointed_to_across_a_barrier_is_kept(tmp_path):
    _passes(tmp_path, "pointer_to_local_across_barrier.cu")


@pytest.mark.parametrize("call", ["__syncthreads()", "__syncwarp()", "(void)__shfl_xor_sync(0xffffffffu, 1, 1)"])
def test_synchronization_in_a_member_function_called_on_a_temporary(tmp_path, call):
    cu = tmp_path / "member.cu"
    cu.write_text("#include <cstdio>\n"
                  "template <int N> struct Exchange {\n"
                  "  int *slots;\n"
                  f"  __device__ void swap(int v) {{ slots[threadIdx.x] = v; {call}; }}\n"
                  "};\n"
                  "__global__ void k(int *p) { Exchange<32>{p}.swap(threadIdx.x + 1); }\n"
                  "int main() { int *d, h[32]; cudaMalloc(&d, sizeof h); k<<<1, 32>>>(d);\n"
                  "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost); int ok = 1;\n"
                  "  for (int i = 0; i < 32; i++) ok &= h[i] == i + 1; printf(ok ? \"PASS\\n\" : \"FAIL\\n\"); }\n")
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


MEMBERS_NOT_INLINED = {
    "virtual": ("struct B {\n  int *s;\n  __device__ virtual void f(int v) { s[threadIdx.x] = v; __syncthreads(); }\n};\n"
                "__global__ void k(int *p) { B b; b.s = p; b.f(1); }\n",
                "member.cu:3:27: error: the virtual member function 'f', which synchronizes"),
    "constructor": ("struct B {\n  int *s;\n  __device__ B(int *p) : s(p) { s[threadIdx.x] = 1; __syncthreads(); }\n};\n"
                    "__global__ void k(int *p) { B b(p); }\n",
                    "member.cu:3:14: error: a constructor of 'B' that synchronizes"),
}


@covers("Kernels and memory", "__syncthreads() in a virtual member function or a constructor",
        status="not supported", note="located error naming the construct and what to do")
@pytest.mark.parametrize("kind", sorted(MEMBERS_NOT_INLINED))
def test_synchronizing_members_that_cannot_be_inlined_are_located_errors(tmp_path, kind):
    source, expected = MEMBERS_NOT_INLINED[kind]
    cu = tmp_path / "member.cu"
    cu.write_text(source + "int main() { return 0; }\n")
    built = run_cli(cu, "-o", tmp_path / "member")
    assert built.returncode == 1 and expected in built.stderr and "Traceback" not in built.stderr, built.stderr


@covers("Cooperative groups", "cg::coalesced_threads() and coalesced_group (size, num_threads, thread_rank, sync, "
        "shfl, any, all)", note="the group is the lanes' __activemask() where it is made")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_coalesced_groups(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "coalesced_group.cu", tmp_path, TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


HOST_OPENMP = """\
#include <cstdio>
#ifdef _OPENMP
#include <omp.h>
#define SCALE 3
#else
#define SCALE 2
#endif
__global__ void scaled(int *out) { out[threadIdx.x] = SCALE * threadIdx.x; }
int main() {
  int *d, h[32];
  cudaMalloc(&d, sizeof h);
  scaled<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; t++)
    if (h[t] != SCALE * t) { printf("FAIL: out[%d] = %d, expected %d\\n", t, h[t], SCALE * t); return 1; }
  printf("SCALE %d\\nPASS\\n", SCALE);
  return 0;
}
"""


@covers("Source files", "#ifdef _OPENMP in a .cu (defined only with -Xcompiler -fopenmp, as under nvcc)")
def test_openmp_macro_as_nvcc_host_compiler_defines_it(tmp_path):
    _, run, _ = translate_build_run(OTHERS / "openmp_macro.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.split() == ["cuda", "PASS"], run.stdout + run.stderr
    # Asked for, _OPENMP is seen by the kernels (the translator's parse) and the host code alike.
    cu = tmp_path / "host_openmp.cu"
    cu.write_text(HOST_OPENMP)
    for flags, scale in (((), "2"), (("-Xcompiler", "-fopenmp"), "3")):
        built = run_cli(*flags, cu, "-o", tmp_path / "host_openmp")
        assert built.returncode == 0, built.stderr
        done = subprocess.run([tmp_path / "host_openmp"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stdout.split() == ["SCALE", scale, "PASS"], done.stdout


@covers("Cooperative groups", "thread_group parameter (any group: thread_rank, size, num_threads, sync)",
        note="the group carries its tile size; sync is a barrier for the block, a tile sync otherwise")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_functions_taking_any_thread_group(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "thread_group_parameter.cu", tmp_path, TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Device functions", "return before the end of a __device__ function that synchronizes (inlined)",
        note="a flag: what follows runs only while the function has not returned")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_early_returns_in_inlined_synchronizing_functions(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "early_return_in_synchronizing_function.cu", tmp_path,
                                    TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Kernels and memory", "a static member function of a class template calling a __device__ function template "
        "that synchronizes (vLLM's Qk_dot<T, G>::dot(q, k) over warp shuffles)")
def test_member_function_calling_a_synchronizing_function(tmp_path):
    _passes(tmp_path, "member_calling_warp_reduction.cu")


@covers("Kernels and memory", "GNU statement expression naming values without side effects (PPCG's min/max macros)",
        note="each name stands for its initializer converted to its type")
def test_statement_expressions(tmp_path):
    _passes(tmp_path, "statement_expressions.cu")


@covers("Kernels and memory", "GNU statement expression with side effects or statements", status="not supported",
        note="located error: write it as statements")
def test_statement_expression_with_side_effects_is_a_located_error(tmp_path):
    cu = tmp_path / "stmt_expr.cu"
    cu.write_text("__global__ void k(int *o) {\n"
                  "  int i = threadIdx.x;\n"
                  "  o[i] = ({ int v = o[i]++; v * 2; });\n"
                  "}\n"
                  "int main() { return 0; }\n")
    built = run_cli(cu, "-o", tmp_path / "stmt_expr")
    assert built.returncode == 1 and "stmt_expr.cu:3:" in built.stderr, built.stderr
    assert "error: a GNU statement expression ({ ... }) in device code" in built.stderr, built.stderr


#: OpenMP thread counts a program of blocks waiting for each other runs at: one OS thread (every
#: block a fiber of it), the cores of CI, and more OS threads than cores.
WAITING_THREADS = (1, 2, MANY_THREADS)


def _passes_at_every_thread_count(cu, tmp_path, options=None, args=(), timeout=120):
    """Translate and build ``cu``, run it at each of WAITING_THREADS: each run prints PASS."""
    _, run, _ = translate_build_run(cu, tmp_path, options, args=args, threads=1, timeout=timeout)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    for threads in WAITING_THREADS[1:]:
        again = run_built(cu, tmp_path, threads, args=args, timeout=timeout)
        assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), \
            f"at {threads} threads: " + again.stdout + again.stderr


@covers("Kernels and memory", "blocks waiting for each other through memory (while (atomicAdd(&flag, 0) == 0); or a volatile flag)",
        note="the blocks start in order as fibers on OpenMP's threads, another when a thread's blocks all wait, "
             "when the device holds the grid at once, as a GPU runs a small grid; a spinning turn switches to "
             "the next block of the thread")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_blocks_waiting_for_each_other(tmp_path, lowering):
    # 8 blocks on 2 OpenMP threads: run one after the other, the first block waits forever.
    _passes_at_every_thread_count(OTHERS / "blocks_waiting_on_blocks.cu", tmp_path, TranslateOptions(lowering=lowering))


@covers("Kernels and memory", "a long chain of hand-offs between blocks waiting for each other (64 blocks of 100 tasks, "
        "host threads spinning beside the kernel), state kept across the wait in dynamic shared memory and read "
        "through member functions", note="each block's dynamic shared memory and ambient indices follow its fiber")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_long_relay_between_blocks(tmp_path, lowering):
    # With a thread per block, each of the 6,400 hand-offs waited for the OS to schedule the next
    # block's thread among the 4 spinning host threads (over 60 s at 2 threads; PERFORMANCE.md).
    # Fallback: every block's CUDA threads are fibers inside the block's fiber.
    _passes_at_every_thread_count(OTHERS / "long_relay_of_blocks.cu", tmp_path, TranslateOptions(lowering=lowering))


@covers("Kernels and memory", "a block's task loop driven through a pointer to a per-thread struct "
        "(for (t = first(&p); more(&p); t = next(&p)) around __syncthreads)",
        note="what is stored through the pointer decides whether the loop's condition is uniform")
def test_task_loop_through_a_pointer_to_a_local(tmp_path):
    # Taken as undecided before, the kernel took the fiber fallback, and its 600 blocks, running
    # at once because they wait for each other, ran out of memory mappings for their stacks.
    cu = OTHERS / "task_loop_through_pointer.cu"
    result, run, _ = translate_build_run(cu, tmp_path, timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    assert not result.warnings and {k["lowering"] for k in result.explain["kernels"]} == {"split"}
    for threads in (1, MANY_THREADS):
        again = run_built(cu, tmp_path, threads)
        assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr


@covers("Kernels and memory", "blocks waiting for each other under the fiber fallback, more blocks than the "
        "process could hold fiber stacks for", note="the blocks run in order, each OS thread reusing a finished "
                                                    "block's fiber, stack and thread fibers for the next, and more "
                                                    "start only while the live blocks wait")
def test_waiting_blocks_reuse_fiber_stacks(tmp_path):
    # 600 blocks of 128 threads, each waiting for the one before it: all at once, their fiber
    # stacks ran out of memory mappings ("cannot allocate a 65536-byte fiber stack").
    _passes_at_every_thread_count(OTHERS / "task_loop_through_pointer.cu", tmp_path,
                                  TranslateOptions(lowering="fallback"), args=("500",))


@covers("Kernels and memory", "a __shared__ variable declared in a member function, in a kernel whose blocks wait for "
        "each other", status="not supported",
        note="refused at run time when blocks interleave on an OS thread (it is one variable per OS thread)")
def test_member_shared_in_waiting_blocks_is_refused(tmp_path):
    # At one OpenMP thread every block is a fiber of it, live at once: they would share the
    # variable (block b + 1 overwrites block b's count), so the run stops with an error.
    _, run, _ = translate_build_run(OTHERS / "member_shared_in_waiting_blocks.cu", tmp_path, threads=1)
    assert run.returncode != 0 and "PASS" not in run.stdout and "FAIL" not in run.stdout, run.stdout + run.stderr
    assert "a __shared__ variable of a member function is used in a kernel whose blocks wait for each other" \
        in run.stderr, run.stderr


@covers("Warp shuffles", "warp shuffles every thread of the block reaches (a warp sum of a 16x16 block, "
        "a partial last warp)", note="exchanged without arrival stamps; those under a condition or after an early "
                                     "return keep them")
def test_warp_sums_every_lane_reaches(tmp_path):
    result, run, _ = translate_build_run(OTHERS / "warp_sums_every_lane.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    # HeCBench jacobi spent most of its time stamping and clearing arrivals no lane could miss.
    assert "shfl_down_13_stamp" not in result.source and "shfl_xor_30_stamp" not in result.source
    assert "shfl_down_21_stamp" in result.source and "shfl_down_38_stamp" in result.source


@covers("Kernels and memory", "c ? __syncthreads() : __syncwarp() with a constant condition (only the chosen arm)")
@covers("Kernels and memory", "pointer to an array (T (*p)[N]) kept across synchronizations")
def test_barrier_chosen_by_a_constant(tmp_path):
    _passes(tmp_path, "constant_barrier_choice.cu")


BLOCK_TILE_MEMORY = """\
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
__global__ void ranks(int *o) {
  __shared__ cg::block_tile_memory<128> scratch;
  auto cta = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<TILE>(cta);
  o[cta.thread_rank()] = tile.meta_group_rank() * 100 + tile.thread_rank();
}
int main() {
  int *d, h[128];
  cudaMalloc(&d, sizeof h);
  ranks<<<1, 128>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 128; t++)
    if (h[t] != t / TILE * 100 + t % TILE) { printf("FAIL: %d is %d\\n", t, h[t]); return 1; }
  printf("PASS\\n");
  return 0;
}
"""


@covers("Cooperative groups", "cg::block_tile_memory and this_thread_block(scratch) with tiles of a warp and of "
        "several warps (tiled_partition<64>)")
@pytest.mark.parametrize("tile", [32, 64])
def test_block_tile_memory(tmp_path, tile):
    cu = tmp_path / "tiles.cu"
    cu.write_text(f"#define TILE {tile}\n" + BLOCK_TILE_MEMORY)
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Warp shuffles", "a warp intrinsic in overloaded __device__ functions (each call inlines the overload C++ "
        "chooses: clang's, or in a template the only one taking that many arguments)",
        note="was a located error asking for a name per overload (segsort)")
@covers("Device functions", "a synchronizing __device__ function's reference parameter bound to a variable "
        "(inlined as that variable: the split lowering keeps no reference across the exchanges)")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_overloaded_functions_with_warp_intrinsics(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "overloaded_warp_functions.cu", tmp_path, TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


#: Overloads that take as many arguments, called on arguments of a kernel template's parameter
#: type: which one the call means is known only once the template is instantiated.
OVERLOADS_OF_ONE_ARITY = """\
__device__ void exch(int &k, int mask) { k += __shfl_xor_sync(0xffffffff, k, mask); }
__device__ void exch(float &k, int mask) { k -= __shfl_xor_sync(0xffffffff, k, mask); }
template <class K> __global__ void sort(K *a) { K k = a[threadIdx.x]; exch(k, 1); a[threadIdx.x] = k; }
int main() { float *d; cudaMalloc(&d, 128); sort<<<1, 32>>>(d); return 0; }
"""


@covers("Warp shuffles", "a warp intrinsic in overloaded __device__ functions that a kernel template's call cannot "
        "tell apart by the number of arguments", status="not supported", note="located error at the call")
def test_overloads_a_template_cannot_choose_between_are_a_located_error(tmp_path):
    cu = tmp_path / "overloaded.cu"
    cu.write_text(OVERLOADS_OF_ONE_ARITY)
    done = run_cli(cu, "-o", tmp_path / "overloaded")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{cu}:3:71: error: " in done.stderr and "give each overload its own name" in done.stderr, done.stderr


@covers("Device functions", "a synchronizing __device__ function with an array parameter (float x[3][2])",
        note="inlined with the parameter as the pointer C++ makes of it (was declared as an array copy)")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_array_parameters_of_inlined_functions(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "array_parameter_inlined.cu", tmp_path, TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("C++ in device code", "an array parameter with extents written through a traits class, in an inlined "
        "synchronizing function template", note="passed as the pointer C++ makes of it")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_array_parameters_with_dependent_extents(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "dependent_array_parameter_inlined.cu", tmp_path,
                                    TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Warp shuffles", "__shfl_xor_sync of x[c][i], x an array parameter with template-dependent bounds")
@pytest.mark.parametrize("lowering", ["split", "fallback"])
def test_shuffle_of_an_element_of_dependent_type(tmp_path, lowering):
    _, run, _ = translate_build_run(OTHERS / "shuffle_of_dependent_array_element.cu", tmp_path,
                                    TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("C++ in device code", "if constexpr in a kernel template (the branch not taken is discarded)")
@pytest.mark.parametrize("lowering", ["auto", "fallback"])
def test_if_constexpr_discards_the_branch_not_taken(tmp_path, lowering):
    result, run, _ = translate_build_run(OTHERS / "if_constexpr.cu", tmp_path, TranslateOptions(lowering=lowering))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    # A barrier under `if constexpr` on a traits constant keeps the split lowering.
    assert not any("fiber fallback" in str(w) for w in result.warnings), result.warnings


@covers("Streams", "cudaStreamSetAttribute/cudaStreamGetAttribute (access policy window)",
        "cudaCtxResetPersistingL2Cache")
def test_stream_access_policy_attributes(tmp_path):
    _passes(tmp_path, "stream_attributes.cu")


@covers("Device functions", "clock() in device code (cycles at the device's clock rate, as clock64()), in a kernel or a __device__ function")
def test_device_clock_counts_cycles_at_the_clock_rate(tmp_path):
    _passes(tmp_path, "device_clock.cu")


@covers("Streams", "cudaDeviceGetDefaultMemPool, cudaMemPoolSetAttribute/GetAttribute (release threshold) "
        "with cudaMallocAsync/cudaFreeAsync", "cudaMemPoolTrimTo")
def test_stream_ordered_memory_pool(tmp_path):
    _passes(tmp_path, "memory_pools.cu")


@covers("Host API", "cudaMemLocation; cudaMemPrefetchAsync and cudaMemAdvise with CUDA 13's location "
        "forms (and _v2) and CUDA 12's device ids, argument checks as CUDA's")
def test_managed_memory_prefetch_and_advice(tmp_path):
    _passes(tmp_path, "managed_prefetch.cu")


@covers("Kernels and memory", "T v(a, b); on a type that depends on template parameters (direct initialization)")
def test_direct_initialization_of_a_dependent_type(tmp_path):
    _passes(tmp_path, "dependent_direct_initialization.cu")


@covers("Kernels and memory", "forward declaration of a __device__ function that reads threadIdx")
def test_forward_declared_device_function_reading_the_thread_index(tmp_path):
    _passes(tmp_path, "device_function_prototype.cu")


@covers("Kernels and memory", "inline __device__ function translated, in a header included by two .cu files")
def test_inline_device_function_in_a_header_of_two_files(tmp_path):
    files = OTHERS / "inline_in_two_files"
    built = run_cli(files / "first.cu", files / "second.cu", "-o", tmp_path / "two")
    assert built.returncode == 0, built.stderr
    run = subprocess.run([tmp_path / "two"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Streams", "stream capture (cudaStreamBeginCapture/EndCapture/IsCapturing) of copies, fills, kernels, host "
        "functions and a second stream forked and joined by events", "cudaGraphInstantiate (CUDA 12 and CUDA 11 "
        "signatures), cudaGraphLaunch replaying the captured work", "graphs built node by node (memset, 1D memcpy, "
        "host, child graph and empty nodes; cudaGraphAddDependencies; a cycle refused)")
def test_graphs_capture_and_replay(tmp_path):
    _passes(tmp_path, "graph_capture.cu")


@covers("Kernels and memory", "cuda::barrier<cuda::thread_scope_block> expecting every thread of the block: init, "
        "arrive_and_wait, arrive/wait with a token (also in a __device__ function), as __syncthreads()")
def test_block_scoped_cuda_barrier(tmp_path):
    _passes(tmp_path, "block_barrier.cu")


BARRIER_KERNEL = """#include <cuda/barrier>
#include <cstdio>
__global__ void k(int *out)
{{
    __shared__ cuda::barrier<cuda::thread_scope_{scope}> bar;
    __shared__ int s[64];
    if (threadIdx.x == 0)
        init(&bar, {count});
    __syncthreads();
    s[threadIdx.x] = threadIdx.x;
    {wait};
    out[threadIdx.x] = s[63 - threadIdx.x];
}}
int main() {{ int *d; cudaMalloc(&d, 64 * sizeof(int)); k<<<1, 64>>>(d); cudaDeviceSynchronize(); printf("PASS\\n"); }}
"""


@covers("Kernels and memory", "cuda::barrier of another scope than the block, or a wait used as a value "
        "(located errors)", status="not supported")
@pytest.mark.parametrize("scope, wait, message", [
    ("device", "bar.arrive_and_wait()", "cuda::barrier<cuda::thread_scope_device>: cuda2cpu supports"),
    ("block", "(void)(bar.arrive_and_wait(), 0)", "cuda::barrier::arrive_and_wait() used as a value"),
])
def test_cuda_barrier_that_is_not_a_block_barrier_is_a_located_error(tmp_path, scope, wait, message):
    cu, built = _build(tmp_path, BARRIER_KERNEL.format(scope=scope, count="blockDim.x", wait=wait))
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:" in built.stderr and message in built.stderr, built.stderr


@covers("Kernels and memory", "cuda::barrier initialized to expect fewer threads than the block (stops at run time, "
        "naming the init)", status="not supported")
def test_cuda_barrier_expecting_part_of_the_block_stops_the_program(tmp_path):
    cu, built = _build(tmp_path, BARRIER_KERNEL.format(scope="block", count="blockDim.x / 2", wait="bar.arrive_and_wait()"))
    assert built.returncode == 0, built.stderr
    run = subprocess.run([tmp_path / "t"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "PASS" not in run.stdout
    assert f"{cu}:8:9: error: cuda::barrier initialized to expect 32 threads in blocks of 64" in run.stderr, run.stderr


@covers("Textures and surfaces", "cudaMalloc3DArray with cudaArrayLayered and cudaArrayCubemap (cudaMemcpy3D into "
        "them)", "tex2DLayered (point and linear, normalized coordinates)", "texCubemap (the face of the major axis)")
def test_layered_and_cubemap_textures(tmp_path):
    _passes(tmp_path, "layered_cubemap_textures.cu")


@covers("Streams", "graph kernel nodes built by hand (cudaGraphAddKernelNode, ...KernelNodeSetParams)",
        status="not supported", note="located error; capture the launch with cudaStreamBeginCapture instead")
def test_graph_kernel_nodes_built_by_hand_are_a_located_error(tmp_path):
    cu, built = _build(tmp_path, "#include <cuda_runtime.h>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
                  "int main() {\n  int *d = nullptr; cudaGraph_t g; cudaGraphCreate(&g, 0); cudaGraphNode_t n;\n"
                  "  void *args[] = {&d}; cudaKernelNodeParams p = {};\n  p.func = (void *)k; p.gridDim = dim3(1);"
                  " p.blockDim = dim3(32); p.kernelParams = args;\n  cudaGraphAddKernelNode(&n, g, nullptr, 0, &p);\n}\n")
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:7:3: error:" in built.stderr and "cudaStreamBeginCapture" in built.stderr, built.stderr


@covers("Source files", "#if __CUDA_ARCH__ / #ifdef __CUDA_ARCH__ inside kernels and __device__ functions (the device pass's view)")
def test_device_code_sees_cuda_arch(tmp_path):
    _passes(tmp_path, "cuda_arch_in_device_code.cu")


@covers("Source files", "#if __CUDA_ARCH__ at namespace scope and in headers selecting device functions, or a macro "
        "only device code tests (the device pass's view; host code keeps the host's)")
def test_device_code_selected_at_namespace_scope(tmp_path):
    _passes(tmp_path, "cuda_arch_at_namespace_scope.cu")


@covers("Device code", "__cvta_generic_to_shared and the other PTX state-space conversions",
        note="a 32-bit window address that maps back to the pointer (cuda2cpu_ptx.h)")
def test_async_copy_path_chosen_by_the_device_view(tmp_path):
    # An sm_80 path kept where the device view cannot drop it (host code uses the macro too):
    # the shared address and the cp.async that uses it are translated.
    cu, built = _build(tmp_path, "#include <cstdio>\n#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800\n#define ASYNC 1\n"
                       "#endif\n__device__ unsigned at(int *s) {\n#ifdef ASYNC\n  return __cvta_generic_to_shared(s);\n"
                       "#else\n  return 0;\n#endif\n}\n__global__ void k(const int *in, int *o) {\n"
                       "  __shared__ int s[64];\n  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: "
                       "\"r\"(at(&s[threadIdx.x])), \"l\"(in + threadIdx.x));\n  asm volatile(\"cp.async.wait_all;\");\n"
                       "  __syncthreads();\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n"
                       "int main() {\n  int *in, *o;\n  cudaMallocManaged(&in, 256);\n  cudaMallocManaged(&o, 256);\n"
                       "  for (int i = 0; i < 64; ++i) in[i] = i * i;\n  k<<<1, 64>>>(in, o);\n  cudaDeviceSynchronize();\n"
                       "  for (int i = 0; i < 64; ++i) if (o[i] != (63 - i) * (63 - i)) { printf(\"FAIL\\n\"); return 1; }\n"
                       "#ifdef ASYNC\n  printf(\"PASS\\n\");\n#endif\n  return 0;\n}\n")
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_cuda_arch_follows_the_gpu_target(tmp_path):
    # nvcc -arch=sm_60 compiles device code with __CUDA_ARCH__ 600: the kernel's older-device branch.
    exe = tmp_path / "arch60"
    built = run_cli("-arch=sm_60", str(OTHERS / "cuda_arch_in_device_code.cu"), "-o", str(exe))
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "out[0] = -2, expected 7" in run.stdout, run.stdout


@covers("Cooperative groups", "cg::reduce in a function template over a group of template-parameter type "
        "(thread_block_tile<N> deduced at the call), with plus, less, greater, bit_and, bit_or, bit_xor")
def test_reduce_over_a_group_of_template_parameter_type(tmp_path):
    _passes(tmp_path, "reduce_over_group_parameter.cu")


@covers("Cooperative groups", "thread_block_tile<N> of several warps (N up to 1024, also a template's parameter): "
        "cg::reduce, thread_rank, meta_group_rank, meta_group_size, sync")
def test_tiles_of_several_warps(tmp_path):
    _passes(tmp_path, "multi_warp_tiles.cu")


def test_lane_exchanges_on_a_tile_of_several_warps_are_located_errors(tmp_path):
    cu, built = _build(tmp_path, "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                       "__global__ void k(int *o) {\n  cg::thread_block_tile<64> t = cg::tiled_partition<64>(cg::this_thread_block());\n"
                       "  *o = t.shfl(1, 0);\n}\nint main() { int *o; cudaMalloc(&o, 4); k<<<1, 64>>>(o); }\n")
    assert built.returncode == 1 and f"{cu}:5:8: error" in built.stderr and "thread_block_tile<64>::shfl()" \
        in built.stderr and "Traceback" not in built.stderr, built.stderr


def test_a_tile_of_several_warps_that_only_some_tiles_reduce_over_takes_the_fibers(tmp_path):
    # Valid CUDA (each tile's threads all call it), but the split lowering reduces such tiles at
    # the block's barrier: the fibers take the kernel, and the result is each tile's.
    cu, built = _build(tmp_path, "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n#include <cstdio>\n"
                       "namespace cg = cooperative_groups;\n__global__ void k(int *o) {\n"
                       "  cg::thread_block_tile<64> t = cg::tiled_partition<64>(cg::this_thread_block());\n"
                       "  if (threadIdx.x < 64) o[threadIdx.x] = cg::reduce(t, (int)threadIdx.x, cg::plus<int>());\n}\n"
                       "int main() { int *o, h[64]; cudaMalloc(&o, sizeof h); k<<<1, 256>>>(o);\n"
                       "  cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost); int e = 0;\n"
                       "  for (int i = 0; i < 64; ++i) e += h[i] != 2016;\n  printf(e ? \"FAIL\\n\" : \"PASS\\n\"); return e; }\n")
    assert built.returncode == 0 and "using the fiber fallback lowering" in built.stderr, built.stderr
    assert "undefined behaviour" not in built.stderr, built.stderr
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_a_warp_operation_on_a_tile_of_several_warps_that_not_every_thread_reaches_stops_the_program(tmp_path):
    # The size is a template's parameter, and only some tiles call the reduction: the lowering
    # cannot use the block's barrier, and a warp's exchange cannot span several warps.
    cu, built = _build(tmp_path, "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                       "namespace cg = cooperative_groups;\n"
                       "template <unsigned N> __global__ void k(int *o) {\n"
                       "  cg::thread_block_tile<N> t = cg::tiled_partition<N>(cg::this_thread_block());\n"
                       "  if (t.meta_group_rank() == 0) o[threadIdx.x] = cg::reduce(t, 1, cg::plus<int>());\n}\n"
                       "int main() { int *o; cudaMalloc(&o, 1024); k<128><<<1, 256>>>(o); cudaDeviceSynchronize(); }\n")
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "a warp operation on a thread_block_tile<128>, a tile of several warps" in run.stderr


def test_reduce_over_a_whole_block_through_a_template_is_refused(tmp_path):
    cu, built = _build(tmp_path, "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                       "namespace cg = cooperative_groups;\n"
                       "template <class G> __device__ int sum(G &g, int v) { return cg::reduce(g, v, cg::plus<int>()); }\n"
                       "__global__ void k(int *o) { cg::thread_block b = cg::this_thread_block(); *o = sum(b, 1); }\n"
                       "int main() { int *o; cudaMalloc(&o, 4); k<<<1, 32>>>(o); }\n")
    assert built.returncode != 0 and "cg::reduce is supported over a thread_block_tile<N>" in built.stderr, built.stderr


@covers("Cooperative groups", "auto g = cg::this_thread_block() / cg::tiled_partition<N>(g) / cg::coalesced_threads() "
        "in a kernel template")
def test_groups_declared_auto_in_kernel_templates(tmp_path):
    _passes(tmp_path, "auto_groups.cu")


@covers("Cooperative groups", "lane exchanges (shfl, votes, match) on a thread_block_tile<N> with N a template "
        "parameter instantiated above 32", status="not supported", note="the build stops at a static_assert that says so")
def test_a_tile_of_several_warps_from_a_template_parameter_stops_the_build(tmp_path):
    cu, built = _build(tmp_path, "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                  "template <int N> __global__ void k(int *a) {\n  auto t = cg::tiled_partition<N>(cg::this_thread_block());\n"
                  "  a[threadIdx.x] = t.shfl_down(a[threadIdx.x], 1);\n}\n"
                  "int main() { int *a = nullptr; k<64><<<1, 64>>>(a); }\n")
    assert built.returncode != 0 and "a tile of several warps" in built.stderr, built.stderr


@covers("Device code", "lambda stored in a local variable and called (captures by reference, by value, [&], [=]; "
        "generic; returns in a switch; reads threadIdx)", "lambda holding a barrier or a tile shuffle (inlined)")
def test_lambdas_in_device_code(tmp_path):
    _passes(tmp_path, "device_lambdas.cu")


def test_lambdas_in_device_code_under_the_fallback_lowering(tmp_path):
    _, run, _ = translate_build_run(OTHERS / "device_lambdas.cu", tmp_path, TranslateOptions(lowering="fallback"))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("Kernels and memory", "default arguments of a kernel and of a translated __device__ function")
def test_default_arguments_of_kernels_and_device_functions(tmp_path):
    _passes(tmp_path, "kernel_default_arguments.cu")


@covers("Kernels and memory", "reference parameters of an inlined synchronizing function, live across its barriers "
        "(split lowering kept)")
def test_reference_parameters_across_barriers_keep_the_split_lowering(tmp_path):
    result, run, _ = translate_build_run(OTHERS / "reference_parameters_across_barriers.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    assert not any("fallback" in w.message for w in result.warnings), [w.message for w in result.warnings]


@covers("C++ in device code", "a constexpr local read after __syncthreads() in a constant expression")
def test_constexpr_local_stays_constant_across_barriers(tmp_path):
    _passes(tmp_path, "constexpr_across_barrier.cu")


@covers("Kernels", "a parameter named as its kernel")
def test_a_parameter_named_as_its_kernel(tmp_path):
    _passes(tmp_path, "parameter_named_as_kernel.cu")


@covers("Cooperative groups", "cg::memcpy_async(group, dst, src, bytes) of a thread block or a tile, cg::wait, "
        "cg::wait_prior (cooperative_groups/memcpy_async.h)",
        note="the group's first thread copies at once; the wait is the group's barrier")
@pytest.mark.parametrize("threads", [1, 3])
def test_group_memcpy_async_is_a_copy_and_a_barrier(tmp_path, threads):
    _passes(tmp_path, "group_memcpy_async.cu", threads=threads)


@covers("Cooperative groups", "cuda::pipeline<cuda::thread_scope_thread> (cuda::make_pipeline(), producer_acquire/"
        "commit, consumer_wait/release), cuda::memcpy_async with a pipeline or a block's cuda::barrier, "
        "cuda::aligned_size_t", "__pipeline_memcpy_async (with a zero fill), __pipeline_commit, "
        "__pipeline_wait_prior (cuda_pipeline.h)",
        note="a thread's own copies are made at once; the stages do nothing")
@pytest.mark.parametrize("threads", [1, 3])
def test_thread_scoped_pipelines_copy_at_once(tmp_path, threads):
    _passes(tmp_path, "thread_pipeline.cu", threads=threads)


GROUP_PIPELINE = """\
#include <cooperative_groups.h>
#include <cuda/pipeline>
__global__ void k(const float *in, float *out)
{
    __shared__ float s[64];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state);
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
int main() { return 0; }
"""


@covers("Cooperative groups", "cuda::pipeline shared by a group (cuda::make_pipeline(group, &shared_state))",
        status="not supported", note="located error naming cg::memcpy_async and cg::wait instead")
def test_group_pipeline_is_a_located_error(tmp_path):
    cu, built = _build(tmp_path, GROUP_PIPELINE)
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:7:" in built.stderr and "a cuda::pipeline shared by a group of threads is not supported" \
        in built.stderr and "cooperative_groups::memcpy_async" in built.stderr, built.stderr


@covers("C++ in device code", "placement new in device code (new (p) T(args), T{args}, T; built-in types; "
        "in __shared__ or local storage; in templates)",
        note="moccuda::construct_at<T>(p, args); new that allocates, of arrays or with other placement "
             "arguments is a located error")
@pytest.mark.parametrize("threads", [1, 3])
def test_placement_new_in_device_code(tmp_path, threads):
    _passes(tmp_path, "placement_new.cu", threads=threads)


@covers("C++ in device code", "device-side heap new/delete", status="not supported",
        note="located error: allocate with cudaMalloc on the host")
def test_heap_new_in_device_code_is_a_located_error(tmp_path):
    cu, built = _build(tmp_path, "__global__ void k(int **out) { out[threadIdx.x] = new int(3); }\n"
                                 "int main() { return 0; }\n")
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:1:51: error: new in device code other than placement new" in built.stderr, built.stderr


@covers("C++ in device code", "a declaration in a while or if condition (while (T v = e), if (T *p = e) ... else)",
        "C++17 if with an initializer statement that declares (if (T x = e; cond), if (T a = e; T b = f(a)))")
@pytest.mark.parametrize("threads", [1, 3])
def test_declarations_in_conditions(tmp_path, threads):
    _passes(tmp_path, "condition_declarations.cu", threads=threads)


@covers("C++ in device code", "C++17 if with an expression as its initializer statement (if (x = e; cond))",
        status="not supported", note="located error: write it before the if")
def test_if_with_an_expression_initializer_is_a_located_error(tmp_path):
    cu, built = _build(tmp_path, "__global__ void k(int *o) { int x; if (x = threadIdx.x; x > 2) o[0] = x; }\n"
                                 "int main() { return 0; }\n")
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert f"{cu}:1:36: error: an if whose initializer statement is an expression" in built.stderr, built.stderr
