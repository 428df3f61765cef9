"""eager: a Python loop of calls, as a model running eagerly makes them."""

from __future__ import annotations

import sys

import torch
import torch.utils.benchmark as benchmark

from benchmarks import timing
from benchmarks.check import reference
from benchmarks.context import Context
from benchmarks.inputs import flat_case, random_data, size_cases
from benchmarks.peers import PEERS
from benchmarks.runner import Outcome, check_call, run_case
from benchmarks.scenarios.common import eager_time
from benchmarks.scenarios.progress import each_case

NAME = "eager"
TITLE = "Eager: a Python loop of calls"
NEEDS_CUDA = False
METHOD = (
    "torch.utils.benchmark's Timer over a Python loop of calls on the rotating buffers "
    "(time per call: median, min and max over the Timer's blocks), the peers taking turns "
    f"over {timing.EAGER_ROUNDS} rounds. Bound by the host below "
    "about 2^20 elements, for every peer; the host cost per call is measured apart, on a "
    f"{timing.HOST_COST_NUMEL}-element float32 input, the peers taking turns over "
    f"{timing.HOST_COST_ROUNDS} rounds (median, min and max over the rounds). The roofline "
    "row is the read-only kernel's device time (CUDA graph), so its % shows how far the "
    "host is from the data. "
    "By default float32 and int32 only: the 16-bit floats' eager times are the same host "
    "cost below 2^20 and the graph times above; --dtypes runs the dtypes named."
)
TRIMMED_DTYPES = (torch.float32, torch.int32)


def run(ctx: Context) -> Outcome:
    rows, measurements = [], []
    time_fn = eager_time(ctx, measurements)
    dtypes = ctx.dtypes if ctx.dtypes_chosen else [d for d in ctx.dtypes if d in TRIMMED_DTYPES]
    for case in each_case(NAME, size_cases(ctx, dtypes=dtypes)):
        rows += run_case(ctx, NAME, case, time_fn, with_ladder=True)
    if measurements:
        compare = benchmark.Compare(measurements)
        compare.trim_significant_figures()
        if sys.stdout.isatty():
            compare.colorize(rowwise=True)
        compare.print()
    return Outcome(rows, {"host_cost": host_costs(ctx)})


def host_costs(ctx: Context) -> list[dict]:
    """Per peer, the time per call on a small input, where the host dominates."""
    case = flat_case(timing.HOST_COST_NUMEL.bit_length() - 1, torch.float32)
    x = random_data((timing.HOST_COST_NUMEL,), torch.float32, ctx.info.device)
    ref = reference(x, None, False)
    entries, fns = {}, {}
    for peer in PEERS:
        if peer.name not in ctx.peers or peer.ladder:
            continue
        entries[peer.name] = {"peer": peer.name, "numel": x.numel(), "dtype": "float32"}
        reason = peer.declines(case, x)
        fn = peer.build(case) if reason is None else None
        problem = reason or check_call(fn, x, ref)
        if problem is not None:
            status = "skipped" if reason else "WRONG"
            entries[peer.name].update(status=status, note=problem)
        else:
            fns[peer.name] = fn
    min_run_time = ctx.settings.eager_min_run_time / timing.HOST_COST_ROUNDS
    for name, cost in timing.host_costs(fns, x, min_run_time).items():
        entries[name].update(status="ok", median_us=cost.median_us,
                             min_us=cost.min_us, max_us=cost.max_us)  # fmt: skip
    return list(entries.values())
