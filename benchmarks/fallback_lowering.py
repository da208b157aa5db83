"""Speed of the fallback lowering (threads as fibers) against the split lowering, side by side.

    python benchmarks/fallback_lowering.py [--rounds 3] [--threads 2]

One CUDA program with two barrier-heavy kernels (a shared-memory tree reduction: 9 barriers per
block; a shared-memory stencil: 2 barriers per step, 16 steps) is translated with
--lowering=split and --lowering=fallback, and the fallback once more built with the ucontext
switcher (-DMOCCUDA_FIBERS_UCONTEXT); all with g++ -O2.  The builds run in turns, ``--rounds``
times; each prints the kernels' own time (std::chrono around the launches), and the best of the
rounds is reported with its ratio to split.  A benchmark, not a test: nothing is asserted.
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

PROGRAM = r"""
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
#define B 256

__global__ void reduce(const float *in, float *out)
{
    __shared__ float s[B];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * B + t];
    __syncthreads();
    for (unsigned stride = B / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__global__ void stencil(float *a, int steps)
{
    __shared__ float s[B + 2];
    unsigned t = threadIdx.x;
    float v = a[blockIdx.x * B + t];
    for (int k = 0; k < steps; ++k) {
        s[t + 1] = v;
        if (t == 0) { s[0] = v; s[B + 1] = s[B]; }
        __syncthreads();
        v = 0.25f * s[t] + 0.5f * s[t + 1] + 0.25f * s[t + 2];
        __syncthreads();
    }
    a[blockIdx.x * B + t] = v;
}

int main()
{
    const int blocks = 2048, n = blocks * B;
    static float h[n];
    for (int i = 0; i < n; ++i) h[i] = (i % 97) * 0.01f;
    float *a, *r;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&r, blocks * sizeof(float));
    cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
    reduce<<<blocks, B>>>(a, r);
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 10; ++rep) reduce<<<blocks, B>>>(a, r);
    cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    stencil<<<blocks, B>>>(a, 16);
    cudaDeviceSynchronize();
    auto t2 = std::chrono::steady_clock::now();
    float check;
    cudaMemcpy(&check, r, sizeof check, cudaMemcpyDeviceToHost);
    printf("%.3f %.3f %g\n", std::chrono::duration<double, std::milli>(t1 - t0).count(),
           std::chrono::duration<double, std::milli>(t2 - t1).count(), check);
    return 0;
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fallback-bench-"))
    cu = work / "bench.cu"
    cu.write_text(PROGRAM)
    variants = {"split": ("split", []), "fallback": ("fallback", []),
                "fallback-ucontext": ("fallback", ["-DMOCCUDA_FIBERS_UCONTEXT"])}
    exes = {}
    for name, (lowering, flags) in variants.items():
        cpp = work / f"{name}.cpp"
        cpp.write_text(translate_file(cu, TranslateOptions(lowering=lowering)).source)
        built = compile_cpp(cpp, work / name, flags, opt="-O2")
        if built.returncode != 0:
            sys.exit(built.stderr)
        exes[name] = work / name
    best: dict[str, list[float]] = {}
    checks: dict[str, str] = {}
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    for _ in range(args.rounds):
        for name, exe in exes.items():
            out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, check=True).stdout.split()
            times = [float(out[0]), float(out[1])]
            best[name] = [min(a, b) for a, b in zip(best.get(name, times), times)]
            checks[name] = out[2]
    if len(set(checks.values())) != 1:
        sys.exit(f"the builds disagree: {checks}")
    print("| build | reduce x10 (ms) | ratio | stencil 16 steps (ms) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, (r, s) in best.items():
        print(f"| {name} | {r:.1f} | {r / best['split'][0]:.1f} | {s:.1f} | {s / best['split'][1]:.1f} |")


if __name__ == "__main__":
    main()
