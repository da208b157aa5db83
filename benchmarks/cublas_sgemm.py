"""Benchmark (not a test): MocCUDA's cublasSgemm against OpenBLAS's own sgemm, side by side.

    python benchmarks/cublas_sgemm.py [--sizes 256,512,1024,2048] [--threads 1,2] [--rounds 7]

MocCUDA's cuBLAS (``libmoccuda_cublas.so``, SONAME ``libcublas.so.13``) computes SGEMM with the
``scipy_cblas_sgemm`` of the scipy-openblas32 wheel.  This builds one small C++ program that
links both that library and OpenBLAS and, in one process per thread count, times square
column-major SGEMM (C = alpha A B + beta C, and A transposed: NN and TN) through
``cublasSgemm`` and through ``scipy_cblas_sgemm`` directly on the same matrices, in alternating
rounds (each round times enough calls for about 0.1 s of each, in turns).  The ratios are the
median (and the best) time per call through cuBLAS over the same of OpenBLAS (1.00: OpenBLAS's
speed).  The OpenBLAS thread count is set with ``scipy_openblas_set_num_threads``; MocCUDA's
runtime and cuBLAS are the shared libraries ``python -m moccuda --build shared|cublas`` makes.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from moccuda import build  # noqa: E402

HARNESS = r"""
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" void scipy_cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                                  const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
extern "C" void scipy_openblas_set_num_threads(int threads);

enum { col_major = 102, no_trans = 111, trans = 112 };

static double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv) {
    int threads = atoi(argv[1]), rounds = atoi(argv[2]);
    scipy_openblas_set_num_threads(threads);
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 1;
    for (int arg = 3; arg < argc; ++arg) {
        int n = atoi(argv[arg]);
        size_t count = (size_t)n * n;
        float *A, *B, *C;
        cudaMalloc(&A, count * sizeof(float));
        cudaMalloc(&B, count * sizeof(float));
        cudaMalloc(&C, count * sizeof(float));
        std::vector<float> a(count), b(count), via_cublas(count), via_blas(count);
        for (size_t i = 0; i < count; ++i) {
            a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
            b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
        }
        cudaMemcpy(A, a.data(), count * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(B, b.data(), count * sizeof(float), cudaMemcpyHostToDevice);
        const float alpha = 1.0f, beta = 0.5f;
        for (int transposed = 0; transposed < 2; ++transposed) {
            cublasOperation_t op = transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
            auto run_cublas = [&] { cublasSgemm(handle, op, CUBLAS_OP_N, n, n, n, &alpha, A, n, B, n, &beta, C, n); };
            auto run_blas = [&] {
                scipy_cblas_sgemm(col_major, transposed ? trans : no_trans, no_trans, n, n, n, alpha, A, n, B, n,
                                  beta, C, n);
            };
            // Same result both ways (from the same C).
            cudaMemset(C, 0, count * sizeof(float));
            run_cublas();
            cudaMemcpy(via_cublas.data(), C, count * sizeof(float), cudaMemcpyDeviceToHost);
            cudaMemset(C, 0, count * sizeof(float));
            run_blas();
            cudaMemcpy(via_blas.data(), C, count * sizeof(float), cudaMemcpyDeviceToHost);
            double differ = 0;
            for (size_t i = 0; i < count; ++i)
                differ = std::max(differ, (double)std::fabs(via_cublas[i] - via_blas[i]));
            // Calls per sample: about 0.1 s of work.
            double once = seconds();
            run_blas();
            once = seconds() - once;
            int calls = std::max(1, (int)(0.1 / std::max(once, 1e-7)));
            std::vector<double> t_cublas, t_blas;
            for (int r = 0; r < rounds; ++r) {
                for (int turn = 0; turn < 2; ++turn) {  // alternate which goes first
                    bool cublas_now = (turn == 0) == (r % 2 == 0);
                    double start = seconds();
                    for (int c = 0; c < calls; ++c)
                        cublas_now ? run_cublas() : run_blas();
                    double each = (seconds() - start) / calls;
                    (cublas_now ? t_cublas : t_blas).push_back(each);
                }
            }
            std::sort(t_cublas.begin(), t_cublas.end());
            std::sort(t_blas.begin(), t_blas.end());
            printf("%d %s %.9g %.9g %.9g %.9g %g %d\n", n, transposed ? "TN" : "NN", t_cublas[0], t_blas[0],
                   t_cublas[rounds / 2], t_blas[rounds / 2], differ, calls);
            fflush(stdout);
        }
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
    }
    cublasDestroy(handle);
    return 0;
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="256,512,1024,2048")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    runtime, cublas, blas = build.build("shared"), build.build("cublas"), build.openblas_dir()
    with tempfile.TemporaryDirectory(prefix="cublas-sgemm-") as tmp:
        source, program = Path(tmp) / "bench.cpp", Path(tmp) / "bench"
        source.write_text(HARNESS)
        subprocess.run([build._compiler(), "-std=c++17", "-O2", f"-I{build.include_dir()}", str(source), "-o",
                        str(program), str(runtime), str(cublas), f"-L{blas}", "-lscipy_openblas",
                        f"-Wl,-rpath,{runtime.parent}:{blas}"], check=True)
        print(f"# {platform.node()}: {platform.processor() or platform.machine()}, {_cpu_model()}")
        print("| n | op | threads | cublasSgemm (us) | OpenBLAS sgemm (us) | GFLOP/s (OpenBLAS) | ratio (best) "
              "| ratio (median) | max diff |")
        print("|---|---|---|---|---|---|---|---|---|")
        for threads in args.threads.split(","):
            done = subprocess.run([str(program), threads, str(args.rounds), *args.sizes.split(",")],
                                  capture_output=True, text=True, check=True)
            for line in done.stdout.splitlines():
                n, op, *times, differ, _ = line.split()
                t_cublas, t_blas, median_cublas, median_blas = map(float, times)
                gflops = 2 * int(n) ** 3 / t_blas / 1e9
                print(f"| {n} | {op} | {threads} | {t_cublas * 1e6:.1f} | {t_blas * 1e6:.1f} | {gflops:.1f} | "
                      f"{t_cublas / t_blas:.3f} | {median_cublas / median_blas:.3f} | {float(differ):.1g} |",
                      flush=True)
    return 0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    raise SystemExit(main())
