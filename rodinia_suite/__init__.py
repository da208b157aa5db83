"""The Rodinia-style benchmark suite (issue 8): translated CUDA against hand-written OpenMP.

``python -m rodinia_suite run`` builds and runs it; :mod:`rodinia_suite.benchmarks` lists it.
"""
