"""Graph time of the full sums of row slices, against ways to read the same bytes.

The layouts scenario's `x[::2]` (4,096 rows of 32 KB, 32 KB apart) reads
128 MB; on a fast H200 (session 52) sum_v7 took 33.4 us, Inductor 33.0, and
sum_v7's own row sum of the contiguous 8192x4096 (the same bytes, a block a row
over many waves) 30.6-31.0 in the dims scenario. This times, in turns, on
rotating 8192x8192 fp32 buffers:

- the full sum of each view (sum_v7, torch.sum, Inductor);
- sum_v7's row sums of the view (a block a row) alone, and followed by
  sum_v7 of those sums (two launches: what a block-a-row total would cost at
  most);
- sum_v7 of the same bytes contiguous (the first half of the buffer), as a
  full sum and as rows of 4,096.

Each step is checked on the first buffer against a float64 sum before it is
timed. Run on a GPU machine after the build, from the repository root; prints
and writes {step: microseconds per call}.

    python -m benchmarks.experiments.strided_rows_total /tmp/strided.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference
from benchmarks.inputs import Case, random_data
from benchmarks.peers import inductor
from benchmarks.runner import check_call
from benchmarks.scenarios.common import rotating_calls
from benchmarks.timing import graphs

SIDE = 8192
BUFFERS = 4  # 1 GB of fp32 squares: 8x a view's 128 MB is 16x an H200's L2 or more
CALLS, REPLAYS = 20, 9
v7 = torch.ops.reduce_opt.sum_v7

VIEWS = {
    "[::2]": lambda x: x[::2],
    "[:, 1:4001]": lambda x: x[:, 1:4001],
}


FULL, ROWS = None, (-1,)  # what a step sums: everything, or each row of its input


def steps_for(label: str, view, squares: list[torch.Tensor]) -> dict[str, tuple]:
    """name: (fn, its input of each buffer, the dims its result sums) for one view."""
    views = [view(x) for x in squares]
    case = Case(label, torch.float32, lambda device: views[0])  # Inductor reads its dims
    return {
        f"{label} sum_v7": (v7, views, FULL),
        f"{label} torch.sum": (torch.sum, views, FULL),
        f"{label} Inductor": (inductor(case), views, FULL),
        f"{label} sum_v7 rows then sum": (lambda x: v7(v7(x, [-1])), views, FULL),
        f"{label} sum_v7 rows only": (lambda x: v7(x, [-1]), views, ROWS),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file for {step: microseconds per call}")
    args = parser.parse_args()
    squares = [
        random_data((SIDE, SIDE), torch.float32, torch.device("cuda")) for _ in range(BUFFERS)
    ]
    halves = [x[: SIDE // 2] for x in squares]  # 128 MB contiguous, as [::2] reads
    rows = [x.view(SIDE, -1) for x in halves]  # 8192 rows of 4096
    timed = {
        "contiguous 4096x8192 sum_v7": (v7, halves, FULL),
        "contiguous 8192x4096 sum_v7 rows only": (lambda x: v7(x, [-1]), rows, ROWS),
    }
    for label, view in VIEWS.items():
        timed |= steps_for(label, view, squares)
    for name, (fn, inputs, dims) in timed.items():
        wrong = check_call(fn, inputs[0], reference(inputs[0], dims, False))
        if wrong is not None:
            raise AssertionError(f"{name}: {wrong}")
    timings = graphs(
        {name: rotating_calls(fn, inputs) for name, (fn, inputs, _) in timed.items()},
        calls=CALLS,
        replays=REPLAYS,
    )
    result = {name: timings[name].median_us for name in timed}
    args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
