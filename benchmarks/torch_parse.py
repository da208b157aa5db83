"""Benchmark (not a test): what reading PyTorch's headers costs a translation and a compile.

    python benchmarks/torch_parse.py [--headers torch/extension.h,ATen/ATen.h] [--gxx]

For each header, the CPU seconds of libclang parsing a one-kernel .cu that includes it, in CUDA
mode with moccuda.torch's options (the fixed cost of every .cu of an extension), and with --gxx
the CPU seconds of g++ -O2 -std=c++20 compiling the same include (what PyTorch's build pays per
source on top).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cuda_front.parse import parse_file  # noqa: E402
from moccuda.torch.translate import COMPAT_INCLUDE_DIR, translation_options, split_cuda_flags  # noqa: E402
from moccuda.torch.translate import torch_include_dirs  # noqa: E402

KERNEL = "__global__ void twice(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }\n"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--headers", default="torch/extension.h,ATen/ATen.h")
    parser.add_argument("--gxx", action="store_true", help="also time g++ on the same include")
    args = parser.parse_args(argv)
    options = translation_options("bench", [], split_cuda_flags([]))
    print("| header | libclang parse (CPU s) | g++ -O2 (CPU s) |")
    print("| --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for header in args.headers.split(","):
            cu = Path(tmp) / "probe.cu"
            cu.write_text(f"#include <{header}>\n{KERNEL}")
            start = time.process_time()
            parse_file(cu, options)
            parse = time.process_time() - start
            gxx = "-"
            if args.gxx:
                cpp = Path(tmp) / "probe.cpp"
                cpp.write_text(f"#include <{header}>\n")
                before = _children_cpu()
                subprocess.run(["g++", "-O2", "-std=c++20", "-fPIC", "-fopenmp", f"-I{COMPAT_INCLUDE_DIR}",
                                *[f"-isystem{d}" for d in torch_include_dirs()], "-c", str(cpp), "-o", str(cpp) + ".o"],
                               check=True)
                gxx = f"{_children_cpu() - before:.1f}"
            print(f"| `{header}` | {parse:.1f} | {gxx} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
