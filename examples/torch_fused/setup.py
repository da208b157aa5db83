# Builds the fused bias+GELU CUDA extension on the CPU: only the import differs from a CUDA build
# (torch.utils.cpp_extension -> moccuda.torch).  python setup.py build_ext --inplace
from setuptools import setup

from moccuda.torch import BuildExtension, CUDAExtension

setup(
    name="fused_bias_gelu",
    ext_modules=[CUDAExtension("fused_bias_gelu", ["fused_bias_gelu.cu"],
                               extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O3", "--use_fast_math"]})],
    cmdclass={"build_ext": BuildExtension},
)
