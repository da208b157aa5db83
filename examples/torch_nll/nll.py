"""``nll_loss`` from the CUDA extension nll_cuda.cu, built for the CPU by moccuda.torch.load.

    ext = load_extension()
    loss = nll_loss(ext, log_probs, target, weight=None, ignore_index=-100, reduction="mean")

Same arguments and results as ``torch.nn.functional.nll_loss`` for (N, C) inputs, with autograd.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

import moccuda.torch

SOURCE = Path(__file__).resolve().parent / "nll_cuda.cu"
#: The extension's codes for the reductions (enum Reduction in nll_cuda.cu).
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def load_extension(build_directory: str | os.PathLike | None = None, verbose: bool = False):
    """Translate and build nll_cuda.cu (PyTorch caches the build in ``build_directory``)."""
    if build_directory is not None:
        os.makedirs(build_directory, exist_ok=True)
        build_directory = os.fspath(build_directory)
    return moccuda.torch.load("nll_cuda", [str(SOURCE)], build_directory=build_directory, verbose=verbose)


class NLLLoss(torch.autograd.Function):
    """The extension's forward and backward kernels as one autograd operation."""

    @staticmethod
    def forward(ctx, ext, log_probs, target, weight, reduction, ignore_index):
        log_probs, target = log_probs.contiguous(), target.contiguous()
        output, total_weight = ext.forward(log_probs, target, weight, REDUCTIONS[reduction], ignore_index)
        ctx.save_for_backward(log_probs, target, weight, total_weight)
        ctx.ext, ctx.reduction, ctx.ignore_index = ext, REDUCTIONS[reduction], ignore_index
        return output

    @staticmethod
    def backward(ctx, grad_output):
        log_probs, target, weight, total_weight = ctx.saved_tensors
        grad = ctx.ext.backward(grad_output, log_probs, target, weight, total_weight, ctx.reduction, ctx.ignore_index)
        return None, grad, None, None, None, None


def nll_loss(ext, log_probs: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
             ignore_index: int = -100, reduction: str = "mean") -> torch.Tensor:
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(REDUCTIONS)}, not {reduction!r}")
    if weight is None:
        weight = torch.ones(log_probs.shape[1], dtype=log_probs.dtype)
    return NLLLoss.apply(ext, log_probs, target, weight.to(log_probs.dtype).contiguous(), reduction, ignore_index)
