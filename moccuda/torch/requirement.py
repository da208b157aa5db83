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
        import torch  # noqa: F401
    except ImportError as exc:
        raise TorchMissingError(f"PyTorch is installed but cannot be imported ({exc}). {INSTALL_HINT}") from exc
