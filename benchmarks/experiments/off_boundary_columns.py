"""Graph time of column sums whose rows start off the 16-byte boundaries, beside
aligned twins of the same size, against torch.sum and Inductor.

column_sum.cu read a column vector a thread (16 bytes) only where every row
started on a vector boundary; other rows of more than 32 columns took its scalar
band path, one element a thread a row, until session 58 shifted such rows'
vectors into place (OffBoundaryBandRows). Such rows come from models: a Linear
layer's bias gradient over an odd vocabulary (GPT-2's 50,257), a slice that
drops a first column, the last dim cut from 64 to 63. Each case here has a twin
of about the same bytes whose rows are aligned (the vector path), so that the
table shows what being off the boundaries costs and what the peers make of the
same rows (NOTES session 58 has the runs):

    PYTHONPATH=. python benchmarks/experiments/off_boundary_columns.py /tmp/off.json

Every peer is checked against a float64 sum before it is timed; the buffers and
calls are the dims scenario's (benchmarks.context.rotation), the peers' graphs
replay in turns (benchmarks.timing.graphs), 10 replays; medians in microseconds
per call.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference
from benchmarks.context import DeviceInfo, Settings, rotation
from benchmarks.inputs import Case, dtype_name, random_data
from benchmarks.peers import inductor, torch_sum
from benchmarks.scenarios.common import checked_rotating_calls
from benchmarks.timing import graphs

F32, BF16, F16, I16 = torch.float32, torch.bfloat16, torch.float16, torch.int16
SETTINGS = Settings(eager_min_run_time=0.0, replays=10, max_calls=8192)


def full(shape: tuple[int, ...]) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: x


def columns_from(first: int) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: x[:, first:]


def last_dim_to(length: int) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: x[..., :length]


# (label, stored shape, dtype, view of the stored tensor, dims): each off-boundary
# case, then its aligned twin.
CASES = [
    ("2048x50257", (2048, 50257), BF16, full, (0,)),
    ("2048x50256", (2048, 50256), BF16, full, (0,)),
    ("2048x50257", (2048, 50257), F32, full, (0,)),
    ("2048x50256", (2048, 50256), F32, full, (0,)),
    ("16384x1001", (16384, 1001), F32, full, (0,)),
    ("16384x1000", (16384, 1000), F32, full, (0,)),
    ("16384x4095", (16384, 4095), F16, full, (0,)),
    ("16384x4096", (16384, 4096), F16, full, (0,)),
    ("8192x4096[:, 1:]", (8192, 4096), F32, lambda s: columns_from(1), (0,)),
    ("8192x4096[:, 4:]", (8192, 4096), F32, lambda s: columns_from(4), (0,)),
    ("100x2048x64[..., :63]", (100, 2048, 64), F32, lambda s: last_dim_to(63), (0, 1)),
    ("100x2048x64[..., :60]", (100, 2048, 64), F32, lambda s: last_dim_to(60), (0, 1)),
    ("3001x66", (3001, 66), F32, full, (0,)),
    ("3001x64", (3001, 64), F32, full, (0,)),
    ("2000x1001", (2000, 1001), BF16, full, (0,)),
    ("2000x1000", (2000, 1000), BF16, full, (0,)),
    ("2001x33", (2001, 33), I16, full, (0,)),
    ("2001x32", (2001, 32), I16, full, (0,)),
    ("4096x4095", (4096, 4095), F32, full, (0,)),
    ("4096x4096", (4096, 4096), F32, full, (0,)),
]


def time_cases(
    cases: list[tuple], v7_peers: Callable[[tuple[int, ...]], dict[str, Callable]]
) -> dict[str, dict[str, float]]:
    """{case: {peer: graph median in us}} of torch.sum, Inductor and the
    v7_peers(dims) of each (label, stored shape, dtype, view, dims) case, each
    checked first; printed as they come."""
    info = DeviceInfo.of(torch.device("cuda"))
    result = {}
    for label, shape, dtype, view_of, dims in cases:
        view = view_of(shape)
        name = f"{dtype_name(dtype)} {label} dim={dims}"
        first = view(random_data(shape, dtype, torch.device("cuda")))
        nbytes = first.numel() * dtype.itemsize
        plan = rotation(nbytes, nbytes, info, SETTINGS)
        buffers = [first] + [
            view(random_data(shape, dtype, torch.device("cuda"))) for _ in range(plan.buffers - 1)
        ]
        case = Case(name, dtype, lambda device, x=first: x, dims=dims)
        peers = {"torch.sum": torch_sum(case), "Inductor": inductor(case), **v7_peers(dims)}
        steps = checked_rotating_calls(peers, buffers, reference(first, dims, False), name)
        timings = graphs(steps, calls=plan.calls, replays=SETTINGS.replays)
        result[name] = {peer: timings[peer].median_us for peer in steps}
        print(name, {peer: round(us, 2) for peer, us in result[name].items()}, flush=True)
        del buffers, first
        torch.cuda.empty_cache()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file for {case: {peer: microseconds}}")
    args = parser.parse_args()
    result = time_cases(
        CASES, lambda dims: {"sum_v7": lambda x: torch.ops.reduce_opt.sum_v7(x, list(dims))}
    )
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
