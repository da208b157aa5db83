"""A few training steps of a small CNN on random data, with the loss from the translated CUDA
extension, side by side with the same model trained with torch.nn.functional.nll_loss.

    python examples/torch_nll/train.py [--steps 5] [--build-dir DIR]

Both models start from the same weights and see the same batches; after every step the losses
and every parameter's gradient must agree within 1e-5.  Prints one line per step, then PASS.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nll import load_extension, nll_loss  # noqa: E402

TOLERANCE = 1e-5


class SmallCNN(torch.nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.fc = torch.nn.Linear(16 * 7 * 7, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return F.log_softmax(self.fc(x.flatten(1)), dim=1)


def train(ext, steps: int = 5, batch: int = 64, seed: int = 0, log=print) -> list[tuple[float, float, float]]:
    """Train both models; return (our loss, torch's loss, largest gradient difference) per step.
    Raises AssertionError when a step disagrees beyond the tolerance."""
    torch.manual_seed(seed)
    ours = SmallCNN()
    reference = copy.deepcopy(ours)
    opt_ours = torch.optim.SGD(ours.parameters(), lr=0.05, momentum=0.9)
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    weight = torch.rand(10) + 0.5
    results = []
    for step in range(steps):
        images = torch.randn(batch, 1, 28, 28)
        labels = torch.randint(0, 10, (batch,))
        labels[::7] = -100  # some samples ignored
        for opt in (opt_ours, opt_ref):
            opt.zero_grad()
        loss = nll_loss(ext, ours(images), labels, weight=weight, ignore_index=-100)
        expected = F.nll_loss(reference(images), labels, weight=weight, ignore_index=-100)
        loss.backward()
        expected.backward()
        grad_diff = max((a.grad - b.grad).abs().max().item() for a, b in zip(ours.parameters(), reference.parameters()))
        log(f"step {step}: loss {loss.item():.6f} (torch {expected.item():.6f}), largest gradient difference {grad_diff:.2e}")
        assert abs(loss.item() - expected.item()) <= TOLERANCE, f"step {step}: loss {loss.item()} != {expected.item()}"
        assert grad_diff <= TOLERANCE, f"step {step}: gradients differ by {grad_diff}"
        results.append((loss.item(), expected.item(), grad_diff))
        opt_ours.step()
        opt_ref.step()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--build-dir", default=None, help="where PyTorch builds (and caches) the extension")
    args = parser.parse_args(argv)
    ext = load_extension(args.build_dir, verbose=False)
    train(ext, steps=args.steps)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
