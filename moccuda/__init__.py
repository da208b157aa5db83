"""MocCUDA: the CUDA runtime on the CPU (headers in include/, sources in src/, built by build.py)."""
