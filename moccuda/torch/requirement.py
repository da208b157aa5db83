"""The one import guard of moccuda.torch: PyTorch missing is an actionable error, not a traceback
from deep inside the build."""

from __future__ import annotations

import importlib.util

INSTALL_HINT = ("moccuda.torch needs PyTorch (its CPU build is enough). Install it with\n"
                "    pip install torch --index-url https://download.pytorch.org/whl/cpu\n"
                "or with this project's extra: pip install 'cuda2cpu[torch]'")


class TorchMissingError(ImportError):
    """PyTorch cannot be imported."""


def require_torch() -> None:
    """Raise :class:`TorchMissingError` with install instructions when ``torch`` is not importable."""
    if importlib.util.find_spec("torch") is None:
        raise TorchMissingError(f"PyTorch is not installed. {INSTALL_HINT}")
    try:
        import torch
    except ImportError as exc:
        raise TorchMissingError(f"PyTorch is installed but cannot be imported ({exc}). {INSTALL_HINT}") from exc
    reason = cuda_build_reason(torch.__version__, torch.version.cuda)
    if reason:
        raise TorchMissingError(reason)


def cuda_build_reason(torch_version: str, cuda_version: str | None) -> str | None:
    """Why this PyTorch cannot host MocCUDA's extensions, or None: a CUDA build of PyTorch loads
    NVIDIA's libcudart itself, which then serves the extension's CUDA calls instead of MocCUDA (and
    fails without a GPU), so moccuda.torch stops at once instead of after a long build."""
    if cuda_version is None:
        return None
    return (f"PyTorch {torch_version} is a CUDA {cuda_version} build: its own CUDA runtime, not MocCUDA, would "
            "serve the extension. install the CPU wheel: pip install torch --index-url "
            "https://download.pytorch.org/whl/cpu")
