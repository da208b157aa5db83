"""Programs of tests/programs/scope: constructs whose scope the translation must keep exactly
(where a variable lives, which function a launch runs, where a macro is in effect), each a
self-checking program run at one OpenMP thread and at several (blocks then run concurrently)."""

from __future__ import annotations

import pytest

from barrier.liveness import per_thread_storage_type
from coverage_table import covers
from support import PROGRAMS, translate_build_run
from transpiler.cli import main as cuda2cpu_main
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

SCOPE = PROGRAMS / "scope"


def assert_passes(name: str, tmp_path, threads: int, lowering: str = "auto") -> None:
    options = TranslateOptions(lowering=lowering)
    _, run, _ = translate_build_run(SCOPE / f"{name}.cu", tmp_path, options, threads=threads, timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


@covers("C++ in device code", "explicit specialization of a kernel template (launched by its arguments or deduced)")
@pytest.mark.parametrize("threads", [1, 3])
def test_explicit_specialization_of_a_kernel_template_is_what_its_launch_runs(threads, tmp_path):
    assert_passes("kernel_specialization", tmp_path, threads)


def test_kernel_library_names_an_explicit_specialization(tmp_path, capsys):
    """Its entry point takes the specialization by name (``&::k<3>``), not an overload."""
    out = tmp_path / "lib.so"
    assert cuda2cpu_main(["--emit=kernel-library", str(SCOPE / "kernel_specialization.cu"), "-o", str(out)]) == 0, \
        capsys.readouterr().err
    assert out.exists()
    source = translate_file(SCOPE / "kernel_specialization.cu", kernel_library=True).source
    assert "&::scaled<3>)" in source and "&::fill<float>)" in source


@covers("Preprocessor", "#define / #undef inside a kernel or __device__ function body (in effect for the host code after it)")
def test_macros_defined_in_kernel_bodies_hold_after_them(tmp_path):
    assert_passes("kernel_macros", tmp_path, 2)


@covers("Kernels and memory", "large per-thread array live across __syncthreads (32 KiB x 256 threads)",
        note="kept values over 64 bytes per thread live in a buffer of the OpenMP thread, reused by later blocks")
@pytest.mark.parametrize("threads", [1, 3])
def test_large_per_thread_array_across_a_barrier_is_not_on_the_stack(threads, tmp_path):
    assert_passes("large_kept_array", tmp_path, threads)


def test_small_kept_values_stay_plain_arrays():
    """Scalars, pointers, vectors and arrays up to 64 bytes keep a plain array (gcc vectorizes
    through it); larger or unknown sizes go to moccuda::PerThread, which decides by sizeof."""
    assert per_thread_storage_type("const float", 1024) == "float[1024]"
    assert per_thread_storage_type("double[8]", 1024) == "double[1024][8]"
    assert per_thread_storage_type("float4", 1024) == "float4[1024]"
    assert per_thread_storage_type("double[9]", 1024) == "moccuda::PerThread<double[9], 1024>"
    assert per_thread_storage_type("T", 1024) == "moccuda::PerThread<T, 1024>"


@covers("Kernels and memory", "__shared__ variable at namespace scope (also static, and extern __shared__ arrays)",
        "namespace-scope __shared__ variable used by a __device__ function",
        note="one copy per block in every kernel that uses it; __device__ functions that use one are inlined")
@pytest.mark.parametrize("threads", [1, 4])
def test_namespace_scope_shared_variables_are_one_per_block(threads, tmp_path):
    assert_passes("namespace_shared", tmp_path, threads)


@pytest.mark.parametrize("program", ["namespace_shared", "device_shared", "large_kept_array"])
def test_scope_programs_under_the_fiber_fallback(program, tmp_path):
    """The fallback (every kernel on fibers) keeps the same per-block variables."""
    assert_passes(program, tmp_path, 3, lowering="fallback")


@covers("Kernels and memory", "__shared__ / static __shared__ declared in a __device__ function (block-reduce helper)",
        note="one variable per block and declaration, shared by every call in the block; the function is inlined")
@pytest.mark.parametrize("threads", [1, 3])
def test_shared_variables_of_device_functions_are_one_per_block(threads, tmp_path):
    assert_passes("device_shared", tmp_path, threads)


@covers("Kernels and memory", "namespace-scope __shared__ variable used in a member function or host code",
        status="not supported", note="located error")
def test_namespace_scope_shared_variable_outside_device_functions_is_a_located_error(tmp_path):
    cu = tmp_path / "member.cu"
    cu.write_text("__shared__ float buf[32];\n"
                  "struct Acc { __device__ void put(float v) { buf[threadIdx.x] = v; } };\n"
                  "__global__ void k(float *p) { Acc a; a.put(p[0]); __syncthreads(); p[threadIdx.x] = buf[0]; }\n")
    with pytest.raises(CompileError) as raised:
        translate_file(cu)
    assert f"{cu}:2:45: error: a __shared__ variable at namespace scope used outside kernels" in str(raised.value)


def test_namespace_scope_shared_variable_shadowed_in_the_kernel_gets_a_fresh_name(tmp_path):
    """The kernel's own ``buf`` keeps its name; the per-block copy of ``n::buf`` takes another."""
    cu = tmp_path / "shadow.cu"
    cu.write_text("#include <cstdio>\n"
                  "namespace n { __shared__ float buf[32]; }\n"
                  "__global__ void k(float *p) {\n"
                  "    n::buf[threadIdx.x] = threadIdx.x; __syncthreads();\n"
                  "    { float buf = n::buf[31 - threadIdx.x]; p[threadIdx.x] = buf; }\n"
                  "}\n"
                  "int main() { float *d, h[32]; cudaMalloc(&d, sizeof h); k<<<2, 32>>>(d);\n"
                  "    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                  "    printf(h[0] == 31 && h[31] == 0 ? \"PASS\\n\" : \"FAIL\\n\"); return 0; }\n")
    _, run, _ = translate_build_run(cu, tmp_path, threads=2)
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_pointer_to_const_kept_across_a_barrier_keeps_its_const(tmp_path):
    """``const T *row`` lives across the barrier: its per-thread storage holds ``const T *`` (only
    a top-level ``const`` goes, as in ``float *const``); without it g++ rejects the instantiation."""
    cu = tmp_path / "const_pointer.cu"
    cu.write_text("#include <cstdio>\n"
                  "template <typename T> __global__ void k(const T *in, T *out) {\n"
                  "    __shared__ T s[64];\n"
                  "    const T *row = in;\n"
                  "    row += blockIdx.x * 64;\n"
                  "    float *const dst = out + blockIdx.x * 64;\n"
                  "    s[threadIdx.x] = row[threadIdx.x];\n"
                  "    __syncthreads();\n"
                  "    dst[threadIdx.x] = s[63 - threadIdx.x] + row[threadIdx.x];\n"
                  "}\n"
                  "int main() { float h[128], *din, *dout; for (int i = 0; i < 128; ++i) h[i] = i;\n"
                  "    cudaMalloc(&din, sizeof h); cudaMalloc(&dout, sizeof h);\n"
                  "    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice); k<float><<<2, 64>>>(din, dout);\n"
                  "    cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost);\n"
                  "    printf(h[0] == 63 && h[64] == 127 + 64 ? \"PASS\\n\" : \"FAIL\\n\"); return 0; }\n")
    _, run, _ = translate_build_run(cu, tmp_path, threads=2)
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_inlined_function_whose_body_cannot_be_translated_reports_why(tmp_path):
    """A function inlined for its ``__shared__`` variable whose body holds an untranslatable
    construct: the error is at that construct, with a note at the call (it said "overloaded or
    its body could not be read")."""
    cu = tmp_path / "unreadable.cu"
    cu.write_text("struct Pair { float a, b; };\n"
                  "__device__ float helper(float v, float Pair::*field) {\n"
                  "    __shared__ Pair box[64];\n"
                  "    box[threadIdx.x].a = box[threadIdx.x].b = v;\n"
                  "    return box[0].*field;\n"
                  "}\n"
                  "__global__ void k(float *p) { p[threadIdx.x] = helper(p[threadIdx.x], &Pair::a); }\n")
    with pytest.raises(CompileError) as raised:
        translate_file(cu)
    text = raised.value.render(with_source=False)
    assert f"{cu}:5:12: error: the pointer-to-member operator '.*' is not supported" in text, text
    assert f"{cu}:7:48: note: 'helper' is inlined into the kernel here" in text, text


@covers("Kernels and memory", "extern __shared__ array declared in a member function (SharedMemory<T> idiom)",
        note="the block's dynamic shared memory; not under --schedule=nested (a run-time error there)")
@pytest.mark.parametrize("threads", [1, 3])
def test_extern_shared_array_of_a_member_function_is_the_blocks_dynamic_memory(threads, tmp_path):
    assert_passes("shared_memory_member", tmp_path, threads)


def test_shared_variable_of_a_member_function_spelled_by_a_macro_is_a_located_error(tmp_path):
    """Member functions are kept as written; a ``__shared__`` declaration there is edited into a
    ``static thread_local`` one (``test_others_code``), which needs the qualifier in the text."""
    cu = tmp_path / "member.cu"
    cu.write_text("#define BLOCK_COUNTER static __shared__ int count\n"
                  "struct Counter {\n"
                  "    __device__ int *slot() { BLOCK_COUNTER; return &count; }\n"
                  "};\n"
                  "__global__ void k(int *p) { Counter c; atomicAdd(c.slot(), 1); }\n")
    with pytest.raises(CompileError) as raised:
        translate_file(cu)
    assert f"{cu}:3:30: error: a __shared__ variable declared in a member function with its qualifier spelled by a " \
           "macro" in str(raised.value), str(raised.value)
