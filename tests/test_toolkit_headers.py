"""Headers and APIs of the CUDA toolkit that nvcc users have besides the runtime (issue 17, item 5).

Thrust (NVIDIA's own, from the nvidia-cuda-cccl-cu12 package, on its OpenMP device system), NVTX 3
(nvidia-nvtx-cu12), 8-bit floating point (``cuda_fp8.h``), the common part of the driver API
(``cuda.h``), and the located errors for
what has no CPU meaning: the device runtime of dynamic parallelism, and device code loaded at run
time (modules, ``cuLaunchKernel``).  Each program in tests/programs/others_code/ is self-checking:
built as users build it (the ``cuda2cpu`` command), run, and its own checks against host
computations or CUDA's documented answers print PASS."""

from __future__ import annotations

import os
import subprocess

import pytest

from coverage_table import covers
from support import PROGRAMS, run_cli

OTHERS = PROGRAMS / "others_code"


def _built_and_run(tmp_path, source, *flags: str) -> subprocess.CompletedProcess:
    """``source`` built by cuda2cpu with ``flags`` and run at 2 OpenMP threads."""
    exe = tmp_path / "program"
    built = run_cli(*flags, source, "-o", exe)
    assert built.returncode == 0, built.stderr[-4000:]
    return subprocess.run([exe], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, OMP_NUM_THREADS="2"))


def _passes(tmp_path, name: str, *flags: str) -> None:
    run = _built_and_run(tmp_path, OTHERS / name, *flags)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr


def _refused(tmp_path, source: str) -> tuple[str, list[str]]:
    """``source`` given to cuda2cpu, which must refuse it with located errors: the file's name and
    the error lines."""
    cu = tmp_path / "t.cu"
    cu.write_text(source)
    done = run_cli(cu, "-o", tmp_path / "t")
    assert done.returncode == 1 and "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return str(cu), [line for line in done.stderr.splitlines() if ": error: " in line]


@covers("Thrust", "device_vector and host_vector, copies between them, element access from the host",
        "thrust::device execution policy", "sort, inclusive_scan, reduce, transform, transform_reduce, count_if, "
        "sequence, fill", "zip_iterator and counting_iterator", "thrust::raw_pointer_cast(v.data()) passed to a kernel",
        "thrust::device_ptr over thrust::device_malloc memory and over cudaMalloc memory (device_pointer_cast)",
        "__host__ __device__ functors, __device__-only functors, __device__ lambdas (--extended-lambda)",
        "thrust::complex in device code", "thrust::system_error without including it (nvcc's CUDA system brings it)",
        note="NVIDIA's Thrust (nvidia-cuda-cccl-cu12) on its OpenMP device system: device memory is host memory, "
             "algorithms are OpenMP loops")
def test_thrust_on_its_openmp_device_system(tmp_path):
    _passes(tmp_path, "thrust_algorithms.cu", "--extended-lambda")


@covers("Headers", "nvtx3/nvToolsExt.h, nvToolsExtCuda.h, nvToolsExtCudaRt.h, nvtx3.hpp (ranges, marks, names)",
        "nvToolsExt.h and -lnvToolsExt (NVTX 2)",
        note="NVIDIA's NVTX 3 (nvidia-nvtx-cu12): no effect unless a tool is attached")
def test_nvtx_ranges_do_nothing_without_a_tool(tmp_path):
    run = _built_and_run(tmp_path, OTHERS / "nvtx_ranges.cu", "-lnvToolsExt")
    assert run.returncode == 0 and run.stdout.split() == ["push", "-2", "pop", "-2", "PASS"], run.stdout + run.stderr


@covers("Half precision", "cuda_fp8.h: __nv_cvt_float_to_fp8, __nv_cvt_double_to_fp8, __nv_cvt_halfraw_to_fp8, "
        "__nv_cvt_bfloat16raw_to_fp8 and their x2 forms (E4M3, E5M2; __NV_NOSAT, __NV_SATFINITE)",
        "cuda_fp8.h: __nv_cvt_fp8_to_halfraw, __nv_cvt_fp8x2_to_halfraw2",
        "cuda_fp8.h: __nv_fp8_e4m3, __nv_fp8_e5m2 and their x2, x4 types (constructors, conversions, in kernels)",
        note="round to nearest even from the exact value; all 256 codes both ways and every midpoint checked against "
             "the formats' definition")
@pytest.mark.parametrize("std", ["c++11", "c++17"])
def test_fp8_conversions_follow_the_formats(tmp_path, std):
    _passes(tmp_path, "fp8_conversions.cu", f"-std={std}")


@covers("Headers", "cuda.h driver API: cuInit, cuDriverGetVersion, cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, "
        "cuDeviceGetAttribute, cuDeviceTotalMem, cuDeviceComputeCapability",
        "cuda.h driver API: cuCtxCreate (CUDA 13's, with CUctxCreateParams; CUDA 12's in C++), cuCtxDestroy, "
        "cuCtxGetCurrent, cuCtxSetCurrent, cuCtxPushCurrent, cuCtxPopCurrent, cuCtxGetDevice, cuCtxSynchronize, "
        "cuDevicePrimaryCtxRetain/Release",
        "cuda.h driver API: cuMemAlloc, cuMemFree, cuMemGetInfo, cuMemcpyHtoD/DtoH/DtoD, cuMemsetD8/D32 (CUdeviceptr)",
        "cuda.h driver API: cuGetErrorName, cuGetErrorString",
        note="one device, the runtime's; contexts share its memory; a driver call leaves the runtime's last error")
