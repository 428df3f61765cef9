"""Graph time of small column sums under every band shape, against torch.sum and Inductor.

Aligned column sums of a few thousand rows trail Inductor by up to a third on an
H200 (fp32 3001x64 dim=0 4.90 us against 3.22; benchmarks/NOTES.md, session
58). This times, for each case, sum_v7 as it launches, the peers, sum_v7's full
sum of the same tensor (a one-launch anchor for the same bytes), and sum_v7 in
every band shape of column_sum.cu worth trying: bands of 2^l column lanes,
splits that give each thread 1 to 4 rounds of loads, finished through L2 or in
a thread-block cluster. The shapes need a build with
column-shape-override.patch, which reads TORCH_REDUCE_COLUMN_SHAPE
("lanes_log2,splits,in_cluster"); without it every shape is sum_v7's own. With
--inductor-code DIR it writes the Triton source Inductor builds for each case:

    PYTHONPATH=. python benchmarks/experiments/small_columns.py /tmp/small.json \
        --inductor-code /tmp/inductor

Every call is checked against a float64 (or exact integer) sum before it is
timed; the buffers and calls are the dims scenario's (benchmarks.context
.rotation) and all graphs of a case replay in turns (benchmarks.timing.graphs).
Medians in microseconds per call.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import torch
from torch._inductor.utils import run_and_get_code

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference
from benchmarks.context import DeviceInfo, Settings, rotation
from benchmarks.experiments.routing_variants import sum_v7_under
from benchmarks.inputs import Case, dtype_name, random_data
from benchmarks.peers import inductor, torch_sum
from benchmarks.scenarios.common import checked_rotating_calls
from benchmarks.timing import graphs

SHAPE_VARIABLE = "TORCH_REDUCE_COLUMN_SHAPE"
SETTINGS = Settings(eager_min_run_time=0.0, replays=10, max_calls=8192)
BLOCK = 256  # column_sum.cu's kBlock
UNROLL = 4  # its kUnroll: rows in flight a thread
BLOCKS_PER_SM = 4  # its 64-register kernels
CLUSTER_BLOCKS = 8

# (rows, columns, dtype): each summed over dim 0.
CASES = [
    (3001, 64, torch.float32),
    (2001, 32, torch.int16),
    (2000, 1000, torch.bfloat16),
    (16384, 1000, torch.float32),
    (4096, 256, torch.float32),
    (8192, 768, torch.bfloat16),
    (1024, 1024, torch.int32),
]


def band_shapes(rows: int, columns: int, dtype: torch.dtype, sm_count: int) -> list[str]:
    """TORCH_REDUCE_COLUMN_SHAPE values: bands of 2 to 32 column lanes, splits
    for 1 to 4 rounds a thread, through L2 and (up to a cluster's splits) in
    clusters, within one wave; and for each band width, a wave of splits through
    L2 and a cluster's splits."""
    vector_columns = min(16 // dtype.itemsize, 8)
    widest = min(5, math.ceil(math.log2(math.ceil(columns / vector_columns))))
    shapes = []
    for lanes_log2 in range(1, widest + 1):
        row_lanes = BLOCK >> lanes_log2
        bands = math.ceil(columns / (vector_columns << lanes_log2))
        wave_splits = BLOCKS_PER_SM * sm_count // bands
        candidates = [math.ceil(rows / (row_lanes * UNROLL * rounds)) for rounds in range(1, 5)]
        for splits in [*candidates, wave_splits, CLUSTER_BLOCKS]:
            if bands * splits > BLOCKS_PER_SM * sm_count:
                continue
            if splits > 1:
                shapes.append(f"{lanes_log2},{splits},0")
            if splits <= CLUSTER_BLOCKS:
                shapes.append(f"{lanes_log2},{splits},1")
    return sorted(set(shapes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file for {case: {peer or shape: us}}")
    parser.add_argument("--inductor-code", type=Path, help="folder for Inductor's sources")
    parser.add_argument("--no-shapes", action="store_true", help="sum_v7 as it launches only")
    args = parser.parse_args()
    device = torch.device("cuda")
    info = DeviceInfo.of(device)
    sm_count = torch.cuda.get_device_properties(device).multi_processor_count
    result = {}
    for rows, columns, dtype in CASES:
        dims = (0,)
        name = f"{dtype_name(dtype)} {rows}x{columns} dim=0"
        first = random_data((rows, columns), dtype, device)
        nbytes = first.numel() * dtype.itemsize
        plan = rotation(nbytes, nbytes, info, SETTINGS)
        buffers = [first] + [
            random_data((rows, columns), dtype, device) for _ in range(plan.buffers - 1)
        ]
        case = Case(name, dtype, lambda device, x=first: x, dims=dims)
        compiled = inductor(case)
        if args.inductor_code is not None:
            args.inductor_code.mkdir(parents=True, exist_ok=True)
            _, sources = run_and_get_code(compiled, first)
            stem = name.replace(" ", "_").replace("=", "")
            (args.inductor_code / f"{stem}.py").write_text("\n\n".join(sources))
        peers = {
            "torch.sum": torch_sum(case),
            "Inductor": compiled,
            "sum_v7": sum_v7_under(SHAPE_VARIABLE, None, dims),
        }
        if not args.no_shapes:
            shapes = band_shapes(rows, columns, dtype, sm_count)
            peers |= {shape: sum_v7_under(SHAPE_VARIABLE, shape, dims) for shape in shapes}
        steps = checked_rotating_calls(peers, buffers, reference(first, dims, False), name)
        full_sum = {"v7 full sum": torch.ops.reduce_opt.sum_v7}
        steps |= checked_rotating_calls(full_sum, buffers, reference(first, None, False), name)
        timings = graphs(steps, calls=plan.calls, replays=SETTINGS.replays)
        os.environ.pop(SHAPE_VARIABLE, None)
        result[name] = {peer: timings[peer].median_us for peer in steps}
        fixed = ["torch.sum", "Inductor", "sum_v7", "v7 full sum"]
        best = sorted((us, shape) for shape, us in result[name].items() if shape not in fixed)[:6]
        print(name, {peer: round(result[name][peer], 2) for peer in fixed}, flush=True)
        if best:
            print(
                "   best shapes:", ", ".join(f"{shape} {us:.2f}" for us, shape in best), flush=True
            )
        del buffers, first, steps, timings
        torch.cuda.empty_cache()
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
