"""Compiles the production kernel's sources for every architecture of the default list.

CI builds the whole extension for one architecture only (a build for all of them
takes several times as long); this compiles the files whose code depends on the
architecture once per architecture of setup.py's DEFAULT_CUDA_ARCH_LIST, with the
flags of the real build, and writes nothing (-o /dev/null).

    python .ci/compile_all_archs.py [FILE ...]

Without arguments it compiles ALL_ARCH_SOURCES.
"""

import ast
import glob
import os
import subprocess
import sys
import time
from pathlib import Path

import torch
from torch.utils import cpp_extension

REPO = Path(__file__).resolve().parent.parent

# The files compiled for every architecture: the first pattern that matches
# anything wins. Edit here when the architecture-dependent code moves.
ALL_ARCH_SOURCES = ["csrc/cuda/v7/*.cu", "csrc/cuda/sum_v7.cu"]


def setup_constant(name: str):
    """A literal assigned at the top level of setup.py (which cannot be imported
    without running the build)."""
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return ast.literal_eval(node.value)
    raise SystemExit(f"setup.py defines no {name}")


def default_sources() -> list[str]:
    for pattern in ALL_ARCH_SOURCES:
        matches = sorted(glob.glob(pattern, root_dir=REPO))
        if matches:
            return matches
    raise SystemExit(f"no file matches any of {ALL_ARCH_SOURCES}")


def cxx_standard() -> str:
    # What torch.utils.cpp_extension passes: C++17 up to torch 2.11, C++20 from 2.12.
    return "-std=c++20" if torch.__version__ >= "2.12" else "-std=c++17"


def nvcc_command(source: str) -> list[str]:
    # The flags that torch.utils.cpp_extension gives the extension's .cu files.
    os.environ["TORCH_CUDA_ARCH_LIST"] = setup_constant("DEFAULT_CUDA_ARCH_LIST")
    includes = [f"-I{path}" for path in cpp_extension.include_paths(device_type="cuda")]
    return [
        os.path.join(cpp_extension.CUDA_HOME, "bin", "nvcc"),
        *includes,
        *cpp_extension.COMMON_NVCC_FLAGS,
        *setup_constant("NVCC_RELEASE_FLAGS"),
        *cpp_extension._get_cuda_arch_flags(),
        cxx_standard(),
        "-DTORCH_API_INCLUDE_EXTENSION_H",
        "-c",
        source,
        "-o",
        os.devnull,
    ]


def main() -> int:
    sources = sys.argv[1:] or default_sources()
    for source in sources:
        command = nvcc_command(source)
        archs = [flag.rsplit("code=", 1)[1] for flag in command if flag.startswith("-gencode")]
        print(f"{source}: {' '.join(archs)}", flush=True)
        start = time.monotonic()
        subprocess.run(command, cwd=REPO, check=True)
        print(f"  compiled in {time.monotonic() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
