"""producer: the input was just written by an elementwise kernel (L2 full of
dirty lines), as in a model where a sum follows the layer that made its input."""

from __future__ import annotations

import torch

from benchmarks import timing
from benchmarks.context import Context
from benchmarks.inputs import Case, Inputs, size_cases
from benchmarks.peers import SumFn
from benchmarks.runner import Outcome, run_case
from benchmarks.scenarios.progress import each_case
from benchmarks.timing import Timing

NAME = "producer"
TITLE = "Producer: the sum right after the kernel that wrote its input"
NEEDS_CUDA = True
MIN_LOG2 = 20  # below, producer and sum share a fully L2-resident input anyway
METHOD = (
    "Inside one CUDA graph, each call is torch.neg(source, out=x) (the producer: an "
    "elementwise kernel that writes x, which it leaves equal to the checked input) followed "
    "by the sum of x, on rotating buffers. The sum's time is reported as (producer + sum) - "
    "(producer alone), medians of the two graphs; both are in the JSON "
    "(producer_plus_sum_us, producer_alone_us). "
    f"Sizes from 2^{MIN_LOG2}."
)


class ProducerTimer:
    """Times peers after the producer; the producer alone is timed once per case."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.inputs: Inputs | None = None
        self.sources: list[torch.Tensor] = []
        self.alone: Timing | None = None

    def produce(self, i: int) -> torch.Tensor:
        x = self.inputs.tensors[i % len(self.inputs.tensors)]
        return torch.neg(self.sources[i % len(self.sources)], out=x)

    def __call__(self, fn: SumFn, inputs: Inputs, case: Case, peer: str) -> Timing:
        calls, replays = inputs.rotation.calls, self.ctx.settings.replays
        if inputs is not self.inputs:
            self.inputs = inputs
            self.sources = [x.neg() for x in inputs.tensors]
            self.alone = timing.graph(self.produce, calls, replays)
        both = timing.graph(lambda i: fn(self.produce(i)), calls, replays)
        difference = both.minus(self.alone)
        return Timing(
            difference.median_us,
            difference.min_us,
            difference.max_us,
            {"producer_plus_sum_us": both.median_us, "producer_alone_us": self.alone.median_us},
        )


def run(ctx: Context) -> Outcome:
    rows = []
    for case in each_case(NAME, size_cases(ctx, MIN_LOG2)):
        rows += run_case(ctx, NAME, case, ProducerTimer(ctx))
    return Outcome(rows)
