"""MocCUDA: the CUDA runtime on the CPU (headers in include/, sources in src/, built by build.py).

Use it through ``moccuda.build``: ``include_dir()``, ``build()``, ``link_flags()``; see README.md.
(The package re-exports nothing, so that ``from moccuda import build`` is always the module.)
"""
