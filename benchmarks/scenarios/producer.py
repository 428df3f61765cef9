"""producer: the input was just written by an elementwise kernel (L2 full of
dirty lines), as in a model where a sum follows the layer that made its input."""

from __future__ import annotations

from collections.abc import Callable

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
ALONE = "producer alone"  # the graph of the producer without a sum
METHOD = (
    "Inside one CUDA graph, each call is torch.neg(source, out=x) (the producer: an "
    "elementwise kernel that writes x, which it leaves equal to the checked input) followed "
    "by the sum of x, on rotating buffers. The sum's time is reported as (producer + sum) - "
    "(producer alone), medians of the two graphs; both are in the JSON "
    "(producer_plus_sum_us, producer_alone_us). Each timed replay is queued right behind an "
    "untimed replay of the same graph. The graphs of every peer and of the producer alone "
    "replay in turns. "
    f"Sizes from 2^{MIN_LOG2}."
)


def producer_time(ctx: Context):
    """Times peers after the producer, and the producer alone, their graphs in turns."""

    def time_fn(fns: dict[str, SumFn], inputs: Inputs, case: Case) -> dict[str, Timing]:
        tensors = inputs.tensors
        sources = [x.neg() for x in tensors]

        def produce(i: int) -> torch.Tensor:
            return torch.neg(sources[i % len(sources)], out=tensors[i % len(tensors)])

        def after_producer(fn: SumFn) -> Callable[[int], object]:
            return lambda i: fn(produce(i))

        steps = {ALONE: produce, **{name: after_producer(fn) for name, fn in fns.items()}}
        timings = timing.graphs(steps, inputs.rotation.calls, ctx.settings.replays)
        alone = timings.pop(ALONE)
        results = {}
        for name, both in timings.items():
            difference = both.minus(alone)
            results[name] = Timing(
                difference.median_us,
                difference.min_us,
                difference.max_us,
                {
                    **both.extra,
                    "producer_plus_sum_us": both.median_us,
                    "producer_alone_us": alone.median_us,
                },
            )
        return results

    return time_fn


def run(ctx: Context) -> Outcome:
    rows = []
    for case in each_case(NAME, size_cases(ctx, MIN_LOG2)):
        rows += run_case(ctx, NAME, case, producer_time(ctx))
    return Outcome(rows)
