"""Where a two-launch sum spends its time in a CUDA graph: sum_v7 against Inductor.

Past 16x the L2 sum_v7 reads a one-row sum over many waves and a second launch
adds the blocks' totals; Inductor's sum is two kernels too (a split read, then one
program over its partials). On the fast H200 of session 46 sum_v7 trailed Inductor
at 2^30 by 1.5-3 us, which session 35's probe put in the finish, not the read
(benchmarks/NOTES.md, session 46, Next 1). This replays each captured sum under the
profiler and prints the median of each piece over the replays: the read kernel,
the gap from its end to the next kernel's start (the second launch's latency in a
graph), the finish kernel, and the whole span.

    PYTHONPATH=. python3 benchmarks/experiments/two_launch_timeline.py [--log2 30] [--replays 20]

--columns ROWSxCOLUMNS:dtype,... times column sums over dim 0 instead (session
70: the mid-size column sums where Inductor's two kernels lead sum_v7's one):

    PYTHONPATH=. python3 benchmarks/experiments/two_launch_timeline.py \
        --columns 100001x33:float16,20001x66:float32

Each graph's result passes the benchmark's check first (benchmarks/check.py).
It imports the benchmarks package and the in-place build: run it from the
repository root, as above. Runs: sessions 48-51 (benchmarks/NOTES.md).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference, verify
from benchmarks.inputs import random_data

DTYPES = (torch.float32, torch.int32, torch.bfloat16)


def check(name: str, result: torch.Tensor, x: torch.Tensor, dims: tuple[int, ...] | None) -> None:
    """The benchmark's own check: float64 (exact int64) reference, its error bound."""
    wrong = verify(result, reference(x, dims, False))
    assert wrong is None, f"{name}: {wrong}"


def cases(args: argparse.Namespace) -> list[tuple[str, torch.dtype, tuple[int, ...], tuple | None]]:
    """(label, dtype, shape, dims): the 2^log2 whole sums, or --columns' column sums."""
    if args.columns is None:
        return [(f"2^{args.log2}", dtype, (1 << args.log2,), None) for dtype in DTYPES]
    result = []
    for case in args.columns.split(","):
        shape, dtype = case.split(":")
        result.append((shape, getattr(torch, dtype), tuple(map(int, shape.split("x"))), (0,)))
    return result


def captured(sum_fn, x: torch.Tensor) -> tuple[torch.cuda.CUDAGraph, torch.Tensor]:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # compiles and warms up outside the capture
            sum_fn(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = sum_fn(x)
    return graph, out


def profiled_kernels(run: Callable[[], None], trace: Path) -> list[dict]:
    """The profiler's kernel events of run() (synchronized), in start order,
    through a chrome trace written to `trace`."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        run()
        torch.cuda.synchronize()
    profile.export_chrome_trace(str(trace))
    events = json.loads(trace.read_text())["traceEvents"]
    return sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])


def kernel_events(graph: torch.cuda.CUDAGraph, replays: int, trace: Path) -> list[dict]:
    graph.replay()  # untimed: the first replay uploads the graph
    torch.cuda.synchronize()

    def replay() -> None:
        for _ in range(replays):
            graph.replay()

    return profiled_kernels(replay, trace)


def short_name(kernel: str) -> str:
    """A kernel's name and template arguments, without namespaces or parameters:
    the profiler's full names of sum_v7's kernels share their first 40 characters."""
    head = kernel.replace("(anonymous namespace)::", "").split("(")[0]
    match = re.search(r"(\w+)(<.*>)?$", head.strip())
    return match.group(0) if match else kernel


def pieces(events: list[dict]) -> dict[str, float]:
    """Median µs of each piece over the replays, a replay's kernels in launch order.

    The kernels of one replay share the correlation id of its graph launch; kernels
    of other launches (a replay's prologue, say) are left out: only the groups of
    the most kernels count.
    """
    replays: dict[int, list[dict]] = {}
    for event in events:
        replays.setdefault(event["args"]["correlation"], []).append(event)
    most = max(len(kernels) for kernels in replays.values())
    columns: dict[str, list[float]] = {}
    for kernels in (k for k in replays.values() if len(k) == most):
        for i, kernel in enumerate(kernels):
            columns.setdefault(f"kernel {i} ({short_name(kernel['name'])})", []).append(
                kernel["dur"]
            )
            if i > 0:
                gap = kernel["ts"] - (kernels[i - 1]["ts"] + kernels[i - 1]["dur"])
                columns.setdefault(f"gap before kernel {i}", []).append(gap)
        columns.setdefault("span", []).append(
            kernels[-1]["ts"] + kernels[-1]["dur"] - kernels[0]["ts"]
        )
    return {name: statistics.median(values) for name, values in columns.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=30)
    parser.add_argument("--columns", help="ROWSxCOLUMNS:dtype,...: column sums over dim 0")
    parser.add_argument("--replays", type=int, default=20)
    args = parser.parse_args()
    print(torch.cuda.get_device_name(), torch.cuda.get_device_properties(0).uuid)
    with tempfile.TemporaryDirectory() as folder:
        for label, dtype, shape, dims in cases(args):

            def torch_sum(x: torch.Tensor, dims=dims) -> torch.Tensor:
                return torch.sum(x) if dims is None else torch.sum(x, dims)

            candidates = {
                "sum_v7": lambda x, dims=dims: (
                    torch.ops.reduce_opt.sum_v7(x)
                    if dims is None
                    else torch.ops.reduce_opt.sum_v7(x, list(dims))
                ),
                "Inductor": torch.compile(torch_sum, dynamic=False, fullgraph=True),
            }
            x = random_data(shape, dtype, torch.device("cuda"))
            for name, sum_fn in candidates.items():
                graph, out = captured(sum_fn, x)
                graph.replay()
                check(name, out, x, dims)
                timeline = pieces(kernel_events(graph, args.replays, Path(folder) / "t.json"))
                print(f"{dtype} {label} {name}:")
                for piece, us in timeline.items():
                    print(f"  {piece:56s} {us:9.2f} us")
                del graph, out
            del x
            torch.cuda.empty_cache()
            torch._dynamo.reset()


if __name__ == "__main__":
    main()
