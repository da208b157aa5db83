"""Options that shape one translation, shared by the CLI, the server and the tests."""

from __future__ import annotations

from dataclasses import dataclass

#: The ``__CUDA_ARCH__`` of MocCUDA's device (compute capability 7.0): device code's, unless the
#: GPU targets given say otherwise (``transpiler.nvcc_flags.device_arch``).
MOCCUDA_DEVICE_ARCH = 700


@dataclass(frozen=True)
class TranslateOptions:
    """What the front end and the pipeline need to know about one ``.cu`` translation.

    ``defines`` holds ``NAME`` or ``NAME=VALUE`` strings (as given to ``-D``); ``undefines`` names
    for ``-U``; ``pre_includes`` files for ``-include``; ``std`` a C++ standard such as ``c++17``.
    ``pipeline`` is a comma-separated list of pass names (see ``foundation.passes``); None means
    the default pipeline.  ``disabled_passes`` removes passes from it (``--no-PASS``).
    ``lowering`` forces the barrier lowering: "auto", "split" or "fallback".
    ``schedule`` picks how OpenMP runs blocks and threads (``openmp_emit.schedule``): "auto"
    (chosen per kernel), "blocks", "flat" or "nested".
    ``system_include_dirs`` are searched as ``-isystem`` (after ``-I``): their headers (PyTorch's,
    for instance) are not the user's code, so the translator never looks inside them.
    ``torch_host`` rewrites host-side CUDA device checks on PyTorch tensors (``x.is_cuda()``) to
    accept the CPU tensors that stand in for CUDA ones (``transpiler.torch_host``; reported).
    ``reassociate_reductions`` (opt-in, ``--reassociate-reductions``) lets the pass of that name
    sum a block's ``__shared__`` tree reduction in any order: floating-point results may round
    differently from CUDA's tree (``openmp_emit.reassociate_reductions``).
    ``host_openmp``: the host compiler's flags ask for OpenMP (``-Xcompiler -fopenmp``), so the
    source sees ``_OPENMP`` as nvcc's host compiler would define it; else it does not, although
    the translation is compiled with ``-fopenmp``.
    """

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    pre_includes: tuple[str, ...] = ()
    std: str | None = None
    pipeline: str | None = None
    disabled_passes: tuple[str, ...] = ()
    lowering: str = "auto"
    schedule: str = "auto"
    system_include_dirs: tuple[str, ...] = ()
    host_openmp: bool = False
    torch_host: bool = False
    device_arch: int = MOCCUDA_DEVICE_ARCH
    reassociate_reductions: bool = False
