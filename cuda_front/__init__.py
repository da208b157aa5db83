"""The front end: CUDA C++ parsed by libclang (in CUDA mode, no toolkit needed) into cuda2cpu IR."""
