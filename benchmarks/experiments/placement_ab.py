"""Graph time of Inductor and sum_v7 over whole-tensor sums, with the rotating
buffers placed at several offsets inside one slab of device memory.

On an H200, Inductor's 16-bit 2^20 sum took 3.34 us a call in one full run and
3.52 in another, with sum_v7 at 3.51 in both; on one machine four fresh
processes agreed to 0.01 us, and there fp16 and bf16 differed by 0.14 us for
Inductor alone (benchmarks/NOTES.md, session 28, call 8). No autotuning picks
Inductor's kernel there. This asks whether where the inputs lie moves either
peer: the graph scenario's rotation (benchmarks.context.rotation), its buffers
carved from one slab at a common shift (a multiple of 16 bytes, so both peers
keep their vector paths), each placement timed in turns, Inductor compiled once
per case. Each placement's first buffer is checked first (benchmarks.runner's
check_call: the benchmark's own reference, bound and error report).

Session 29 (call 2, H200) found Inductor at 3.34-3.37 or 3.52-3.55 us by
placement, with sum_v7 at 3.47-3.54, and the fp16/bf16 split at 2^10, where
the rotation is L2-resident (0.3x L2), as large for both peers alike. With
--captures K every (peer, placement) is captured K times, each its own graph
on the same buffers: times that split between captures of one placement put
the cause in what a capture allocates (Inductor's partial sums, sum_v7's
workspace), times that split only between placements put it in the inputs.

    PYTHONPATH=$PWD python benchmarks/experiments/placement_ab.py /tmp/placement.json \
        [--sizes 20,22] [--dtypes float16,bfloat16] [--captures 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from pathlib import Path

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference
from benchmarks.cli import parse_dtypes, parse_sizes
from benchmarks.context import DeviceInfo, Settings, rotation
from benchmarks.inputs import Case, dtype_name, flat_case
from benchmarks.peers import inductor
from benchmarks.runner import check_call
from benchmarks.scenarios.common import rotating_calls
from benchmarks.timing import graphs

# Bytes from a 2 MiB boundary: aligned, a DRAM page or two along, half a large
# page, and an odd multiple of 16 (a sector boundary off every power of two).
SHIFTS = [0, 4096, 65536, 1 << 20, 16 * 4099]
SETTINGS = Settings(eager_min_run_time=0.0, replays=10, max_calls=8192)
SLAB_ALIGNMENT = 2 << 20
# Inputs under 2 MiB (2^10's 8192 of 2 KB) start a page apart, not 2 MiB.
SMALL_PITCH = 4096


def carved_buffers(case: Case, copies: int, shift: int) -> list[torch.Tensor]:
    """`copies` fresh inputs of `case`, the first `shift` bytes past a 2 MiB
    boundary of one slab, each the next whole 2 MiB (or 4 KiB, for inputs under
    2 MiB) further on."""
    device = torch.device("cuda")
    first = case.make(device)
    nbytes = first.numel() * first.element_size()
    granule = SLAB_ALIGNMENT if nbytes >= SLAB_ALIGNMENT else SMALL_PITCH
    pitch = math.ceil(nbytes / granule) * granule
    slab = torch.empty(pitch * copies + SLAB_ALIGNMENT + shift, dtype=torch.uint8, device=device)
    start = -slab.data_ptr() % SLAB_ALIGNMENT + shift
    buffers = []
    for copy in range(copies):
        buffer = slab[start + copy * pitch : start + copy * pitch + nbytes].view(first.dtype)
        buffer.copy_(first if copy == 0 else case.make(device))
        buffers.append(buffer)
    return buffers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file for {case: {placement: us per call}}")
    parser.add_argument("--sizes", type=parse_sizes, default=[20, 22], help="log2 sizes")
    parser.add_argument("--dtypes", type=parse_dtypes, default=[torch.float16, torch.bfloat16])
    parser.add_argument("--captures", type=int, default=1, help="graphs per (peer, placement)")
    args = parser.parse_args()
    device_info = DeviceInfo.of(torch.device("cuda"))
    result: dict[str, dict[str, float]] = {}
    for log2, dtype in itertools.product(args.sizes, args.dtypes):
        case = flat_case(log2, dtype)
        name = f"{dtype_name(dtype)} {case.label}"
        nbytes = (1 << log2) * dtype.itemsize
        plan = rotation(nbytes, nbytes, device_info, SETTINGS)
        peers = {"Inductor": inductor(case), "sum_v7": torch.ops.reduce_opt.sum_v7}
        steps = {}
        for shift in SHIFTS:
            buffers = carved_buffers(case, plan.buffers, shift)
            expected = reference(buffers[0], None, False)
            for peer, fn in peers.items():
                wrong = check_call(fn, buffers[0], expected)
                if wrong is not None:
                    raise AssertionError(f"{peer} {name} +{shift}: {wrong}")
                for capture in range(args.captures):
                    steps[f"{peer} +{shift} #{capture}"] = rotating_calls(fn, buffers)
        timings = graphs(steps, calls=plan.calls, replays=SETTINGS.replays)
        result[name] = {step: timings[step].median_us for step in steps}
        print(name, " ".join(f"{step}: {us:.2f}" for step, us in result[name].items()), flush=True)
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
