"""Command line and the run: parse the options, run the scenarios, write the results.

    python -m benchmarks                       # every scenario, 2^10..2^30 (even), on CUDA
    python -m benchmarks --quick               # fewer sizes and dtypes, shorter timing
    python -m benchmarks --scenarios graph,dims --sizes 20:30:2 --dtypes float32
    python -m benchmarks --device cpu --sizes 10,12 --peers torch.sum,sum_v7

Writes results.json, summary.md and PNG plots to --out. Exits 1 if any op gave
a wrong result, 2 if CUDA is asked for but absent.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch

import torch_reduce
from benchmarks import plots, report
from benchmarks.context import Context, DeviceInfo, Settings
from benchmarks.peers import NAMES, ROOFLINE
from benchmarks.roofline import Roofline
from benchmarks.scenarios import SCENARIOS

NO_CUDA_MESSAGE = "no CUDA device: run with --device cpu for the CPU smoke run"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "latest"
DEFAULT_SIZES = "10:30:2"
QUICK_SIZES = "12,20,26"
DEFAULT_DTYPES = "float32,float16,bfloat16,int32"
QUICK_DTYPES = "float32,bfloat16"
INT32_EVERY = 3  # unless asked for explicitly, int32 runs at every third size
SEED = 0


def parse_sizes(text: str) -> list[int]:
    """'LOW:HIGH' or 'LOW:HIGH:STEP' (inclusive) or 'a,b,c': log2 sizes."""
    try:
        if ":" in text:
            low, high, *step = (int(part) for part in text.split(":"))
            sizes = list(range(low, high + 1, *step))
        else:
            sizes = sorted({int(part) for part in text.split(",")})
    except (ValueError, TypeError) as error:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH[:STEP] or a,b,c: {text!r}") from error
    if not sizes or min(sizes) < 0 or max(sizes) > 34:
        raise argparse.ArgumentTypeError(f"log2 sizes must be in 0..34, got {text!r}")
    return sizes


def parse_dtypes(text: str) -> list[torch.dtype]:
    dtypes = []
    for name in text.split(","):
        dtype = getattr(torch, name, None)
        if dtype not in torch_reduce.SUPPORTED_DTYPES:
            raise argparse.ArgumentTypeError(f"unsupported dtype {name!r}")
        dtypes.append(dtype)
    return dtypes


def parse_choices(choices: Sequence[str], what: str):
    def parse(text: str) -> list[str]:
        chosen = [name.strip() for name in text.split(",")]
        unknown = [name for name in chosen if name not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {what} {unknown}; choose from {choices}")
        return chosen

    return parse


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n\n")[0]
    )
    names = list(SCENARIOS)
    parser.add_argument("--scenarios", type=parse_choices(names, "scenario"), default=names,
                        help=f"comma-separated, from {','.join(names)} (default: all)")  # fmt: skip
    parser.add_argument("--sizes", type=parse_sizes,
                        help=f"log2 sizes of the size sweeps (default {DEFAULT_SIZES}, "
                        f"--quick {QUICK_SIZES})")  # fmt: skip
    parser.add_argument("--dtypes", type=parse_dtypes,
                        help=f"default {DEFAULT_DTYPES} (int32 at every {INT32_EVERY}rd size), "
                        f"--quick {QUICK_DTYPES}")  # fmt: skip
    parser.add_argument("--peers", type=parse_choices(NAMES, "peer"), default=NAMES,
                        help=f"comma-separated, from {','.join(NAMES)} (default: all)")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="fewer sizes and dtypes, less timing")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--replays", type=int, help="timed replays per CUDA graph (default 10)")
    parser.add_argument("--max-calls", type=int, default=8192,
                        help="calls per CUDA graph and buffers rotated, at most (default 8192; "
                        "small inputs below 4x L2 in total stay partly L2-resident)")  # fmt: skip
    return parser.parse_args(argv)


def make_context(args: argparse.Namespace) -> Context:
    device = torch.device(args.device)
    info = DeviceInfo.of(device)
    if device.type == "cpu":
        settings = Settings(eager_min_run_time=0.02, replays=1, max_calls=1)
    else:
        replays = args.replays or (5 if args.quick else 10)
        min_run_time = 0.05 if args.quick else 0.1
        settings = Settings(min_run_time, replays, args.max_calls)
    sizes = args.sizes or parse_sizes(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    dtypes = args.dtypes or parse_dtypes(QUICK_DTYPES if args.quick else DEFAULT_DTYPES)
    int_sizes = sizes if args.dtypes else sizes[::INT32_EVERY]
    chosen = args.dtypes is not None
    ctx = Context(info, settings, frozenset(args.peers), sizes, dtypes, int_sizes, chosen)
    if info.is_cuda and ROOFLINE in ctx.peers:
        ctx.roofline = Roofline(ctx)
    return ctx


def collect(ctx: Context, rows: list, outcomes: dict, seconds: dict) -> dict:
    return {
        "metadata": report.metadata(ctx, seconds),
        "scenarios": outcomes,
        "rows": [dataclasses.asdict(r) for r in rows],
        "step_tables": report.step_tables(rows),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(NO_CUDA_MESSAGE, file=sys.stderr)
        return 2
    torch.manual_seed(SEED)
    ctx = make_context(args)
    rows, outcomes, seconds = [], {}, {}
    for name in args.scenarios:
        scenario = SCENARIOS[name]
        entry = {"title": scenario.TITLE, "method": scenario.METHOD}
        if scenario.NEEDS_CUDA and not ctx.info.is_cuda:
            outcomes[name] = {**entry, "skipped": "needs CUDA graphs"}
            continue
        started = time.perf_counter()
        outcome = scenario.run(ctx)
        seconds[name] = round(time.perf_counter() - started, 1)
        rows += outcome.rows
        outcomes[name] = {**entry, **outcome.extra}
        # Written after every scenario, so that a run cut short keeps what it measured.
        results = collect(ctx, rows, outcomes, seconds)
        report.write(args.out, results, rows, SCENARIOS)
        if ctx.info.is_cuda:
            torch.cuda.empty_cache()

    results = collect(ctx, rows, outcomes, seconds)
    report.write(args.out, results, rows, SCENARIOS)
    if not args.no_plot:
        plots.write(args.out, ctx.info.name, rows, results["step_tables"])
    print((args.out / "summary.md").read_text())
    print(f"wrote {args.out}")
    wrong = [r for r in rows if r.status == "WRONG"]
    for r in wrong:
        print(f"WRONG: {r.scenario} {r.peer} {r.dtype} {r.case}: {r.note}", file=sys.stderr)
    return 1 if wrong else 0