@pytest.mark.parametrize("std", ["c++11", "c++17"])
def test_driver_api_beside_the_runtime(tmp_path, std):
    _passes(tmp_path, "driver_api.cu", f"-std={std}")


def test_driver_api_header_is_c(tmp_path):
    from moccuda import build

    c = tmp_path / "driver.c"
    c.write_text("#include <cuda.h>\nint main(void) { CUcontext ctx; CUdevice dev; cuInit(0); cuDeviceGet(&dev, 0);\n"
                 "  return cuCtxCreate(&ctx, 0, 0, dev) != CUDA_SUCCESS; }\n")
    done = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-fsyntax-only", f"-I{build.include_dir()}", str(c)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@covers("Headers", "cuda.h's cuModuleLoad, cuModuleLoadData(Ex), cuModuleGetFunction, cuLaunchKernel, cuLinkCreate "
        "(device code loaded at run time)", status="not supported",
        note="located error: there is no PTX or cubin to load; launch the .cu's kernels instead")
def test_loading_device_code_at_run_time_is_a_located_error(tmp_path):
    cu, errors = _refused(tmp_path, "#include <cuda.h>\nint main() {\n  CUmodule m; CUfunction f;\n"
                                    "  cuModuleLoad(&m, \"k.ptx\");\n  cuModuleGetFunction(&f, m, \"k\");\n"
                                    "  return cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, nullptr, nullptr);\n}\n")
    assert [e.split(": error: ")[0] for e in errors] == [f"{cu}:4:3", f"{cu}:5:3", f"{cu}:6:10"], errors
    assert all("which MocCUDA cannot run" in e for e in errors), errors


DEVICE_RUNTIME = """\
__global__ void child(int *a) { a[threadIdx.x] = 1; }
__device__ int *scratch() { int *p; cudaMalloc(&p, 64); return p; }
__global__ void waits(int *a) {
  a[0] = cudaDeviceSynchronize();
  a[1] = cudaGetLastError();
}
__device__ void launches(int *a) { child<<<1, 32>>>(a); }
__global__ void calls(int *a) { launches(a); a[2] = *scratch(); }
__global__ void launches_by_hand(int *a) {
  void *buffer = cudaGetParameterBuffer(8, 8);
  cudaLaunchDevice((void *)child, buffer, dim3(1), dim3(32), 0, 0);
}
int main() { return 0; }
"""


@covers("Device code", "runtime calls in device code (dynamic parallelism's device runtime: cudaDeviceSynchronize, "
        "cudaGetLastError, cudaMalloc, cudaGetParameterBuffer, cudaLaunchDevice, ...)", status="not supported",
        note="located error naming dynamic parallelism, in kernels and __device__ functions")
@covers("Device code", "kernel launch in a __device__ function (dynamic parallelism)", status="not supported",
        note="located error, also where the function is kept as written")
def test_dynamic_parallelism_is_a_located_error_where_it_stands(tmp_path):
    cu, errors = _refused(tmp_path, DEVICE_RUNTIME)
    where = [e.split(": error: ")[0] for e in errors]
    assert where == [f"{cu}:2:37", f"{cu}:4:10", f"{cu}:5:10", f"{cu}:10:18", f"{cu}:11:3"], errors
    assert all("is CUDA's dynamic parallelism (the device runtime)" in e for e in errors), errors
    # Kept as written, the helper's launch would run the child grid on the parent's thread.
    cu, errors = _refused(tmp_path, "__global__ void child(int *a) { a[threadIdx.x] = 1; }\n"
                                    "__device__ void launches(int *a) { child<<<1, 32>>>(a); }\n"
                                    "__global__ void calls(int *a) { launches(a); }\nint main() { return 0; }\n")
    assert [e.split(": error: ")[0] for e in errors] == [f"{cu}:2:36"], errors
    assert "a kernel launch from device code (dynamic parallelism)" in errors[0]


HOST_DEVICE_RUNTIME = """\
#include <cstdio>
#include <cstring>
__host__ __device__ const char *describe(cudaError_t e) { return cudaGetErrorString(e); }
__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }
int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  k<<<1, 32>>>(d);
  const char *text = describe(cudaDeviceSynchronize());
  if (strcmp(text, "no error") != 0) { printf("FAIL: %s\\n", text); return 1; }
  printf("PASS\\n");
  return 0;
}
"""


def test_host_device_functions_call_the_host_runtime(tmp_path):
    # Not dynamic parallelism: the host pass's view of a __host__ __device__ function, as nvcc's.
    cu = tmp_path / "hd.cu"
    cu.write_text(HOST_DEVICE_RUNTIME)
    run = _built_and_run(tmp_path, cu)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
