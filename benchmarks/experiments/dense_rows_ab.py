"""Graph time of sum_v7(x, [-1]) over dense row shapes, for A/B runs of two builds.

The dims scenario times one shape per row class; a change to how dense rows are
launched needs the classes around it too. Run it from each built tree in turn,
alternating, then compare the JSON files:

    PYTHONPATH=/tmp/A python benchmarks/experiments/dense_rows_ab.py /tmp/A1.json
    PYTHONPATH=/tmp/B python benchmarks/experiments/dense_rows_ab.py /tmp/B1.json

With --inductor, torch.compile(torch.sum) is timed on the same buffers, in turns
with sum_v7. The dims scenario and this harness disagree on 8192x4096 fp32 (v7
0.97x Inductor there, 0.995x here; NOTES session 23). With --like-dims-scenario
each shape gets the scenario's rotation instead (benchmarks.context.rotation: 2
buffers and 10 calls a graph for 8192x4096) and is timed on its own, its peers in
turns, with the scenario's 10 replays, to tell which difference moves the ratio.
That alone did not move Inductor (NOTES session 24); --torch-sum adds the scenario's
third peer, torch.sum, and takes the peers in the scenario's order (torch.sum,
Inductor, sum_v7), so that each graph follows the one it follows there.

Each shape is checked against a float64 sum before it is timed, on buffers that
together exceed 4x the L2 of an H100 or H200; times are medians of 7 graph replays
of 24 calls (benchmarks.timing.graphs), in microseconds per call. Benchmarks NOTES,
session 22, has the runs that used it.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference
from benchmarks.context import DeviceInfo, Settings, rotation
from benchmarks.inputs import Case, dtype_name
from benchmarks.peers import inductor, torch_sum
from benchmarks.runner import check_call
from benchmarks.scenarios.common import rotating_calls
from benchmarks.timing import graphs

F32, BF16 = torch.float32, torch.bfloat16
# (rows, row length, dtype): rows of 64 to 32,768 vectors, each of the dense-row
# kernels, aligned and not, the shapes of the dims scenario's rows, model rows a
# warp a row (bf16 768 and 2040, fp32 512), long rows just above a wave of
# 256-thread blocks, and fewer long rows than that wave (an LM head's vocabulary
# over a small batch: 128256 and 151936 bf16, 50257 fp32; 265 and 264 rows of
# 131072 bf16, 2 an SM of an H100 or H200 with one over and without), and long
# rows (0.5-16 MB) from half a row to 1.5 rows an SM of an H100 or H200 (NOTES
# sessions 24 and 25).
SHAPES = [
    (16384, 1024, F32),
    (16384, 2000, F32),
    (4224, 1024, F32),
    (32768, 2048, BF16),
    (32768, 4000, BF16),
    (8192, 4096, F32),
    (8448, 3000, F32),
    (16384, 4096, BF16),
    (4096, 32000, F32),
    (2112, 512, F32),
    (4096, 16385, F32),
    (32768, 768, BF16),
    (65536, 512, F32),
    (16384, 2040, BF16),
    (529, 262144, F32),
    (265, 131072, BF16),
    (264, 131072, BF16),
    (256, 128256, BF16),
    (512, 151936, BF16),
    (200, 50257, F32),
    (300, 8192, F32),
    (128, 32768, F32),
    (160, 65536, F32),
    (66, 1 << 22, F32),
    (132, 1 << 20, F32),
    (200, 1 << 19, F32),
    (100, 1 << 21, BF16),
    (128, 1 << 17, F32),
    (128, 1 << 18, F32),
    (100, 1 << 19, F32),
]
ROTATION_BYTES = 200e6  # 4x an H100's 50 MB L2
CALLS, REPLAYS = 24, 7
SCENARIO_SETTINGS = Settings(eager_min_run_time=0.0, replays=10, max_calls=8192)


def checked(fn, x: torch.Tensor, what: str) -> None:
    """fn(x) is x's sum over the last dim, to the benchmark's own bound (check_call)."""
    wrong = check_call(fn, x, reference(x, (-1,), False))
    if wrong is not None:
        raise AssertionError(f"{what}: {wrong}")


def harness_copies(nbytes: int) -> int:
    """Enough buffers to exceed ROTATION_BYTES together."""
    return max(2, math.ceil(ROTATION_BYTES / nbytes) + 1)


def random_rows(rows: int, length: int, dtype: torch.dtype, copies: int) -> list[torch.Tensor]:
    return [torch.randn(rows, length, device="cuda").to(dtype) for _ in range(copies)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file for {shape: microseconds per call}")
    parser.add_argument("--inductor", action="store_true", help="time Inductor's row sum too")
    parser.add_argument(
        "--like-dims-scenario",
        action="store_true",
        help="the dims scenario's buffers, calls and replays, a shape at a time",
    )
    parser.add_argument(
        "--torch-sum",
        action="store_true",
        help="time torch.sum too, the peers in the dims scenario's order",
    )
    args = parser.parse_args()
    device_info = DeviceInfo.of(torch.device("cuda"))
    result = {}
    steps = {}
    for rows, length, dtype in SHAPES:
        name = f"{dtype_name(dtype)} {rows}x{length}"
        nbytes = rows * length * dtype.itemsize
        plan = rotation(nbytes, nbytes, device_info, SCENARIO_SETTINGS)
        copies = plan.buffers if args.like_dims_scenario else harness_copies(nbytes)
        buffers = random_rows(rows, length, dtype, copies)
        case = Case(name, dtype, lambda device, x=buffers[0]: x.to(device), dims=(-1,))
        peers = {}
        if args.torch_sum:
            peers["torch.sum"] = torch_sum(case)
        if args.inductor or args.torch_sum:
            peers["Inductor"] = inductor(case)
        peers["sum_v7"] = lambda x: torch.ops.reduce_opt.sum_v7(x, [-1])
        for peer, fn in peers.items():
            checked(fn, buffers[0], f"{peer} {name}")
            steps[name if peer == "sum_v7" else f"{peer} {name}"] = rotating_calls(fn, buffers)
        if args.like_dims_scenario:
            timings = graphs(steps, calls=plan.calls, replays=SCENARIO_SETTINGS.replays)
            result.update({step: timings[step].median_us for step in steps})
            steps = {}
    if steps:
        timings = graphs(steps, calls=CALLS, replays=REPLAYS)
        result = {name: timings[name].median_us for name in steps}
    args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
