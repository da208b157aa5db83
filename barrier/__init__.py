"""Barrier semantics and lowering: kernels as parallel loops, and the passes that remove
``__syncthreads()`` from them without changing what the program means."""
