"""Check, then time, every peer on a case; the rows of the report and the
columns derived from them (GB/s, % of the fastest read, speed against torch.sum)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import torch

from benchmarks import check
from benchmarks.context import Context
from benchmarks.inputs import Case, Inputs, build_inputs, dtype_name
from benchmarks.peers import PEERS, ROOFLINE, TORCH_SUM, SumFn
from benchmarks.timing import Timing

# Times each checked peer's fn (by peer name) on the case's inputs; the
# scenario decides how, and whether the peers take turns.
TimeFn = Callable[[dict[str, SumFn], Inputs, Case], dict[str, Timing]]


@dataclasses.dataclass
class Outcome:
    """What a scenario returns: its rows, and anything else it measured (JSON-ready)."""

    rows: list[Row]
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Row:
    scenario: str
    case: str
    dtype: str
    shape: list[int]
    dims: list[int] | None
    log2: int | None
    read_bytes: int
    rotation: str | None  # how the inputs were rotated
    peer: str
    status: str  # "ok", "WRONG" (never timed) or "skipped"
    note: str | None = None  # the error, the reason for skipping, the roofline's configuration
    median_us: float | None = None
    min_us: float | None = None
    max_us: float | None = None
    gbs: float | None = None  # read_bytes / median time
    pct_of_fastest_read: float | None = None
    vs_torch_sum: float | None = None  # torch.sum's time / this time: above 1 is faster
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


def run_case(
    ctx: Context, scenario: str, case: Case, time_fn: TimeFn, with_ladder: bool = False
) -> list[Row]:
    """Rows for every chosen peer on the case, the roofline's last."""
    inputs = build_inputs(case, ctx)
    x = inputs.first if isinstance(inputs, Inputs) else case.make(torch.device("meta"))
    nbytes = inputs.read_bytes if isinstance(inputs, Inputs) else 0
    rotation = inputs.rotation.describe(nbytes, ctx.info.l2_bytes) if nbytes else None
    dims = list(case.dims) if case.dims is not None else None

    def row(peer: str, status: str, note: str | None = None, **fields: Any) -> Row:
        shape = list(x.shape)
        return Row(scenario, case.label, dtype_name(case.dtype), shape, dims, case.log2, nbytes,
                   rotation, peer, status, note, **fields)  # fmt: skip

    if isinstance(inputs, str):
        return [row(TORCH_SUM, "skipped", inputs)]
    ref = check.reference(x, case.dims, case.keepdim)
    ladder_applies = with_ladder and case.dims is None and case.dtype == torch.float32
    # Every peer is checked (and warmed up) before any is timed, so that the
    # scenario can time them in turns.
    rows: dict[str, Row | None] = {}
    fns: dict[str, SumFn] = {}
    first_call_s: dict[str, float] = {}
    for peer in PEERS:
        if peer.name not in ctx.peers or (peer.ladder and not ladder_applies):
            continue
        reason = peer.declines(case, x)
        if reason is not None:
            rows[peer.name] = row(peer.name, "skipped", reason)
            continue
        fn = peer.build(case)
        started = time.perf_counter()
        problem = check_call(fn, x, ref)  # also the warm-up (and Inductor's compile)
        first_call_s[peer.name] = time.perf_counter() - started
        if problem is not None:
            rows[peer.name] = row(peer.name, "WRONG", problem)
            continue
        rows[peer.name] = None  # timed below, listed in the peers' order
        fns[peer.name] = fn
    timings = time_fn(fns, inputs, case) if fns else {}
    assert timings.keys() == fns.keys(), f"{scenario}: timed {list(timings)} of {list(fns)}"
    for name, timing in timings.items():
        extra = {"first_call_s": first_call_s[name], **timing.extra}
        rows[name] = row(name, "ok", None, median_us=timing.median_us, min_us=timing.min_us,
                         max_us=timing.max_us, extra=extra)  # fmt: skip
    rows = [r for r in rows.values() if r is not None]
    if ROOFLINE in ctx.peers:
        rows.append(roofline_row(ctx, case, nbytes, row))
    fill_derived(rows)
    return rows


def check_call(fn: SumFn, x: torch.Tensor, ref: check.Reference) -> str | None:
    try:
        output = fn(x)
    except Exception as error:  # any failure of the op is a wrong result
        return f"raised {type(error).__name__}: {str(error).strip().splitlines()[0]}"
    return check.verify(output, ref)


def roofline_row(ctx: Context, case: Case, nbytes: int, row: Callable[..., Row]) -> Row:
    """The read-only kernel over as many contiguous bytes as the case reads."""
    if ctx.roofline is None:
        return row(ROOFLINE, "skipped", "needs CUDA")
    result = ctx.roofline.measure(case.dtype, nbytes // case.dtype.itemsize)
    if result.timing is None:
        return row(ROOFLINE, result.status, result.note)
    t = result.timing
    return row(ROOFLINE, "ok", f"CUDA graph, {result.note}", median_us=t.median_us,
               min_us=t.min_us, max_us=t.max_us, extra={"swept_us": result.swept})  # fmt: skip


def fill_derived(rows: list[Row]) -> None:
    """GB/s, % of the fastest read of the case (the fastest of the roofline and
    every peer, so never above 100), and speed against torch.sum."""
    timed = [r for r in rows if r.median_us is not None and r.median_us > 0]
    if not timed:
        return
    fastest = min(r.median_us for r in timed)
    base = next((r.median_us for r in timed if r.peer == TORCH_SUM), None)
    for r in timed:
        r.gbs = r.read_bytes / r.median_us / 1e3  # bytes per us -> GB/s
        r.pct_of_fastest_read = 100 * (fastest / r.median_us)  # exactly 100 for the fastest
        r.vs_torch_sum = base / r.median_us if base is not None else None
