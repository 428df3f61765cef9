"""Build torch_reduce._C: the reduce_opt ops, their CPU path and CUDA kernels.

DEBUG=1 builds without optimisation and with debug symbols. TORCH_CUDA_ARCH_LIST
picks the GPU architectures (PyTorch's convention), e.g. "9.0" for an H100.
"""

import glob
import os

from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

debug = os.getenv("DEBUG", "0") == "1"
sources = sorted(
    glob.glob("csrc/**/*.cpp", recursive=True) + glob.glob("csrc/**/*.cu", recursive=True)
)

setup(
    name="torch_reduce",
    version="0.1.0",
    description="CUDA sum-reduction kernels v0..v7 as PyTorch custom ops (reduce_opt::sum_vN)",
    packages=find_packages(include=["torch_reduce", "torch_reduce.*"]),
    ext_modules=[
        CUDAExtension(
            "torch_reduce._C",
            sources,
            extra_compile_args={
                "cxx": ["-O0", "-g"] if debug else ["-O3"],
                "nvcc": ["-O0", "-g", "-G"] if debug else ["-O3", "-lineinfo"],
            },
            extra_link_args=["-g"] if debug else [],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    python_requires=">=3.10",
    install_requires=["torch"],
)
