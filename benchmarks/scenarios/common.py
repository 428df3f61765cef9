"""Timing choices the scenarios share."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import timing
from benchmarks.check import Reference
from benchmarks.context import Context
from benchmarks.inputs import Case, Inputs, dtype_name
from benchmarks.peers import SumFn
from benchmarks.runner import check_call
from benchmarks.timing import Timing


def graph_time(ctx: Context):
    """Device time per call: each peer's calls captured in one CUDA graph, on
    rotating buffers; the peers' graphs replay in turns."""

    def time_fn(fns: dict[str, SumFn], inputs: Inputs, case: Case) -> dict[str, Timing]:
        tensors = inputs.tensors
        steps = {name: rotating_calls(fn, tensors) for name, fn in fns.items()}
        return timing.graphs(steps, inputs.rotation.calls, ctx.settings.replays)

    return time_fn


def rotating_calls(fn: SumFn, tensors: list) -> Callable[[int], object]:
    """Call i of fn, on the rotation's i-th buffer."""
    return lambda i: fn(tensors[i % len(tensors)])


def checked_rotating_calls(
    fns: dict[str, SumFn], tensors: list, ref: Reference, what: str
) -> dict[str, Callable[[int], object]]:
    """rotating_calls of each fn, once its result on tensors[0] matches ref (an
    AssertionError naming the fn and `what` where it does not)."""
    steps = {}
    for name, fn in fns.items():
        wrong = check_call(fn, tensors[0], ref)
        if wrong is not None:
            raise AssertionError(f"{name} {what}: {wrong}")
        steps[name] = rotating_calls(fn, tensors)
    return steps


def eager_time(ctx: Context, measurements: list | None = None):
    """Time per call of a Python loop over the rotating buffers, the peers
    taking turns; the Timer's measurements are appended to measurements for a
    Compare table."""

    def time_fn(fns: dict[str, SumFn], inputs: Inputs, case: Case) -> dict[str, Timing]:
        timed = timing.eager(
            fns,
            inputs.tensors,
            ctx.settings.eager_min_run_time,
            label="sum, eager, time per call",
            sub_label=f"{dtype_name(case.dtype)} {case.label}",
        )
        if measurements is not None:
            measurements.extend(measurement for _, measurement in timed.values())
        return {peer: result for peer, (result, _) in timed.items()}

    return time_fn


def device_time(ctx: Context):
    """Graph timing on CUDA; on the CPU (no graphs) the eager loop."""
    return graph_time(ctx) if ctx.info.is_cuda else eager_time(ctx)
