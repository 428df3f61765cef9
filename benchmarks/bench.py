"""Benchmark the reduce_opt sum kernels (sum_v0 .. sum_v7) against torch.sum.

Every (op, dtype, size) is first checked against a float64 reference on the very
buffer it will be timed on; a wrong result is reported as WRONG and never timed,
so a broken kernel can never look fast. Inputs that fit in L2 are timed cold, by
rotating over enough distinct buffers to flush it: a reduction over data already
in L2 measures the cache, not the kernel.

Each op is timed twice on CUDA. "eager" is a Python loop of calls, what a
model running eagerly sees; below ~2^20 elements it is bound by the host (the
Python call and the launch), for torch.sum and for the ops alike. "graph"
replays the same calls captured in a CUDA graph, which removes the host and
measures the GPU: the kernels, and the gaps between their launches. Under
capture sum_v7 takes its two-launch path (its single-launch path needs a
counter owned by the stream), so its graph time includes one more launch than
its eager path runs.

Bandwidth is put against a streaming ceiling measured in the same run (a
device-to-device copy), and the host-side cost per call is measured on its own
with a 1K-element input, where the launch path, not the data, dominates.

    python benchmarks/bench.py                  # CUDA, v0..v7, 2^10 .. 2^30 elements
    python benchmarks/bench.py --quick          # 2^16, 2^20, 2^25, shorter timing
    python benchmarks/bench.py --device cpu --sizes 10,12 --versions 0,7 --dtypes float32

Writes results.json, summary.md and, with matplotlib, bandwidth.png and steps.png
to --out. Exits 1 if any op gave a wrong result, 2 if CUDA is wanted but absent.
"""

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
import torch.utils.benchmark as benchmark

import torch_reduce
from torch_reduce.testing import sum_error_bound

NO_CUDA_MESSAGE = "no CUDA device: run with --device cpu to benchmark the CPU implementation"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "latest"
TORCH_SUM = "torch.sum"
DEFAULT_SIZES = tuple(range(10, 31))
QUICK_SIZES = (16, 20, 25)
# By default float32 runs every version; these run only sum_v7 and torch.sum.
EXTRA_DTYPES = (torch.float16, torch.bfloat16)
STEP_TABLE_SIZES = (22, 25)
SEED = 0

L2_FLUSH_FACTOR = 4
MAX_BUFFERS = 4096
# The float64 reference is summed in chunks so that its temporaries stay small
# next to a 2^30-element input.
REFERENCE_CHUNK = 1 << 24
# A size is run only if its buffers fit in this fraction of free memory, less the
# reserve (room for the reference's chunks, op outputs and allocator rounding).
MEMORY_FRACTION = 0.9
MEMORY_RESERVE = 1 << 29

CEILING_METHOD = "device-to-device copy, read+write bytes"
CEILING_NUMEL = {"cuda": 256 << 20, "cpu": 32 << 20}
HOST_COST_NUMEL = 1024


@dataclasses.dataclass(frozen=True)
class Op:
    name: str
    fn: Callable[[torch.Tensor], torch.Tensor]


@dataclasses.dataclass
class Row:
    """One (op, dtype, size) result; the derived columns are filled in once all ran."""

    op: str
    dtype: str
    numel: int
    log2: int
    input_bytes: int
    status: str  # "ok" or "WRONG"
    error: str | None = None
    time_us: float | None = None  # eager
    bandwidth_gbs: float | None = None
    pct_of_ceiling: float | None = None
    speedup_vs_torch_sum: float | None = None
    graph_time_us: float | None = None  # CUDA graph replay (CUDA only)
    graph_speedup_vs_torch_sum: float | None = None


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    device: torch.device
    name: str
    sm_count: int | None
    l2_bytes: int | None  # None on CPU: no cold-cache rotation there


Work = list[tuple[torch.dtype, list[Op], int, int]]  # (dtype, ops, log2, buffer count)


# ---------------------------------------------------------------------------
# Command line


def parse_versions(text: str) -> list[int]:
    count = len(torch_reduce.VERSIONS)
    try:
        versions = sorted({int(v) for v in text.split(",")})
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from error
    if not all(0 <= v < count for v in versions):
        raise argparse.ArgumentTypeError(f"versions must be in 0..{count - 1}, got {text!r}")
    return versions


