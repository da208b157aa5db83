"""``load`` and ``CUDAExtension``/``BuildExtension``: PyTorch's extension building, for ``.cu``
sources, on the CPU.

Each ``.cu`` source is translated first (``moccuda.torch.translate``); the translations and the
other sources are then built by ``torch.utils.cpp_extension`` as a CPU extension (no CUDA
libraries), with ``-fopenmp``, the compat and MocCUDA include directories, and MocCUDA's static
library (compiled with ``-fPIC``, so it links into the extension's shared object).
"""

from __future__ import annotations

import os
from pathlib import Path

from torch.utils import cpp_extension

from moccuda import build as moccuda_build
from moccuda.torch.translate import (compile_flags, include_dirs, link_flags, split_cuda_flags, torch_include_dirs,
                                     translate_source, translated_include_dirs, translation_options)

#: Where translations go, inside an extension's build directory.
TRANSLATION_DIR = "cuda2cpu"


def _translate_all(name: str, sources: list[str], out_dir: Path, user_include_dirs: list[str],
                   cuda_cflags: list[str] | None, verbose: bool) -> tuple[list[str], list[str]]:
    """Sources with each ``.cu`` replaced by its translation, and the include directories the
    translations need."""
    cuda = split_cuda_flags(cuda_cflags)
    if verbose and cuda.ignored:
        print(f"cuda2cpu: nvcc flags without meaning on the CPU, ignored: {' '.join(cuda.ignored)}")
    options = translation_options(name, user_include_dirs, cuda)
    result, extra_dirs = [], list(cuda.include_dirs)
    for source in sources:
        if os.path.splitext(source)[1] != ".cu":
            result.append(source)
            continue
        target = translate_source(source, out_dir, options, verbose)
        result.append(str(target))
        extra_dirs += [d for d in translated_include_dirs(target) if d not in extra_dirs]
    return result, extra_dirs


def load(name: str, sources: str | list[str], extra_cflags: list[str] | None = None,
         extra_cuda_cflags: list[str] | None = None, extra_ldflags: list[str] | None = None,
         extra_include_paths: list[str] | None = None, build_directory: str | None = None, verbose: bool = False,
         with_cuda: bool | None = None, is_python_module: bool = True, is_standalone: bool = False,
         keep_intermediates: bool = True, **kwargs):
    """``torch.utils.cpp_extension.load`` for extensions with ``.cu`` sources, built for the CPU.

    Same arguments and result, except that the sources are compiled with ``-O2`` unless
    ``extra_cflags`` hold a ``-O`` flag (nvcc optimizes device code by default; PyTorch's load()
    adds no optimization flag).  ``extra_cuda_cflags`` give the translation its ``-I -D -U`` (the
    ``-D``/``-U`` apply to the ``.cu`` sources only, as nvcc's would); nvcc's other flags have no
    meaning on the CPU and are ignored.  ``with_cuda`` is accepted and ignored: the extension is
    always built without CUDA.  Raises :class:`moccuda.torch.TorchTranslationError` with located
    diagnostics when a source cannot be translated."""
    del with_cuda  # the point of this function: no CUDA toolkit, no CUDA libraries
    sources = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    sources = [os.fspath(s) for s in sources]
    if build_directory is None:
        build_directory = cpp_extension._get_build_directory(name, verbose)
    user_include_dirs = [os.fspath(d) for d in extra_include_paths or []]
    translated, extra_dirs = _translate_all(name, sources, Path(build_directory) / TRANSLATION_DIR, user_include_dirs,
                                            extra_cuda_cflags, verbose)
    # nvcc optimizes device code unless told otherwise (-G), and PyTorch's load() passes no -O of
    # its own: the translated kernels get -O2 unless extra_cflags choose a level.
    optimize = [] if any(f.startswith("-O") for f in extra_cflags or []) else ["-O2"]
    return cpp_extension.load(
        name, translated, extra_cflags=[*compile_flags(extra_dirs), *optimize, *(extra_cflags or [])],
        extra_ldflags=[*(extra_ldflags or []), *link_flags()], extra_include_paths=user_include_dirs,
        build_directory=build_directory, verbose=verbose, with_cuda=False, is_python_module=is_python_module,
        is_standalone=is_standalone, keep_intermediates=keep_intermediates, **kwargs)


def CUDAExtension(name: str, sources: list[str], *args, **kwargs):
    """A setuptools ``Extension`` as ``torch.utils.cpp_extension.CUDAExtension`` makes, for
    :class:`BuildExtension` to translate and build on the CPU: PyTorch's CPU libraries, no CUDA
    ones.  ``extra_compile_args`` may be a list or a ``{"cxx": [...], "nvcc": [...]}`` dict."""
    return cpp_extension.CppExtension(name, list(sources), *args, **kwargs)


class BuildExtension(cpp_extension.BuildExtension):
    """``build_ext`` that translates each ``.cu`` source of an extension (into the build's temporary
    directory) before PyTorch's ``BuildExtension`` compiles it as C++ with OpenMP and links it with
    MocCUDA."""

    def build_extensions(self) -> None:
        for extension in self.extensions:
            if any(os.path.splitext(s)[1] == ".cu" for s in extension.sources):
                self._prepare(extension)
        super().build_extensions()

    def _prepare(self, extension) -> None:
        args = extension.extra_compile_args
        cxx, nvcc = (list(args.get("cxx", [])), list(args.get("nvcc", []))) if isinstance(args, dict) else (list(args or []), [])
        out_dir = Path(self.build_temp).resolve() / TRANSLATION_DIR / extension.name
        name = extension.name.rsplit(".", 1)[-1]
        # The user's include directories: PyTorch's (CppExtension added them) are system ones.
        system = {os.path.realpath(d) for d in torch_include_dirs()}
        user_dirs = [d for d in extension.include_dirs if os.path.realpath(d) not in system]
        sources, extra_dirs = _translate_all(name, list(extension.sources), out_dir, user_dirs, nvcc,
                                             verbose=bool(self.verbose))
        extension.sources = sources
        # CppExtension put PyTorch's include directories (as -I) in include_dirs: the compat headers
        # go in front of them.  torch's BuildExtension adds -DTORCH_EXTENSION_NAME itself.
        extension.include_dirs = [*include_dirs(extra_dirs), *extension.include_dirs]
        extension.extra_compile_args = {"cxx": ["-fopenmp", *moccuda_build.TRANSLATION_COMPILE_FLAGS, *cxx]}
        extension.extra_link_args = [*(extension.extra_link_args or []), *link_flags()]
