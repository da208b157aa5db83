"""Speed of device code's math calls with and without pass device-math, side by side.

    python benchmarks/device_math_speed.py [--rounds 5] [--threads 1] [--n 4194304]

One CUDA program with three element-wise kernels over ``--n`` floats, the math of common
activation and normalization kernels: GELU through ``erff`` (HeCBench geglu's), a softmax-like
``expf``, and ``logf`` of ``sinf``/``cosf``.  It is translated twice, with the default pipeline
(calls name ``moccuda::device_math``: libmvec's SIMD variants in SIMD thread loops) and with
``--no-device-math`` (the C library's scalar functions), both built with g++ -O3.  The builds run
in turns, ``--rounds`` times; each prints every kernel's own time (std::chrono around 10
launches) and a checksum; the best of the rounds is reported with the ratio of the scalar build
to the default one.  The checksums must agree to 1e-5 (libmvec's variants are within CUDA's
error bounds, not bit for bit glibc's).  A benchmark, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support import compile_cpp  # noqa: E402
from foundation.options import TranslateOptions  # noqa: E402
from transpiler.translate import translate_file  # noqa: E402

KERNELS = ("gelu_erf", "softmax_exp", "log_sin_cos")

PROGRAM = r"""
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void gelu_erf(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f));
}

__global__ void softmax_exp(const float *x, float *y, float max, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = expf(x[i] - max);
}

__global__ void log_sin_cos(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = logf(2.0f + sinf(x[i])) * cosf(x[i]);
}

static double elapsed_ms(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    const int n = atoi(argv[1]), threads = 256, blocks = (n + threads - 1) / threads;
    float *h = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = ((i * 7919) % 20001) * 0.0004f - 4.0f;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    double checksum = 0;
    for (int k = 0; k < 3; ++k) {
        auto launch = [&] {
            if (k == 0) gelu_erf<<<blocks, threads>>>(x, y, n);
            else if (k == 1) softmax_exp<<<blocks, threads>>>(x, y, 4.0f, n);
            else log_sin_cos<<<blocks, threads>>>(x, y, n);
        };
        launch();
        cudaDeviceSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int rep = 0; rep < 10; ++rep) launch();
        cudaDeviceSynchronize();
        printf("%.3f ", elapsed_ms(t0));
        cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; ++i) checksum += h[i];
    }
    printf("%.9g\n", checksum);
    return 0;
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS")
    parser.add_argument("--n", type=int, default=1 << 22, help="elements per kernel")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="device-math-bench-"))
    cu = work / "bench.cu"
    cu.write_text(PROGRAM)
    variants = {"device-math": TranslateOptions(), "scalar (--no-device-math)":
                TranslateOptions(disabled_passes=("device-math",))}
    exes = {}
    for i, (name, options) in enumerate(variants.items()):
        cpp = work / f"variant{i}.cpp"
        cpp.write_text(translate_file(cu, options).source)
        built = compile_cpp(cpp, work / f"variant{i}", [], opt="-O3")
        if built.returncode != 0:
            sys.exit(built.stderr)
        exes[name] = work / f"variant{i}"
    best: dict[str, list[float]] = {}
    checks: dict[str, float] = {}
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    for _ in range(args.rounds):
        for name, exe in exes.items():
            out = subprocess.run([str(exe), str(args.n)], capture_output=True, text=True, env=env,
                                 check=True).stdout.split()
            times = [float(t) for t in out[:len(KERNELS)]]
            best[name] = [min(a, b) for a, b in zip(best.get(name, times), times)]
            checks[name] = float(out[len(KERNELS)])
    first = next(iter(checks.values()))
    if any(abs(c - first) > 1e-5 * max(1.0, abs(first)) for c in checks.values()):
        sys.exit(f"the builds disagree: {checks}")
    default = best["device-math"]
    print(f"n = {args.n}, OMP_NUM_THREADS={args.threads}, best of {args.rounds} rounds, ms for 10 launches")
    print("| build | " + " | ".join(f"{k} (ms) | ratio" for k in KERNELS) + " |")
    print("| --- |" + " --- | --- |" * len(KERNELS))
    for name, times in best.items():
        print(f"| {name} | " + " | ".join(f"{t:.1f} | {t / d:.2f}" for t, d in zip(times, default)) + " |")


if __name__ == "__main__":
    main()
