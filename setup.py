"""Build torch_reduce._C: the reduce_opt ops, their CPU path and CUDA kernels.

TORCH_CUDA_ARCH_LIST picks the GPU architectures (PyTorch's convention, e.g.
"9.0" for an H100 or H200 only); unset or empty, the build covers
DEFAULT_CUDA_ARCH_LIST. DEBUG=1 builds without optimisation and with debug
symbols.

The extension uses Python's limited API (its module is an empty stub; the ops
register through the dispatcher), so one wheel serves every Python >= 3.10.
It links against the C++ ABI of the torch it is built with, so the wheel
requires that torch release (docs/stable_abi.md says why it is not built on
PyTorch's stable ABI).
"""

import glob
import os
import warnings

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

# Turing to Blackwell, with PTX of the newest so that later GPUs JIT-compile
# it. A GPU between two entries runs the binary of the nearest lower one with
# the same major version (8.7 runs 8.6's, 10.3 runs 10.0's, 12.1 runs 12.0's).
# .ci/compile_all_archs.py reads these two lines.
DEFAULT_CUDA_ARCH_LIST = "7.5;8.0;8.6;8.9;9.0;10.0;12.0+PTX"
NVCC_RELEASE_FLAGS = ["-O3", "-lineinfo"]

# The torch releases CI builds and tests against (.ci/run: the oldest and the
# newest); the README's "Supported PyTorch" says why the range starts here.
OLDEST_TORCH = "2.11"
NEWEST_TORCH = "2.14"

MIN_PYTHON = "3.10"
LIMITED_API_TAG = "cp" + MIN_PYTHON.replace(".", "")  # torch defines Py_LIMITED_API for 3.10


def torch_requirement() -> str:
    """The built extension loads only into the torch release it was built with."""
    release = torch.__version__.split("+")[0].split(".")
    return f"torch=={release[0]}.{release[1]}.*"


def check_torch_release() -> None:
    if torch.__version__ < OLDEST_TORCH:
        raise SystemExit(
            f"torch_reduce needs torch >= {OLDEST_TORCH} (found {torch.__version__}); "
            "see the README's 'Supported PyTorch'"
        )
    newest_release = NEWEST_TORCH.split(".")
    untested_from = f"{newest_release[0]}.{int(newest_release[1]) + 1}"
    if torch.__version__ >= untested_from:
        warnings.warn(
            f"torch {torch.__version__} is newer than the newest tested release "
            f"({NEWEST_TORCH}); the build may work, but CI does not check it",
            stacklevel=1,
        )


check_torch_release()
if not os.environ.get("TORCH_CUDA_ARCH_LIST"):
    os.environ["TORCH_CUDA_ARCH_LIST"] = DEFAULT_CUDA_ARCH_LIST

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
                "nvcc": ["-O0", "-g", "-G"] if debug else NVCC_RELEASE_FLAGS,
            },
            extra_link_args=["-g"] if debug else [],
            py_limited_api=True,
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    options={"bdist_wheel": {"py_limited_api": LIMITED_API_TAG}},
    python_requires=f">={MIN_PYTHON}",
    install_requires=[torch_requirement()],
)
