"""Graph time of the 16-bit sums on the same bits read as fp16 and as bf16.

In six H200 full runs (sessions 40-55) sum_v7's fp16 2^24 graph took 0.05-0.16
us longer than its bf16 one, over the same bytes and code but for the
conversion to fp32 (HADD2.F32 for fp16; IMAD.U32 and LOP3 for bf16 in the
sm_90 SASS), while Inductor's fp16 was the faster of its two in four runs of six.
Whether the time follows the conversion or the bits read (the benchmark's fp16
and bf16 inputs are different random numbers) is what this separates: every
peer sums fp16 random data, the same buffers viewed as bf16, bf16 random data,
and those buffers viewed as fp16, in one graph each, the graphs replayed in
turns as the benchmark does (benchmarks/timing.py), over the benchmark's
rotation of buffers and calls (benchmarks/context.py). Every buffer is checked under each
reading before it is timed: bf16 random data read as fp16 has an RMS of ~1.8,
so from 2^26 up a sum can pass fp16's 65504, and the check would stop the run.
Run from the repository root, with the in-place build:

    python -m benchmarks.experiments.half_bits_graph --log2 22 24 26

Runs: session 56, calls 1 and 3 (benchmarks/NOTES.md), before two fixes: those
runs checked only each reading's first buffer, and their graphs of 10 calls
read 10 of the 30 buffers made at 2^22 (1.3x L2 a round, not 4x).
"""

from __future__ import annotations

import argparse

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks import timing
from benchmarks.check import reference, verify
from benchmarks.context import DeviceInfo, Rotation, Settings, rotation
from benchmarks.inputs import flat_case
from benchmarks.peers import inductor_for_input

# The benchmark's default cap on calls a graph (benchmarks/cli.py's --max-calls).
SETTINGS = Settings(eager_min_run_time=0.0, replays=30, max_calls=8192)


def inputs(log2: int, plan: Rotation) -> dict[str, list[torch.Tensor]]:
    """Four readings of two sets of plan.buffers buffers."""
    fp16 = [torch.randn(1 << log2, device="cuda").half() for _ in range(plan.buffers)]
    bf16 = [torch.randn(1 << log2, device="cuda").bfloat16() for _ in range(plan.buffers)]
    return {
        "fp16 data": fp16,
        "fp16 bits as bf16": [x.view(torch.bfloat16) for x in fp16],
        "bf16 data": bf16,
        "bf16 bits as fp16": [x.view(torch.float16) for x in bf16],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, nargs="+", default=[24])
    parser.add_argument("--replays", type=int, default=SETTINGS.replays)
    args = parser.parse_args()
    info = DeviceInfo.of(torch.device("cuda"))
    for log2 in args.log2:
        plan = rotation(2 << log2, 2 << log2, info, SETTINGS)
        readings = inputs(log2, plan)
        steps = {}
        for reading, buffers in readings.items():
            sums = {
                "sum_v7": torch.ops.reduce_opt.sum_v7,
                "Inductor": inductor_for_input(flat_case(log2, buffers[0].dtype)),
            }
            for peer, sum_of in sums.items():
                for x in buffers:
                    wrong = verify(sum_of(x), reference(x, None, False))
                    assert wrong is None, f"{peer} on {reading}: {wrong}"
                steps[f"{peer}, {reading}"] = lambda i, sum_of=sum_of, buffers=buffers: sum_of(
                    buffers[i % len(buffers)]
                )
        times = timing.graphs(steps, plan.calls, args.replays)
        for name, timed in times.items():
            spread = f"{timed.min_us:.3f}-{timed.max_us:.3f}"
            print(f"2^{log2} {name}: {timed.median_us:.3f} us ({spread})")


if __name__ == "__main__":
    main()
