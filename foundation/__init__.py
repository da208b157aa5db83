"""The ground floor of cuda2cpu: what every compiler layer stands on and nothing of ours is under.

- ``ir``: the IR's frozen nodes, each with its source location, and the generic walks over them;
- ``diagnostics``: source locations, located diagnostics and the error that carries them;
- ``options``: what a translation is asked for;
- ``passes``: the pass registry, the pass context and the pipeline;
- ``integer_types``: the integer types spelled in CUDA source, as (signed, bits);
- ``expression_printer``: the C++ text of IR expressions, declarations and types (what the
  emitter prints and what analyses quote in their reasons).

This package imports nothing from the rest of cuda2cpu (``tests/test_layers.py`` checks it).
"""
