"""Benchmark (not a test): translation time per 1,000 source lines, excluding the C++ compile.

    python benchmarks/translate_speed.py [--kernels N] [--repeat R]

Generates a .cu file of N kernels (each with shared memory, a guard, a loop and a top-level
barrier) plus host code launching them, translates it R times, and reports the best time, the
line count, and seconds per 1,000 lines.  The target is under 0.5 s per 1,000 lines.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from transpiler.translate import translate_file  # noqa: E402

KERNEL = """
__global__ void kernel_{i}(const float *in, float *out, int n)
{{
    __shared__ float tile[256];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float v = g < n ? in[g] * {i}.5f : 0.0f;
    tile[threadIdx.x] = v;
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < 4; ++k) {{
        acc += tile[(threadIdx.x + k) % blockDim.x] * (k + 1);
    }}
    if (g < n) {{
        out[g] = acc + v;
    }}
}}
"""


def generate(kernels: int) -> str:
    parts = ["#include <cstdio>\n#include <vector>\n"]
    parts += [KERNEL.format(i=i) for i in range(kernels)]
    launches = "\n".join(f"    kernel_{i}<<<(n + 255) / 256, 256>>>(in, out, n);" for i in range(kernels))
    parts.append(f"\nvoid run(const float *in, float *out, int n)\n{{\n{launches}\n}}\n")
    return "".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / "generated.cu"
        cu.write_text(generate(args.kernels))
        lines = cu.read_text().count("\n")
        best = min(_time(cu) for _ in range(args.repeat))
    print(f"{lines} lines, {args.kernels} kernels: best of {args.repeat} = {best:.3f} s "
          f"-> {best / lines * 1000:.3f} s per 1,000 lines (target < 0.5)")
    return 0


def _time(cu: Path) -> float:
    start = time.perf_counter()
    translate_file(cu)
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
