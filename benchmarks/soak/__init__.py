"""The differential soak: thousands of random race-free kernels through every lowering, schedule
and thread count, and the test corpus with barriers inserted (``python -m benchmarks.soak``)."""
