"""PyTorch CUDA extensions on the CPU build of PyTorch, through cuda2cpu and MocCUDA.

    import moccuda.torch
    nll = moccuda.torch.load("nll_cuda", sources=["nll_cuda.cu"])      # as torch.utils.cpp_extension.load

    # setup.py
    from moccuda.torch import BuildExtension, CUDAExtension
    setup(name="fused", ext_modules=[CUDAExtension("fused", ["fused.cpp", "fused_kernel.cu"])],
          cmdclass={"build_ext": BuildExtension})

Each ``.cu`` source is translated by cuda2cpu (``moccuda.torch.translate``), with the ATen/c10
CUDA compat headers (``moccuda/include/torch_compat``) in front of PyTorch's own, and host-side
device checks rewritten to accept CPU tensors (``transpiler.torch_host``).  The translated C++ and
the other sources are then built by PyTorch's own ``cpp_extension`` machinery, as a CPU extension,
with OpenMP and MocCUDA's static library.
"""

from __future__ import annotations

from moccuda.torch.requirement import require_torch

require_torch()

from moccuda.torch.build import BuildExtension, CUDAExtension, load  # noqa: E402
from moccuda.torch.translate import TorchTranslationError  # noqa: E402

__all__ = ["BuildExtension", "CUDAExtension", "TorchTranslationError", "load"]