def parse_sizes(text: str) -> list[int]:
    """'10:30' is an inclusive log2 range, '16,20,25' a list of log2 sizes."""
    try:
        if ":" in text:
            low, high = (int(part) for part in text.split(":"))
            sizes = list(range(low, high + 1))
        else:
            sizes = sorted({int(part) for part in text.split(",")})
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            f"expected LOW:HIGH or a list of log2 sizes: {text!r}"
        ) from error
    if not sizes or min(sizes) < 0 or max(sizes) > 40:
        raise argparse.ArgumentTypeError(f"log2 sizes must be in 0..40, got {text!r}")
    return sizes


def parse_dtypes(text: str) -> list[torch.dtype]:
    dtypes = []
    for name in text.split(","):
        dtype = getattr(torch, name, None)
        if dtype not in torch_reduce.SUPPORTED_DTYPES:
            raise argparse.ArgumentTypeError(f"unsupported dtype {name!r}")
        dtypes.append(dtype)
    return dtypes


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--versions", type=parse_versions, default=[v.number for v in torch_reduce.VERSIONS]
    )
    parser.add_argument("--sizes", type=parse_sizes, help="log2 sizes: LOW:HIGH or a,b,c")
    parser.add_argument(
        "--dtypes",
        type=parse_dtypes,
        help="for every version (default: float32 for all, float16 and bfloat16 for v7)",
    )
    parser.add_argument("--quick", action="store_true", help="sizes 2^16, 2^20, 2^25, less timing")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-plot", action="store_true")
    return parser.parse_args(argv)


def choose_min_run_time(args: argparse.Namespace) -> float:
    """Seconds of timing per measurement: the CPU smoke run and --quick must be fast."""
    if args.device == "cpu":
        return 0.05
    return 0.1 if args.quick else 0.3


def build_plan(
    versions: list[int], dtypes: list[torch.dtype] | None
) -> list[tuple[torch.dtype, list[Op]]]:
    """(dtype, ops to run at that dtype), torch.sum first so it leads the Compare table."""
    torch_sum = Op(TORCH_SUM, torch.sum)
    ops = {v: Op(f"sum_v{v}", getattr(torch.ops.reduce_opt, f"sum_v{v}")) for v in versions}
    everything = [torch_sum, *ops.values()]
    if dtypes is not None:
        return [(dtype, everything) for dtype in dtypes]
    plan = [(torch.float32, everything)]
    if 7 in ops:
        plan += [(dtype, [torch_sum, ops[7]]) for dtype in EXTRA_DTYPES]
    return plan


# ---------------------------------------------------------------------------
# Device and memory


def device_info(device: torch.device) -> DeviceInfo:
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        return DeviceInfo(device, props.name, props.multi_processor_count, props.L2_cache_size)
    name = f"CPU ({platform.machine()}, {torch.get_num_threads()} threads)"
    return DeviceInfo(device, name, None, None)


def free_bytes(device: torch.device) -> int | None:
    """Free memory on the device, or None where the platform cannot say."""
    if device.type == "cuda":
        torch.cuda.empty_cache()  # memory cached by PyTorch's allocator is free to us
        return torch.cuda.mem_get_info(device)[0]
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def fits(nbytes: int, free: int | None) -> bool:
    return free is None or nbytes + MEMORY_RESERVE <= MEMORY_FRACTION * free


def buffer_count(nbytes: int, l2_bytes: int | None) -> int:
    """How many distinct buffers to rotate through so that together they flush L2."""
    if l2_bytes is None:
        return 1
    return min(MAX_BUFFERS, max(1, math.ceil(L2_FLUSH_FACTOR * l2_bytes / nbytes)))


