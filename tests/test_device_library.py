"""The CUDA device library on the CPU: one self-checking program per construct family in
tests/programs/device_lib/, translated by cuda2cpu, built with g++ and MocCUDA, and run.  Each
program computes its expected values on the host with plain C++ (loops, double-precision C math,
a search over every 16-bit encoding for the half-precision references) and prints PASS."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from coverage_table import covers
from moccuda import build
from support import CXX, PROGRAMS, ROOT, translate_build_run
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

DEVICE_LIB = PROGRAMS / "device_lib"


def translation_variants() -> dict[str, TranslateOptions]:
    """The default translation, every other OpenMP schedule and the fiber (fallback) barrier
    lowering, as far as this checkout's translator has them (issue 9: programs run under every
    schedule)."""
    variants = {"default": TranslateOptions()}
    if "schedule" in TranslateOptions.__dataclass_fields__ and importlib.util.find_spec("openmp_emit.schedule"):
        from openmp_emit.schedule import SCHEDULES

        variants.update({f"schedule={s}": TranslateOptions(schedule=s) for s in SCHEDULES if s != "auto"})
    if importlib.util.find_spec("barrier.fiber_lowering"):
        variants["lowering=fallback"] = TranslateOptions(lowering="fallback")
    return variants


VARIANTS = translation_variants()


def run_program(name: str, tmp_path, threads: int = 2, options: TranslateOptions | None = None):
    _, run, _ = translate_build_run(DEVICE_LIB / f"{name}.cu", tmp_path, options, threads=threads)
    return run


def assert_passes(run):
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout[-3000:] + run.stderr[-3000:]


@covers("Atomics", *[f"{op}({t})" for op in ("atomicAdd", "atomicMin", "atomicMax") for t in ("int", "unsigned int")],
        "atomicAdd(unsigned long long)", "atomicAdd(float)", "atomicAdd(double)", "atomicSub(int)",
        "atomicExch(int)", "atomicAnd(int)", "atomicOr(int)", "atomicXor(int)", "atomicAnd(unsigned int)",
        "atomicOr(unsigned int)", "atomicXor(unsigned int)", "atomicMin(unsigned long long)",
        "atomicMax(unsigned long long)", "atomicOr(unsigned long long)", "atomicMin(long long)",
        "atomicMax(long long)", "atomicInc", "atomicDec", "atomicCAS(int)", "atomicCAS(unsigned long long)",
        "atomicCAS(unsigned short)", "atomicAdd_block", "atomicAdd_system", "atomicCAS_system",
        "__threadfence", "__threadfence_block", "__threadfence_system")
@covers("Kernels and memory", "__global__ kernel", "<<<grid, block>>> launch", "__shared__ variable", "__syncthreads",
        "__device__ variable", "cudaMalloc", "cudaMemcpy", "cudaMemset", "cudaDeviceSynchronize", "cudaGetErrorString")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_atomics_and_fences(variant, tmp_path):
    # Several OpenMP threads, so that blocks really race on the atomics.
    assert_passes(run_program("atomics", tmp_path, threads=4, options=VARIANTS[variant]))


@covers("Math", "__expf", "__logf", "__powf", "__sinf", "__fdividef", "rsqrtf", "sincosf", "sincospif",
        "__saturatef", "__fmaf_rn", "__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn", "__float2int_rn",
        "__float2int_rz", "__float2int_ru", "__float2int_rd", "__float2uint_rn", "__float2ll_rn",
        *[f"{op}_{mode}" for op in ("__fadd", "__fmul", "__fdiv", "__fsqrt", "__fmaf", "__int2float", "__double2float",
                                    "__dadd", "__dmul", "__ddiv") for mode in ("rz", "ru", "rd")],
        "__mul24", "__umul24", "__popc", "__popcll", "__ffs", "__ffsll", "__clz", "__clzll", "__brev",
        "__byte_perm", "math_constants.h (CUDART_PI_F, CUDART_INF_F, CUDART_NAN, ...)",
        "old headers (sm_20_atomic_functions.h, ...)")
def test_math_intrinsics(tmp_path):
    assert_passes(run_program("math_intrinsics", tmp_path))


@covers("Math", *[f"{op}_{mode}" for op in ("__fsub", "__frcp", "__dsub", "__dsqrt", "__drcp")
                  for mode in ("rz", "ru", "rd")],
        "directed rounding without a change of the rounding mode (normal range)")
def test_directed_rounding_matches_the_host_and_keeps_the_rounding_mode(tmp_path):
    assert_passes(run_program("directed_rounding", tmp_path))


@covers("Half precision", "__half (cuda_fp16.h)", "__float2half", "__float2half_rn", "__half2float", "__hadd",
        "__hsub", "__hmul", "__hdiv", "__hfma", "__hneg", "__hmax", "__hlt", "__half2int_rn", "__half_as_ushort",
        "__half operators (+ - * +=)", "__half2", "__floats2half2_rn", "__half2half2", "__hadd2", "__hmul2",
        "__low2half", "__high2half", "atomicAdd(__half)", "__nv_bfloat16 (cuda_bf16.h)", "__float2bfloat16",
        "__bfloat162float", "__bfloat16_as_ushort", "__hadd(__nv_bfloat16)", "__hfma(__nv_bfloat16)",
        "__nv_bfloat16 operators", "atomicAdd(__nv_bfloat16)",
        "__shared__ __half / __half2 arrays across __syncthreads", "__float2half_rz", "__float2half_ru",
        "__float2half_rd", "__hmax_nan", "h2sqrt", "__heq2", "__hblt2")
@covers("Vector types", "float3 with user-defined operator+ / operator* / operator+=",
        "user-defined make_float3(float) overload", "int2 with user-defined operator-")
def test_half_precision_and_vector_operators(tmp_path):
    assert_passes(run_program("half_vector", tmp_path))


@covers("Device code", "__ldg", "__restrict__", "__launch_bounds__", "#pragma unroll", "assert (holding)",
        "clock64", "__nanosleep")
@covers("Device code", "clock", status="partial", note="process CPU time (C clock()), not cycles: monotonic per thread")
@covers("Device code", "printf in kernels", note="lines of one thread in order; threads in block order here")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_device_misc(variant, tmp_path):
    run = run_program("device_misc", tmp_path, options=VARIANTS[variant])
    assert_passes(run)
    lines = run.stdout.splitlines()
    # One thread: exactly its line.  Six threads: their lines in some order (as on a GPU).
    assert lines[0] == "thread 0 of block 0: value=41 f=2.50"
    expected = sorted(f"thread {t} of block {b}: value={100 + t} f=-1.00" for b in range(2) for t in range(3))
    assert sorted(lines[1:7]) == expected


@covers("Device code", "assert (failing)", status="partial",
        note="as CUDA: message with block and thread, cudaErrorAssert (sticky) at the next synchronization; "
             "in a __host__ __device__ function it still aborts the process")
@pytest.mark.parametrize("variant", VARIANTS)
def test_failing_device_assert_is_cudaErrorAssert(variant, tmp_path):
    # It aborted the process (glibc's assert), where CUDA ends the kernel and reports the error.
    run = run_program("device_assert", tmp_path, threads=3, options=VARIANTS[variant])
    assert_passes(run)
    source = DEVICE_LIB / "device_assert.cu"
    assert run.stderr.splitlines() == [
        f"{source}:26: void check_positive(const int *, int): "
        "block: [1,0,0], thread: [8,0,0] Assertion `i >= n || v[i] > 0` failed.",
        f"{source}:11: int checked_load(const int *, int): "
        "block: [1,0,0], thread: [8,0,0] Assertion `v[i] >= 0` failed."], run.stderr


@covers("Host API", "cudaMallocPitch", "cudaMemcpy2D", "cudaMalloc3D", "cudaMemset3D", "cudaMemcpy3D (pitched, positions)",
        "cudaStreamCreate", "cudaMemsetAsync", "cudaMemcpyAsync", "kernel launch on a stream", "cudaStreamSynchronize",
        "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaOccupancyMaxPotentialBlockSize",
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaLaunchKernel (typed kernel)", "cudaLaunchKernelEx",
        "cudaLaunchCooperativeKernel (grid that fits; too large a grid refused)",
        "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol")
@covers("Old CUDA", "cudaMemcpyToSymbol(\"name\", ...)", "cudaMemcpyFromSymbol(dst, \"name\", ...)",
        "cudaThreadSynchronize", "cudaThreadExit", "cudaThreadSetLimit", "cudaThreadGetLimit",
        "cudaDeviceProp::clockRate", "cudaDeviceProp::memoryClockRate", "cudaDeviceProp::deviceOverlap",
        "cudaDeviceProp::kernelExecTimeoutEnabled", "cudaDeviceProp::computeMode")
@covers("Kernels and memory", "__constant__ variable", "dim3 grid and block", "<<<grid, block, shared, stream>>> launch")
def test_host_api(tmp_path):
    assert_passes(run_program("host_api", tmp_path))


UNSUPPORTED = {
    "inline PTX outside the translated subset (asm(\"nop;\"))": ('asm("nop;");', "the PTX instruction 'nop'"),
    "kernel launch in device code (dynamic parallelism)": ("child<<<1, 1>>>(p);", "dynamic parallelism"),
    "static local variable in device code": ("static int calls = 0; p[0] = ++calls;", "a static local variable"),
}


@covers("Device code", *UNSUPPORTED, status="not supported", note="located error")
@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_device_constructs_are_located_errors(name, tmp_path):
    statement, message = UNSUPPORTED[name]
    cu = tmp_path / "bad.cu"
    cu.write_text("#include <cuda_runtime.h>\n"
                  "__global__ void child(int *p) { p[0] = 1; }\n"
                  "__global__ void k(int *p)\n"
                  "{\n"
                  f"    {statement}\n"
                  "}\n")
    with pytest.raises(CompileError) as caught:
        translate_file(cu, TranslateOptions())
    text = str(caught.value)
    assert text.startswith(f"{cu}:5:") and message in text and "not supported" in text, text


NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


@covers("Host API", "cudaLaunchKernelExC (nvcc-built program under moccuda run)",
        "cudaFuncGetAttributes (nvcc-built program under moccuda run)")
@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_launch_kernel_ex_from_an_nvcc_built_program(tmp_path):
    sources = DEVICE_LIB / "nvcc"
    app, kernels = tmp_path / "launch_ex", tmp_path / "liblaunch_ex_kernels.so"
    for cmd in ([NVCC, "-cudart", "shared", "-o", app, sources / "launch_ex.cu"],
                [CXX, "-std=c++17", "-shared", "-fPIC", "-O1", f"-I{build.include_dir()}", "-o", kernels,
                 sources / "launch_ex_kernels.cpp"]):
        done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-4000:]
    run = subprocess.run([sys.executable, "-m", "moccuda", "run", "--kernels", str(kernels), "--", str(app)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert run.stdout.splitlines() == ["cudaLaunchKernelEx: cudaSuccess, 0 wrong",
                                       "cudaFuncGetAttributes: cudaSuccess, maxThreadsPerBlock 1024"]


@covers("Mixed", "kernel template (non-type BLOCK, value type, functor type) + texture object + __half + warp "
        "shuffle + cooperative-groups tile reduce (cg::plus<T>) + atomicAdd(double) in one kernel")
def test_mixed_program(tmp_path):
    assert_passes(run_program("mixed", tmp_path))


@covers("C++ in device code", "local typedef in a kernel", "local using alias in a kernel",
        "dependent local typedef (typename Traits<T>::value_type)", "sizeof(local alias)",
        "T(x) conversion on a template parameter")
def test_local_type_aliases_and_dependent_conversions(tmp_path):
    assert_passes(run_program("templates_typedefs", tmp_path))
