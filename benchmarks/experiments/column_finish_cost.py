"""Graph time per call of sum_v7 over the two long column shapes, without checking
results: for the measurement-only builds of column-finish-cost-*.patch, which
leave out parts of the column finish (benchmarks/NOTES.md, session 42, call 10).

    PYTHONPATH=. python benchmarks/experiments/column_finish_cost.py

Ten calls a graph over two buffers (256 MB, 5x an H100's L2), timed by
benchmarks.timing.graph; prints the median and the spread in microseconds per
call. Call 10's numbers came from this script's first version, which timed five
runs of 20 back-to-back replays itself; this one has not run on a GPU yet.
"""

import torch

import torch_reduce  # noqa: F401  (registers the ops)
from benchmarks import timing

CALLS = 10
REPLAYS = 7

CASES = [
    ("8192x4096 fp32 dim=0", lambda: torch.randn(8192, 4096, device="cuda"), [0]),
    (
        "16x2048x4096 bf16 dim=(0,1)",
        lambda: torch.randn(16, 2048, 4096, device="cuda").bfloat16(),
        [0, 1],
    ),
]


def time_per_call(make, dim) -> timing.Timing:
    op = torch.ops.reduce_opt.sum_v7
    buffers = [make() for _ in range(2)]
    op(buffers[0], dim)  # timing.capture expects a step that has run once
    return timing.graph(lambda i: op(buffers[i % 2], dim), CALLS, REPLAYS)


if __name__ == "__main__":
    for name, make, dim in CASES:
        result = time_per_call(make, dim)
        print(f"{name}: {result.median_us:.2f} us/call ({result.min_us:.2f}-{result.max_us:.2f})")
