"""Benchmark (not a test): the translated nll_loss extension against PyTorch's native CPU nll_loss.

    python benchmarks/torch_nll.py [--batches 256,4096,65536] [--classes 100] [--threads 1,2]
                                   [--repeats 20] [--build-dir DIR]

For each thread count (torch.set_num_threads, which sets the OpenMP threads that both PyTorch and
the extension's kernels use: they share PyTorch's libgomp) and batch size, times forward and
forward+backward of both, interleaved in one process on the same inputs (mean reduction, class
weights, some ignored samples), and prints the median times and their ratio.  The results are
checked equal first (within 1e-5), so a fast wrong answer cannot be reported.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "torch_nll"))
from nll import load_extension, nll_loss  # noqa: E402


def _median_seconds(fn, repeats: int) -> float:
    fn()  # warm up (first-touch allocation, OpenMP thread start)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(ext, batch: int, classes: int, repeats: int) -> dict:
    torch.manual_seed(batch)
    logits = torch.randn(batch, classes).log_softmax(1)
    target = torch.randint(0, classes, (batch,))
    target[::11] = -100
    weight = torch.rand(classes) + 0.5
    ours_in = logits.clone().requires_grad_()
    ref_in = logits.clone().requires_grad_()
    ours = nll_loss(ext, ours_in, target, weight)
    ref = F.nll_loss(ref_in, target, weight)
    ours.backward()
    ref.backward()
    assert abs(ours.item() - ref.item()) <= 1e-5 and (ours_in.grad - ref_in.grad).abs().max().item() <= 1e-5

    def forward_ours():
        with torch.no_grad():
            nll_loss(ext, logits, target, weight)

    def forward_ref():
        with torch.no_grad():
            F.nll_loss(logits, target, weight)

    def both_ours():
        ours_in.grad = None
        nll_loss(ext, ours_in, target, weight).backward()

    def both_ref():
        ref_in.grad = None
        F.nll_loss(ref_in, target, weight).backward()

    return {"forward": (_median_seconds(forward_ours, repeats), _median_seconds(forward_ref, repeats)),
            "forward+backward": (_median_seconds(both_ours, repeats), _median_seconds(both_ref, repeats))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="256,4096,65536")
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--build-dir", default=None)
    args = parser.parse_args(argv)
    ext = load_extension(args.build_dir)
    print(f"torch {torch.__version__}, {args.classes} classes, median of {args.repeats}")
    print("| threads | batch | pass | extension | torch native | extension / native |")
    print("| --- | --- | --- | --- | --- | --- |")
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        for batch in (int(b) for b in args.batches.split(",")):
            for name, (ours, ref) in bench(ext, batch, args.classes, args.repeats).items():
                print(f"| {threads} | {batch} | {name} | {ours * 1e6:.0f} us | {ref * 1e6:.0f} us | {ours / ref:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
