"""cuda2cpu: translate CUDA C++ into C++ with OpenMP that runs on the MocCUDA runtime."""

__version__ = "0.1.0"
