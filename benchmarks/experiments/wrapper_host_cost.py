"""Host cost of torch_reduce.sum's ways of calling sum_v7, on the CPU of a
machine without the built extension: a stand-in reduce_opt library with the
ops' schemas (Python kernels that return their input) takes the extension's
place, and torch_reduce/_ops.py is loaded on its own, so what is timed is the
Python wrapper and torch.ops' argument handling, apart from any kernel.
Minimum over 5 repeats of 20,000 calls, in microseconds, three rounds. An
older wrapper times the same way from its file (session 65 timed 3731a4e's):

    python benchmarks/experiments/wrapper_host_cost.py [OPS_FILE]
"""

from __future__ import annotations

import importlib.util
import sys
import timeit
from pathlib import Path

import torch

CALLS = 20_000
OPS_FILE = Path(__file__).resolve().parents[2] / "torch_reduce" / "_ops.py"


def stand_in_library() -> torch.library.Library:
    lib = torch.library.Library("reduce_opt", "DEF")
    for version in range(7):
        lib.define(f"sum_v{version}(Tensor self) -> Tensor")
        lib.impl(f"sum_v{version}", lambda self: self, "CPU")
    lib.define("sum_v7(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    lib.define(
        "sum_v7.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    lib.impl("sum_v7", lambda self, dtype=None: self, "CPU")
    lib.impl("sum_v7.dim_IntList", lambda self, dim, keepdim=False, dtype=None: self, "CPU")
    return lib


def main() -> None:
    library = stand_in_library()  # noqa: F841  (the ops live as long as it does)
    ops_file = Path(sys.argv[1]) if len(sys.argv) > 1 else OPS_FILE
    spec = importlib.util.spec_from_file_location("torch_reduce_ops", ops_file)
    ops = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ops)
    op = torch.ops.reduce_opt.sum_v7
    x = torch.randn(1024)
    forms = {
        "op(x)": lambda: op(x),
        "op(x, dtype=None)": lambda: op(x, dtype=None),
        "op.dim_IntList(x, 0, False)": lambda: op.dim_IntList(x, 0, False),
        "op.dim_IntList(x, 0, False, dtype=None)": lambda: op.dim_IntList(x, 0, False, dtype=None),
        "torch_reduce.sum(x)": lambda: ops.sum(x),
        "torch_reduce.sum(x, 0)": lambda: ops.sum(x, 0),
    }
    for _ in range(3):
        times = {
            name: min(timeit.repeat(fn, number=CALLS, repeat=5)) / CALLS * 1e6
            for name, fn in forms.items()
        }
        print({name: round(us, 2) for name, us in times.items()})


if __name__ == "__main__":
    main()