def cold_l2_method(count: int, nbytes: int, l2_bytes: int | None) -> str:
    if l2_bytes is None:
        return "single buffer (CPU: caches not flushed)"
    if count == 1:
        return "single buffer larger than L2"
    total = count * nbytes
    capped = f" (capped at {MAX_BUFFERS} buffers)" if count == MAX_BUFFERS else ""
    return (
        f"rotating {count} buffers totalling {total / 1e6:.1f} MB, "
        f"{total / l2_bytes:.1f}x L2{capped}"
    )


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def random_input(numel: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """Zero-mean floats, mixed-sign integers: data where a wrong sum shows."""
    if dtype.is_floating_point:
        return torch.randn(numel, dtype=dtype, device=device)
    if dtype == torch.bool:
        return torch.rand(numel, device=device) < 0.5
    low = 0 if dtype == torch.uint8 else -100
    return torch.randint(low, 100, (numel,), dtype=dtype, device=device)


# ---------------------------------------------------------------------------
# Measurement


def make_timer(stmt: str, names: dict[str, Any], **labels: str) -> benchmark.Timer:
    """A Timer for stmt over names that lets torch use all its threads: Timer's
    default of one thread would starve torch.sum and the ops on the CPU."""
    return benchmark.Timer(stmt, globals=names, num_threads=torch.get_num_threads(), **labels)


def float64_sums(x: torch.Tensor) -> tuple[float, float]:
    """sum(x) and sum(|x|) in float64, chunk by chunk to bound temporary memory."""
    total = abs_total = 0.0
    for chunk in x.split(REFERENCE_CHUNK):
        wide = chunk.double()
        total += wide.sum().item()
        abs_total += wide.abs().sum().item()
    return total, abs_total


def check_result(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> str | None:
    """None if fn(x) matches the reference, else what went wrong.

    Floats may differ from the float64 sum by torch_reduce.testing's bound (what
    a tree sum in the accumulation type can lose, or twice what torch.sum loses,
    plus the output's rounding). Integers must be exact.
    """
    try:
        result = fn(x)
    except RuntimeError as error:  # unsupported input, failed launch, ...
        return f"raised {type(error).__name__}: {str(error).splitlines()[0]}"
    expected = torch.sum(x)
    if result.dtype != expected.dtype or result.dim() != 0:
        got = f"shape {tuple(result.shape)} {result.dtype}"
        return f"returned {got}, expected a 0-dim {expected.dtype}"
    if not x.dtype.is_floating_point:
        got, want = result.item(), expected.item()
        return None if got == want else f"{got} != {want} (integers must be exact)"
    reference, abs_sum = float64_sums(x)
    torch_error = abs(expected.double().item() - reference)
    tolerance = sum_error_bound(x.dtype, x.numel(), abs_sum, reference, torch_error)
    value = result.double().item()
    error = abs(value - reference)
    if error <= tolerance:
        return None
    return f"|{value:.9g} - {reference:.9g}| = {error:.3g} > tolerance {tolerance:.3g}"


def time_per_call(
    op: Op, buffers: list[torch.Tensor], sub_label: str, min_run_time: float
) -> benchmark.Measurement:
    """Median time of one call, with every call on a buffer the previous ones evicted.

    The statement runs op once per buffer; the measurement is rescaled so that its
    times (and the Compare table) are per call, i.e. the loop's time / len(buffers).
    """
    timer = make_timer(
        "for b in buffers: fn(b)",
        {"fn": op.fn, "buffers": buffers},
        label="sum of all elements, time per call",
        sub_label=sub_label,
        description=op.name,
    )
    measurement = timer.blocked_autorange(min_run_time=min_run_time)
    return dataclasses.replace(
        measurement, number_per_run=measurement.number_per_run * len(buffers)
    )


def graph_time_per_call(op: Op, buffers: list[torch.Tensor], min_run_time: float) -> float:
    """Median seconds per call when the calls over all buffers replay as one CUDA graph."""
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for b in buffers:
            op.fn(b)
    measurement = make_timer("graph.replay()", {"graph": graph}).blocked_autorange(
        min_run_time=min_run_time
    )
    return measurement.median / len(buffers)


def measure_ceiling(info: DeviceInfo, min_run_time: float) -> dict[str, Any]:
    """Streaming ceiling: bytes read + written per second by a large copy."""
    numel = CEILING_NUMEL[info.device.type]
    free = free_bytes(info.device)
    while numel > 1 << 20 and not fits(2 * 4 * numel, free):
        numel //= 2
    src = torch.randn(numel, device=info.device)
    dst = torch.empty_like(src)
    timer = make_timer("dst.copy_(src)", {"src": src, "dst": dst})
    median = timer.blocked_autorange(min_run_time=min_run_time).median
    moved = src.nbytes + dst.nbytes
    return {
        "method": CEILING_METHOD,
        "numel": numel,
        "bytes_moved": moved,
        "time_us": median * 1e6,
        "bandwidth_gbs": moved / median / 1e9,
    }


def measure_host_cost(info: DeviceInfo, min_run_time: float) -> dict[str, Any]:
    """Cost per call of a 1K-element sum, where the host side (dispatch, launch) dominates.

    blocked_autorange grows its block until the synchronisation at either end is
    under 0.01% of it, so each block is thousands of calls with no sync inside.
    """
    x = torch.randn(HOST_COST_NUMEL, device=info.device)
    result: dict[str, Any] = {"numel": HOST_COST_NUMEL, "dtype": "float32"}
    for name, fn in ((TORCH_SUM, torch.sum), ("sum_v7", torch.ops.reduce_opt.sum_v7)):
        fn(x)
        measurement = make_timer("fn(x)", {"fn": fn, "x": x}).blocked_autorange(
            min_run_time=min_run_time
        )
        result[name] = {
            "us_per_call": measurement.median * 1e6,
            "calls_per_block": measurement.number_per_run,
        }
    result["ratio_v7_over_torch_sum"] = (
        result["sum_v7"]["us_per_call"] / result[TORCH_SUM]["us_per_call"]
    )
    return result


def plan_work(
    plan: list[tuple[torch.dtype, list[Op]]], sizes: list[int], info: DeviceInfo
) -> tuple[Work, list[dict[str, Any]]]:
    """Every (dtype, size) of the plan whose buffers fit in free memory, and those that do not."""
    free = free_bytes(info.device)
    work, skipped = [], []
    for dtype, ops in plan:
        for log2 in sizes:
            nbytes = (1 << log2) * dtype.itemsize
            count = buffer_count(nbytes, info.l2_bytes)
            if fits(count * nbytes, free):
                work.append((dtype, ops, log2, count))
                continue
            skipped.append({"dtype": dtype_name(dtype), "log2": log2, "bytes": count * nbytes})
            print(
                f"skipping {dtype_name(dtype)} 2^{log2}: {count * nbytes / 1e9:.2f} GB of "
                f"buffers do not fit in {free / 1e9:.2f} GB free with margin",
                file=sys.stderr,
            )
    return work, skipped


def run_benchmarks(
    work: Work, info: DeviceInfo, min_run_time: float
) -> tuple[list[Row], list[benchmark.Measurement], list[dict[str, Any]]]:
    """Check, then time, every op at every (dtype, size) of the work.

    Returns the rows, the Timer measurements and the cold-L2 method per (dtype, size).
    """
    total = sum(len(ops) for _, ops, _, _ in work)
    rows, measurements, cold_l2 = [], [], []
    for dtype, ops, log2, count in work:
        name, numel = dtype_name(dtype), 1 << log2
        buffers = [random_input(numel, dtype, info.device) for _ in range(count)]
        method = cold_l2_method(count, numel * dtype.itemsize, info.l2_bytes)
        cold_l2.append({"dtype": name, "log2": log2, "buffers": count, "method": method})
        print(f"{name} 2^{log2}: {method}", file=sys.stderr)
        for op in ops:
            progress = f"[{len(rows) + 1}/{total}] {op.name} {name} 2^{log2} ..."
            # The check is also the warm-up call (kernel loading, allocator).
            error = check_result(op.fn, buffers[0])
            status = "ok" if error is None else "WRONG"
            row = Row(op.name, name, numel, log2, numel * dtype.itemsize, status, error)
            if error is None:
                measurement = time_per_call(op, buffers, f"{name} 2^{log2}", min_run_time)
                measurements.append(measurement)
                row.time_us = measurement.median * 1e6
                timing = f"{row.time_us:,.1f} us"
                if info.device.type == "cuda":
                    row.graph_time_us = graph_time_per_call(op, buffers, min_run_time) * 1e6
                    timing += f", graph {row.graph_time_us:,.1f} us"
                print(f"{progress} {timing}", file=sys.stderr)
            else:
                print(f"{progress} WRONG: {error}", file=sys.stderr)
            rows.append(row)
        del buffers
        if info.device.type == "cuda":
            torch.cuda.empty_cache()
    return rows, measurements, cold_l2


# ---------------------------------------------------------------------------
# Derived numbers


def fill_derived(rows: list[Row], ceiling_gbs: float) -> None:
    """Bandwidth, % of the ceiling and speedup vs torch.sum at the same dtype and size."""
    torch_rows = {(r.dtype, r.numel): r for r in rows if r.op == TORCH_SUM}
    for row in rows:
        if row.time_us is None:
            continue
        row.bandwidth_gbs = row.input_bytes / row.time_us / 1e3  # bytes/us -> GB/s
        row.pct_of_ceiling = 100 * row.bandwidth_gbs / ceiling_gbs
        base = torch_rows.get((row.dtype, row.numel))
        if base is None or base.time_us is None:
            continue
        row.speedup_vs_torch_sum = base.time_us / row.time_us
        if row.graph_time_us is not None and base.graph_time_us is not None:
            row.graph_speedup_vs_torch_sum = base.graph_time_us / row.graph_time_us


def step_tables(rows: list[Row]) -> dict[int, list[dict[str, Any]]]:
    """Harris-style v0 -> v7 tables at the step sizes where every version ran correctly."""
    by_key = {(r.op, r.dtype, r.log2): r for r in rows if r.time_us is not None}
    tables = {}
    for log2 in STEP_TABLE_SIZES:
        steps = [by_key.get((f"sum_v{v.number}", "float32", log2)) for v in torch_reduce.VERSIONS]
        if any(row is None for row in steps):
            continue
        table = []
        for i, (version, row) in enumerate(zip(torch_reduce.VERSIONS, steps, strict=True)):
            previous = steps[max(i - 1, 0)]
            table.append(
                {
                    "version": version.number,
                    "name": version.name,
                    "time_us": row.time_us,
                    "bandwidth_gbs": row.bandwidth_gbs,
                    "step_speedup": previous.time_us / row.time_us,
                    "cumulative_speedup": steps[0].time_us / row.time_us,
                }
            )
        tables[log2] = table
    return tables


# ---------------------------------------------------------------------------
# Reporting


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table padded to column width, so it also reads as plain text."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def rows_table(rows: list[Row]) -> str:
    headers = [
        "op",
        "dtype",
        "numel",
        "log2",
        "time (us)",
        "GB/s",
        "% ceiling",
        "vs torch.sum",
        "graph (us)",
        "graph vs torch.sum",
    ]
    body = [
        [
            r.op,
            r.dtype,
            str(r.numel),
            str(r.log2),
            "WRONG" if r.status == "WRONG" else fmt(r.time_us, ",.2f"),
            fmt(r.bandwidth_gbs, ",.1f"),
            fmt(r.pct_of_ceiling, ".1f"),
            fmt(r.speedup_vs_torch_sum, ".2f"),
            fmt(r.graph_time_us, ",.2f"),
            fmt(r.graph_speedup_vs_torch_sum, ".2f"),
        ]
        for r in rows
    ]
    return markdown_table(headers, body)


def v7_table(rows: list[Row]) -> str | None:
    """sum_v7 next to torch.sum at every dtype and size where both were measured."""
    torch_rows = {(r.dtype, r.log2): r for r in rows if r.op == TORCH_SUM}
    body = []
    for r in rows:
        base = torch_rows.get((r.dtype, r.log2))
        if r.op != "sum_v7" or base is None:
            continue
        body.append(
            [
                r.dtype,
                f"2^{r.log2}",
                fmt(base.time_us, ",.2f"),
                "WRONG" if r.status == "WRONG" else fmt(r.time_us, ",.2f"),
                fmt(r.speedup_vs_torch_sum, ".2f"),
                fmt(r.bandwidth_gbs, ",.1f"),
                fmt(r.pct_of_ceiling, ".1f"),
                fmt(base.graph_time_us, ",.2f"),
                fmt(r.graph_time_us, ",.2f"),
                fmt(r.graph_speedup_vs_torch_sum, ".2f"),
            ]
        )
    if not body:
        return None
    headers = [
        "dtype",
        "numel",
        "torch.sum (us)",
        "sum_v7 (us)",
        "speedup",
        "v7 GB/s",
        "v7 % ceiling",
        "graph: torch.sum (us)",
        "graph: sum_v7 (us)",
        "graph speedup",
    ]
    return markdown_table(headers, body)


def step_table_markdown(log2: int, table: list[dict[str, Any]]) -> str:
    headers = ["version", "name", "time (us)", "GB/s", "step speedup", "cumulative speedup"]
    body = [
        [
            f"sum_v{s['version']}",
            s["name"],
            f"{s['time_us']:,.2f}",
            f"{s['bandwidth_gbs']:,.1f}",
            f"{s['step_speedup']:.2f}x",
            f"{s['cumulative_speedup']:.2f}x",
        ]
        for s in table
    ]
    return f"Step table, float32, 2^{log2} elements:\n\n" + markdown_table(headers, body)


def ceiling_line(ceiling: dict[str, Any]) -> str:
    return (
        f"Streaming ceiling: {ceiling['bandwidth_gbs']:,.1f} GB/s "
        f"({CEILING_METHOD}; {ceiling['numel']} float32 elements, {ceiling['time_us']:,.1f} us)"
    )


def host_cost_line(host: dict[str, Any]) -> str:
    return (
        f"Host-side cost per call ({host['numel']} float32 elements, no sync in the loop): "
        f"sum_v7 {host['sum_v7']['us_per_call']:.2f} us, "
        f"torch.sum {host[TORCH_SUM]['us_per_call']:.2f} us, "
        f"ratio {host['ratio_v7_over_torch_sum']:.2f}"
    )


def cold_l2_lines(cold_l2: list[dict[str, Any]]) -> str:
    return "\n".join(f"- {c['dtype']} 2^{c['log2']}: {c['method']}" for c in cold_l2)


def summary_markdown(
    info: DeviceInfo,
    metadata: dict[str, Any],
    rows: list[Row],
    tables: dict[int, list[dict[str, Any]]],
    ceiling: dict[str, Any],
    host: dict[str, Any],
    cold_l2: list[dict[str, Any]],
    skipped: list[dict[str, Any]],
) -> str:
    parts = [
        "# torch_reduce benchmark",
        f"{info.name}, torch {metadata['torch_version']} (CUDA {metadata['cuda_version']}), "
        f"{metadata['date']}\n\n`{metadata['command']}`",
        "## sum_v7 vs torch.sum",
        "Times per call, cold L2. Eager: a Python loop of calls (host-bound below ~2^20). "
        "Graph: the same calls replayed as one CUDA graph (device time; sum_v7 runs its "
        "two-launch capture path there). Speedup = torch.sum time / sum_v7 time.",
        v7_table(rows) or "sum_v7 and torch.sum were not both measured.",
        "## Steps v0 -> v7",
        "\n\n".join(step_table_markdown(n, t) for n, t in tables.items())
        or "No step table: needs every version at 2^22 or 2^25 float32.",
        "## Host-side cost",
        host_cost_line(host),
        "## Streaming ceiling",
        ceiling_line(ceiling),
        "## Cold L2",
        cold_l2_lines(cold_l2),
    ]
    if skipped:
        parts += ["## Skipped: not enough free memory"]
        parts += ["\n".join(f"- {s['dtype']} 2^{s['log2']}" for s in skipped)]
    wrong = [r for r in rows if r.status == "WRONG"]
    if wrong:
        parts += ["## WRONG results (not timed)"]
        parts += ["\n".join(f"- {r.op} {r.dtype} 2^{r.log2}: {r.error}" for r in wrong)]
    return "\n\n".join(parts) + "\n"


def write_plots(
    out: Path,
    info: DeviceInfo,
    rows: list[Row],
    tables: dict[int, list[dict[str, Any]]],
    ceiling_gbs: float,
) -> None:
    """bandwidth.png (float32 GB/s vs size) and steps.png (the largest step table)."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no plots", file=sys.stderr)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name in dict.fromkeys(r.op for r in rows):
        points = [(r.numel, r.bandwidth_gbs) for r in rows if r.op == name and r.dtype == "float32"]
        points = [(n, bw) for n, bw in points if bw is not None]
        if points:
            ax.plot(*zip(*points, strict=True), marker="o", markersize=3, label=name)
    ax.axhline(ceiling_gbs, color="black", linestyle="--", label=f"ceiling ({CEILING_METHOD})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements (float32)")
    ax.set_ylabel("effective bandwidth, input bytes / time (GB/s)")
    ax.set_title(f"Sum of all elements, {info.name}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out / "bandwidth.png", dpi=120)
    plt.close(fig)

    if not tables:
        print("no step table: no steps.png", file=sys.stderr)
        return
    log2 = max(tables)
    steps = tables[log2]
    fig, ax = plt.subplots(figsize=(8, 5))
    bars = ax.bar([f"v{s['version']}" for s in steps], [s["time_us"] for s in steps])
    ax.bar_label(bars, labels=[f"{s['cumulative_speedup']:.1f}x" for s in steps], fontsize="small")
    ax.set_ylabel("time per call (us)")
    ax.set_title(f"float32, 2^{log2} elements, {info.name}: time and cumulative speedup vs v0")
    fig.tight_layout()
    fig.savefig(out / "steps.png", dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(NO_CUDA_MESSAGE, file=sys.stderr)
        return 2
    torch.manual_seed(SEED)
    device = torch.device(args.device)
    info = device_info(device)
    min_run_time = choose_min_run_time(args)
    sizes = args.sizes or list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    metadata = {
        "device": info.name,
        "device_type": device.type,
        "sm_count": info.sm_count,
        "l2_bytes": info.l2_bytes,
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python", *sys.argv]),
        "seed": SEED,
        "min_run_time_s": min_run_time,
        "torch_threads": torch.get_num_threads(),
    }

    ceiling = measure_ceiling(info, min_run_time)
    host = measure_host_cost(info, min_run_time)
    work, skipped = plan_work(build_plan(args.versions, args.dtypes), sizes, info)
    rows, measurements, cold_l2 = run_benchmarks(work, info, min_run_time)
    fill_derived(rows, ceiling["bandwidth_gbs"])
    tables = step_tables(rows)

    if measurements:
        # Compare orders rows and columns by first appearance. Sorting by op (the
        # sort is stable) keeps the columns torch.sum, sum_v0 .. sum_v7 even where
        # a version was WRONG at the first size, and the rows in the order run.
        by_op = sorted(measurements, key=lambda m: (m.description != TORCH_SUM, m.description))
        compare = benchmark.Compare(by_op)
        compare.trim_significant_figures()
        if sys.stdout.isatty():
            compare.colorize(rowwise=True)
        compare.print()
    print(rows_table(rows), end="\n\n")
    for log2, table in tables.items():
        print(step_table_markdown(log2, table), end="\n\n")
    print(ceiling_line(ceiling))
    print(host_cost_line(host))
    print(f"Cold L2:\n{cold_l2_lines(cold_l2)}")

    args.out.mkdir(parents=True, exist_ok=True)
    results = {
        "metadata": metadata,
        "ceiling": ceiling,
        "host_cost": host,
        "cold_l2": cold_l2,
        "skipped_for_memory": skipped,
        "rows": [dataclasses.asdict(r) for r in rows],
        "step_tables": {f"2^{log2}": table for log2, table in tables.items()},
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    summary = summary_markdown(info, metadata, rows, tables, ceiling, host, cold_l2, skipped)
    (args.out / "summary.md").write_text(summary)
    if not args.no_plot:
        write_plots(args.out, info, rows, tables, ceiling["bandwidth_gbs"])
    print(f"wrote {args.out}")

    wrong = [r for r in rows if r.status == "WRONG"]
    for r in wrong:
        print(f"WRONG: {r.op} {r.dtype} 2^{r.log2}: {r.error}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
