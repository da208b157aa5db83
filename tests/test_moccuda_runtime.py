"""MocCUDA's error behaviour and semantics, through real programs built with g++."""

import subprocess

from support import compile_cpp

PROGRAM = r"""
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#define CHECK(cond) do { if (!(cond)) { printf("FAIL line %d: %s\n", __LINE__, #cond); return 1; } } while (0)
__constant__ float coefficients[4];
int main() {
    int x = 0;
    CHECK(cudaFree(&x) == cudaErrorInvalidValue);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
    CHECK(cudaSetDevice(3) == cudaErrorInvalidDevice);
    cudaGetLastError();
    CHECK(!moccuda::launch_begin(moccuda::LaunchConfig(dim3(1), dim3(2048))));
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(!moccuda::launch_begin(moccuda::LaunchConfig(dim3(0), dim3(32))));
    CHECK(moccuda::launch_begin(moccuda::LaunchConfig(dim3(4, 4), dim3(32, 32))));
    CHECK(!moccuda::launch_begin(moccuda::LaunchConfig(1, 32, 100000)));
    cudaGetLastError();
    int *d;
    CHECK(cudaMalloc(&d, 16 * sizeof(int)) == cudaSuccess);
    CHECK(cudaMemset(d, 0xff, 16 * sizeof(int)) == cudaSuccess && d[15] == -1);
    int h[16];
    for (int i = 0; i < 16; ++i) h[i] = i;
    CHECK(cudaMemcpy(d, h, sizeof h, (cudaMemcpyKind)42) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess && d[7] == 7);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFree(d) == cudaErrorInvalidValue);
    float c[4] = {1, 2, 3, 4}, back[4];
    CHECK(cudaMemcpyToSymbol(coefficients, c, sizeof c) == cudaSuccess && coefficients[3] == 4);
    CHECK(cudaMemcpyFromSymbol(back, coefficients, sizeof back) == cudaSuccess && back[2] == 3);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.maxThreadsPerBlock == 1024 && prop.warpSize == 32);
    CHECK(strstr(prop.name, "MocCUDA") != nullptr);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle);
    cudaEventRecord(start);
    volatile double acc = 0;
    for (int i = 0; i < 3000000; ++i) acc = acc + i * 0.5;
    cudaEventRecord(stop);
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess && ms > 0 && ms < 10000);
    int counter = 0;
    float fsum = 0;
    double dsum = 0;
    unsigned long long usum = 0;
    int lowest = 1 << 30;
    #pragma omp parallel for
    for (int i = 0; i < 100000; ++i) {
        atomicAdd(&counter, 1);
        atomicAdd(&fsum, 1.0f);
        atomicAdd(&dsum, 0.5);
        atomicAdd(&usum, 2ull);
        atomicMin(&lowest, 100000 - i);
    }
    CHECK(counter == 100000 && fsum == 100000.0f && dsum == 50000.0 && usum == 200000ull && lowest == 1);
    CHECK(sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(double2) == 16 && sizeof(float3) == 12);
    CHECK(sizeof(int2) == 8 && alignof(int2) == 8 && sizeof(uchar4) == 4);
    CHECK(make_float4(1, 2, 3, 4).w == 4 && min(3, 5) == 3 && max(2.5f, 1.0f) == 2.5f);
    CHECK(__popc(0xffu) == 8 && __brev(1u) == 0x80000000u && __clz(1) == 31 && __ffs(8) == 4);
    printf("PASS\n");
    return 0;
}
"""


def test_runtime_behaviour(tmp_path):
    src = tmp_path / "runtime.cpp"
    src.write_text(PROGRAM)
    built = compile_cpp(src, tmp_path / "runtime")
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(tmp_path / "runtime")], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "PASS", run.stdout + run.stderr
