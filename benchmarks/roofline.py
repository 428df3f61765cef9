"""The ceiling: the fastest read of the same bytes that the read-only kernel
(reduce_opt::_read_roofline) achieves, over a sweep of its launch shapes.

The kernel reads a contiguous input of the case's dtype, as many elements as
the case reads from memory, and returns one partial per block; their sum is
checked against the reference before a configuration is timed. It is timed in
a CUDA graph on rotating buffers like every graph peer. The sweep is coarse to
fine: every loads-in-flight count at the most blocks per SM that fit, then
every blocks-per-SM count at the best loads-in-flight. Results are cached per
(dtype, element count): scenarios reading the same bytes share one sweep.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from benchmarks import check, timing
from benchmarks.context import Context
from benchmarks.inputs import build_inputs, contiguous_case, dtype_name
from benchmarks.peers import CUB_DTYPES

BLOCKS_PER_SM = (16, 8, 4, 2, 1)
VECTORS_IN_FLIGHT = (1, 2, 4, 8)
DOES_NOT_FIT = "does not fit"  # the op's message when blocks_per_sm exceeds occupancy


@dataclasses.dataclass(frozen=True)
class Config:
    blocks_per_sm: int
    vectors_in_flight: int

    def __str__(self) -> str:
        return f"{self.blocks_per_sm} blocks/SM x {self.vectors_in_flight} loads in flight"


@dataclasses.dataclass(frozen=True)
class Result:
    status: str  # "ok", "WRONG" or "skipped", as in the report's rows
    note: str  # the best configuration, or what went wrong
    timing: timing.Timing | None = None
    swept: dict[str, float] = dataclasses.field(default_factory=dict)  # config -> median us


def reader(config: Config) -> Callable[[torch.Tensor], torch.Tensor]:
    op = torch.ops.reduce_opt._read_roofline
    return lambda x: op(x, config.blocks_per_sm, config.vectors_in_flight)


class Roofline:
    """Sweeps lazily, once per (dtype, numel)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.results: dict[tuple[torch.dtype, int], Result] = {}

    def measure(self, dtype: torch.dtype, numel: int) -> Result:
        key = (dtype, numel)
        if key not in self.results:
            self.results[key] = self._sweep(dtype, numel)
        return self.results[key]

    def _sweep(self, dtype: torch.dtype, numel: int) -> Result:
        if dtype not in CUB_DTYPES:  # the same four dtypes as _cub_sum
            return Result("skipped", f"no {dtype_name(dtype)} build")
        inputs = build_inputs(contiguous_case(numel, dtype), self.ctx)
        if isinstance(inputs, str):
            return Result("skipped", inputs)
        ref = check.reference(inputs.first, None, False)
        tensors, calls = inputs.tensors, inputs.rotation.calls
        timings: dict[Config, timing.Timing] = {}

        def run(config: Config) -> str | None:
            """Check and time one configuration; what is wrong with it, if anything."""
            if config in timings:
                return None
            fn = reader(config)
            try:
                partials = fn(inputs.first)
            except RuntimeError as error:
                return str(error).splitlines()[0]
            problem = check.verify(partials.sum().to(ref.torch_result.dtype), ref)
            if problem is not None:
                return f"WRONG: {config}: {problem}"
            timings[config] = timing.graph(
                lambda i: fn(tensors[i % len(tensors)]), calls, self.ctx.settings.replays
            )
            return None

        for vectors in VECTORS_IN_FLIGHT:
            for blocks in BLOCKS_PER_SM:  # the most blocks per SM that fit
                problem = run(Config(blocks, vectors))
                if problem is None or DOES_NOT_FIT not in problem:
                    break
            if problem is not None and DOES_NOT_FIT not in problem:
                return Result("WRONG", problem)
        if not timings:
            return Result("skipped", "no configuration fits on this device")
        best = min(timings, key=lambda c: timings[c].median_us)
        for blocks in BLOCKS_PER_SM:
            problem = run(Config(blocks, best.vectors_in_flight))
            if problem is not None and DOES_NOT_FIT not in problem:
                return Result("WRONG", problem)
        best = min(timings, key=lambda c: timings[c].median_us)
        swept = {str(c): t.median_us for c, t in timings.items()}
        return Result("ok", str(best), timings[best], swept)
