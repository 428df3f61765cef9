"""Timing choices the scenarios share."""

from __future__ import annotations

from benchmarks import timing
from benchmarks.context import Context
from benchmarks.inputs import Case, Inputs, dtype_name
from benchmarks.peers import SumFn
from benchmarks.timing import Timing


def graph_time(ctx: Context):
    """Device time per call: the case's calls captured in one CUDA graph, on rotating buffers."""

    def time_fn(fn: SumFn, inputs: Inputs, case: Case, peer: str) -> Timing:
        tensors = inputs.tensors
        step = lambda i: fn(tensors[i % len(tensors)])  # noqa: E731
        return timing.graph(step, inputs.rotation.calls, ctx.settings.replays)

    return time_fn


def eager_time(ctx: Context, measurements: list | None = None):
    """Time per call of a Python loop over the rotating buffers; the Timer's
    measurements are appended to measurements for a Compare table."""

    def time_fn(fn: SumFn, inputs: Inputs, case: Case, peer: str) -> Timing:
        result, measurement = timing.eager(
            fn,
            inputs.tensors,
            ctx.settings.eager_min_run_time,
            label="sum, eager, time per call",
            sub_label=f"{dtype_name(case.dtype)} {case.label}",
            description=peer,
        )
        if measurements is not None:
            measurements.append(measurement)
        return result

    return time_fn


def device_time(ctx: Context):
    """Graph timing on CUDA; on the CPU (no graphs) the eager loop."""
    return graph_time(ctx) if ctx.info.is_cuda else eager_time(ctx)
