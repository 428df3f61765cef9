"""layouts: full sums of the non-contiguous views models produce."""

from __future__ import annotations

import torch

from benchmarks.context import Context
from benchmarks.inputs import Case, random_data
from benchmarks.runner import Outcome, run_case
from benchmarks.scenarios.common import device_time
from benchmarks.scenarios.progress import each_case

NAME = "layouts"
TITLE = "Layouts: full sums of non-contiguous views"
NEEDS_CUDA = False
METHOD = (
    "Device time per call (CUDA graph, rotating buffers) of the full sum of each view. "
    "GB/s counts the bytes the view holds (a broadcast dimension once); the roofline reads "
    "that many bytes from a contiguous tensor. On the CPU the shapes are scaled down and "
    "timed eagerly."
)
SIDE = {"cuda": 8192, "cpu": 256}  # the square matrix most views are taken from


def cases(side: int) -> list[Case]:
    f32, bf16 = torch.float32, torch.bfloat16
    cols, chans, depth = side * 125 // 256, side // 32, side // 8  # 4000, 256, 1024 at 8192

    def square(device: torch.device) -> torch.Tensor:
        return random_data((side, side), f32, device)

    def activation(device: torch.device) -> torch.Tensor:
        return random_data((32, chans, 56, 56), bf16, device)

    def channels_last(device: torch.device) -> torch.Tensor:
        return activation(device).contiguous(memory_format=torch.channels_last)

    # The contiguous tensors the dense views are taken from: their sum_v7 time
    # is what a dense view's should match.
    return [
        Case(f"{side}x{side} contiguous", f32, square),
        Case(f"{side}x{side} .t()", f32, lambda d: square(d).t()),
        Case(
            f"{side}x{side} .view(64,{side // 64},{side}).permute(2,0,1)",
            f32,
            lambda d: square(d).view(64, side // 64, side).permute(2, 0, 1),
        ),
        Case(f"{side}x{side} [::2] (every other row)", f32, lambda d: square(d)[::2]),
        Case(f"{side}x{side} [:, 1:{cols + 1}]", f32, lambda d: square(d)[:, 1 : cols + 1]),
        Case(
            f"x[0:1].expand({side},{side})",
            f32,
            lambda d: random_data((1, side), f32, d).expand(side, side),
        ),
        Case(f"32x{chans}x56x56 contiguous", bf16, activation),
        Case(f"32x{chans}x56x56 channels_last", bf16, channels_last),
        Case(
            f"(96,{depth},{depth}) [::3, 1:, :-24]",
            f32,
            lambda d: random_data((96, depth, depth), f32, d)[::3, 1:, :-24],
        ),
    ]


def run(ctx: Context) -> Outcome:
    rows = []
    for case in each_case(NAME, cases(SIDE[ctx.info.device.type])):
        rows += run_case(ctx, NAME, case, device_time(ctx))
    return Outcome(rows)
