"""dims: sums over dims on the shapes models use (issue 13's list; a batch of
3-column bfloat16 rows: interleaved columns off the vector boundaries; and a bias
gradient over GPT-2's odd vocabulary: wide rows off the vector boundaries)."""

from __future__ import annotations

import torch

from benchmarks.context import Context
from benchmarks.inputs import Case, random_data
from benchmarks.runner import Outcome, run_case
from benchmarks.scenarios.common import device_time
from benchmarks.scenarios.progress import each_case

NAME = "dims"
TITLE = "Dims: sums over dims on model shapes"
NEEDS_CUDA = False
METHOD = (
    "Device time per call (CUDA graph, rotating buffers) of torch.sum(x, dims) and its "
    "peers; sum_v7 through its dim_IntList overload, sum_v7(x, dims, keepdim). GB/s counts "
    "the input's bytes; the roofline reads that many bytes from a contiguous tensor. On the "
    "CPU every large dimension is scaled down and the sums are timed eagerly."
)
F32, BF16, I32 = torch.float32, torch.bfloat16, torch.int32
# (shape, dtype, dims, channels_last)
SHAPES = [
    ((8192, 4096), F32, (-1,), False),
    ((8192, 4096), F32, (0,), False),
    ((16, 2048, 4096), BF16, (-1,), False),
    ((16, 2048, 4096), BF16, (0, 1), False),
    ((32, 256, 56, 56), BF16, (2, 3), False),
    ((32, 256, 56, 56), BF16, (2, 3), True),
    ((4096, 32000), F32, (-1,), False),
    ((1, 4096), F32, (-1,), False),
    ((10**6, 3), F32, (0,), False),
    ((3, 10**6), F32, (1,), False),
    ((64, 1024, 64), F32, (1,), False),
    ((1024, 1024), I32, (0,), False),
    ((8, 2**20, 3), BF16, (1,), False),
    ((2048, 50257), BF16, (0,), False),
]


def scaled(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The CPU smoke run's shape: large dimensions divided so that it runs in milliseconds."""
    return tuple(d // 32 if d >= 1024 else d // 8 if d >= 256 else d for d in shape)


def case(shape: tuple[int, ...], dtype: torch.dtype, dims: tuple[int, ...], nhwc: bool) -> Case:
    def make(device: torch.device) -> torch.Tensor:
        x = random_data(shape, dtype, device)
        return x.contiguous(memory_format=torch.channels_last) if nhwc else x

    size = "x".join(map(str, shape))
    layout = " channels_last" if nhwc else ""
    dim_text = ",".join(map(str, dims))
    return Case(f"{size}{layout} dim=({dim_text})", dtype, make, dims=dims)


def run(ctx: Context) -> Outcome:
    on_cpu = not ctx.info.is_cuda
    cases = [case(scaled(s) if on_cpu else s, dtype, dims, nhwc) for s, dtype, dims, nhwc in SHAPES]
    rows = []
    for c in each_case(NAME, cases):
        rows += run_case(ctx, NAME, c, device_time(ctx))
    return Outcome(rows)
