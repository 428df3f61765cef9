"""Sums that launch thread-block clusters on Hopper and newer (full sums of mid
sizes, small and split column sums; without clusters, other shapes), each
checked against torch.sum's reference (conftest.assert_matches_torch); prints
one JSON line a case with the names of the kernels it launched.
test_launch_shapes.py runs it with and without TORCH_REDUCE_NO_CLUSTERS=1, under
which v7 launches as on a GPU without clusters:

    TORCH_REDUCE_NO_CLUSTERS=1 python tests/cluster_free_target.py
"""

import json
import tempfile
from pathlib import Path

import torch
from conftest import assert_matches_torch, random_shaped
from test_launch_shapes import launched_kernels

SUM_V7 = torch.ops.reduce_opt.sum_v7

# (name, shape, dtype, dims): dims None is the full sum.
CASES = [
    # Past one round of the one block: without clusters its second round.
    ("fp32 2^14", (1 << 14,), torch.float32, None),
    ("bf16 2^15", (1 << 15,), torch.bfloat16, None),
    ("fp32 2^16", (1 << 16,), torch.float32, None),
    ("bf16 2^18", (1 << 18,), torch.bfloat16, None),
    ("fp32 2^20", (1 << 20,), torch.float32, None),
    ("int16 2001x32", (2001, 32), torch.int16, None),
    ("fp32 3001x64 dim=0", (3001, 64), torch.float32, [0]),
    ("int32 1024x1024 dim=0", (1024, 1024), torch.int32, [0]),
    ("bf16 8192x768 dim=0", (8192, 768), torch.bfloat16, [0]),
    ("fp32 64x1024x64 dim=1", (64, 1024, 64), torch.float32, [1]),
    ("fp32 16384x1000 dim=0", (16384, 1000), torch.float32, [0]),
]


def check_case(name, shape, dtype, dims, trace_path) -> list[str]:
    """The names of the kernels the case's sum launches, once its result matched."""
    x = random_shaped(shape, dtype, "cuda")

    results = []

    def call():
        results.append(SUM_V7(x) if dims is None else SUM_V7(x, dims))

    launched = launched_kernels(call, trace_path)
    if dims is None:  # the full sum: torch.sum's over the one dim of the flat tensor
        assert_matches_torch(results[0], x.flatten(), 0, False, message=name)
    else:
        assert_matches_torch(results[0], x, dims, False, message=name)
    return [kernel[0] for kernel in launched]


def main() -> None:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        for name, shape, dtype, dims in CASES:
            kernels = check_case(name, shape, dtype, dims, Path(folder) / "trace.json")
            print(json.dumps({"case": name, "kernels": kernels}))


if __name__ == "__main__":
    main()
