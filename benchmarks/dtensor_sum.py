"""Global sum of a float32 tensor sharded over the GPUs of one job: sum_v7 vs torch.sum on DTensor.

    torchrun --nproc-per-node 2 -m benchmarks.dtensor_sum            # 2^31 elements, 4 GiB a GPU
    torchrun --nproc-per-node 2 -m benchmarks.dtensor_sum --device cpu --log2 16 --iters 3

Each rank holds its chunk of a 1-D tensor of 2^log2 elements (``Shard(0)``).
Timed, per global sum, on every rank:
- ``sum_v7 DTensor``: sum_v7 on the DTensor, then ``full_tensor()`` (the
  all-reduce of one scalar);
- ``torch.sum DTensor``: the same with torch.sum;
- ``baseline``: one GPU summing its own shard with sum_v7 plus one
  ``dist.all_reduce`` of the 0-dim result, outside DTensor;
- ``local only``: sum_v7 of the local shard, no communication.

Every variant's result is checked against a float64 sum before it is timed.
On CUDA each call is timed with CUDA events on the current stream (the GPU
time of the sum and of the all-reduce it waits for; the shards are far larger
than L2, so every call reads HBM); the reported time is the largest over ranks
of each rank's median, since the global sum is done when the slowest rank is.
Wall time per call (Python loop, synchronised at the end) is recorded too.

Rank 0 writes results.json and summary.md to --out (default
benchmarks/results/<gpu>-x<ranks>/). Exits 1 if a result is wrong.
"""

import argparse
import datetime
import json
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Shard

import torch_reduce  # noqa: F401  (registers the ops and their sharding rules)
from torch_reduce.testing import sum_error_bound

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SEED = 0
WARMUP = 3
BASELINE = "baseline"
TARGET_VS_BASELINE = 1.1


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=31, help="log2 of the global element count")
    parser.add_argument("--iters", type=int, default=30, help="timed calls per variant")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, help="default: benchmarks/results/<gpu>-x<ranks>/")
    return parser.parse_args()


def local_chunk(total: int, rank: int, world_size: int) -> int:
    """Elements on ``rank`` for Shard(0) (torch.chunk's split: the last chunks may be short)."""
    chunk = -(-total // world_size)
    return max(0, min(chunk, total - rank * chunk))


def device_slug(device: torch.device) -> str:
    """The GPU's short name for the results folder: "NVIDIA H200" -> "h200"."""
    if device.type != "cuda":
        return "cpu"
    words = torch.cuda.get_device_name(device).lower().replace("nvidia", "").split()
    return words[0] if words else "gpu"


def time_calls(fn: Callable[[], torch.Tensor], iters: int, device: torch.device) -> dict:
    """Per-call times in microseconds: CUDA events on CUDA, the host clock on the CPU."""
    for _ in range(WARMUP):
        fn()
    synchronize(device)
    dist.barrier()
    if device.type == "cuda":
        pairs = []
        wall_start = time.perf_counter()
        for _ in range(iters):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            pairs.append((start, end))
        torch.cuda.synchronize(device)
        wall = time.perf_counter() - wall_start
        times = [start.elapsed_time(end) * 1e3 for start, end in pairs]
    else:
        times = []
        wall_start = time.perf_counter()
        for _ in range(iters):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e6)
        wall = time.perf_counter() - wall_start
    return {"median_us": statistics.median(times), "wall_us": wall / iters * 1e6}


def nccl_version(device: torch.device) -> str | None:
    if device.type != "cuda":
        return None
    return ".".join(map(str, torch.cuda.nccl.version()))


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main() -> int:
    args = parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device: run with --device cpu for the gloo smoke run", file=sys.stderr)
        return 2
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.device == "cuda":
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    try:
        status = run(args, device)
        # Every rank leaves together: a rank that tears down its gloo connections while
        # rank 0 still writes the results can abort either process at exit.
        dist.barrier()
        return status
    finally:
        dist.destroy_process_group()


def run(args: argparse.Namespace, device: torch.device) -> int:
    rank, world_size = dist.get_rank(), dist.get_world_size()
    total = 1 << args.log2
    mesh = init_device_mesh(device.type, (world_size,))
    torch.manual_seed(SEED + rank)
    local = torch.randn(local_chunk(total, rank, world_size), device=device)
    sharded = DTensor.from_local(
        local, mesh, [Shard(0)], run_check=False, shape=(total,), stride=(1,)
    )
    sum_v7 = torch.ops.reduce_opt.sum_v7

    def baseline() -> torch.Tensor:
        result = sum_v7(local)
        dist.all_reduce(result)
        return result

    variants: dict[str, Callable[[], torch.Tensor]] = {
        "sum_v7 DTensor": lambda: sum_v7(sharded).full_tensor(),
        "torch.sum DTensor": lambda: torch.sum(sharded).full_tensor(),
        BASELINE: baseline,
        "local only": lambda: sum_v7(local),
    }

    # float64 reference: exact enough to judge a float32 sum of 2^31 elements.
    exact = torch.stack(
        [torch.sum(local, dtype=torch.float64), local.abs().sum(dtype=torch.float64)]
    )
    dist.all_reduce(exact)
    reference, abs_sum = exact.tolist()
    torch_error = abs(variants["torch.sum DTensor"]().item() - reference)
    tolerance = sum_error_bound(torch.float32, total, abs_sum, reference, torch_error)
    checks = {}
    for name, fn in variants.items():
        if name == "local only":
            continue
        value = fn().item()
        error = abs(value - reference)
        checks[name] = {"value": value, "error": error, "ok": error <= tolerance}
    if not all(check["ok"] for check in checks.values()):
        if rank == 0:
            print(f"WRONG: reference {reference}, tolerance {tolerance}: {checks}", file=sys.stderr)
        return 1

    timings = {name: time_calls(fn, args.iters, device) for name, fn in variants.items()}
    per_rank = [None] * world_size
    dist.all_gather_object(per_rank, timings)
    if rank != 0:
        return 0

    rows = []
    baseline_us = max(ranks[BASELINE]["median_us"] for ranks in per_rank)
    for name in variants:
        time_us = max(ranks[name]["median_us"] for ranks in per_rank)
        rows.append(
            {
                "variant": name,
                "time_us": time_us,
                "wall_us": max(ranks[name]["wall_us"] for ranks in per_rank),
                "vs_baseline": time_us / baseline_us,
                "global_gbs": total * 4 / time_us / 1e3,
                "per_rank_median_us": [ranks[name]["median_us"] for ranks in per_rank],
            }
        )
    by_name = {row["variant"]: row["time_us"] for row in rows}
    targets = {
        "sum_v7 no slower than torch.sum on DTensor": by_name["sum_v7 DTensor"]
        <= by_name["torch.sum DTensor"],
        f"sum_v7 within {TARGET_VS_BASELINE}x of the baseline": by_name["sum_v7 DTensor"]
        <= TARGET_VS_BASELINE * baseline_us,
    }
    metadata = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU",
        "world_size": world_size,
        "backend": dist.get_backend(),
        "nccl_version": nccl_version(device),
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(
            ["torchrun", f"--nproc-per-node={world_size}", "-m", "benchmarks.dtensor_sum"]
            + sys.argv[1:]
        ),
        "global_elements": total,
        "local_elements": [local_chunk(total, r, world_size) for r in range(world_size)],
        "iters": args.iters,
    }
    check = {"reference": reference, "tolerance": tolerance, "results": checks}
    results = {"metadata": metadata, "check": check, "rows": rows, "targets": targets}
    out = args.out or RESULTS_DIR / f"{device_slug(device)}-x{world_size}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    summary = summary_markdown(metadata, rows, targets)
    (out / "summary.md").write_text(summary)
    print(summary)
    print(f"wrote {out}")
    return 0


def summary_markdown(metadata: dict, rows: list[dict], targets: dict) -> str:
    lines = [
        "# Global sum over a sharded DTensor",
        "",
        f"{metadata['world_size']}x {metadata['device']}, {metadata['backend']}"
        + (f" {metadata['nccl_version']}" if metadata["nccl_version"] else "")
        + f", torch {metadata['torch_version']}, {metadata['date']}",
        "",
        f"`{metadata['command']}`",
        "",
        f"float32, 2^{metadata['global_elements'].bit_length() - 1} elements,"
        f" {metadata['local_elements']} per rank (Shard(0)). Time: the largest over ranks"
        " of each rank's median per call (CUDA events on CUDA); wall: Python loop time per call.",
        "",
        "| variant | time (us) | wall (us) | vs baseline | global GB/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['variant']} | {row['time_us']:.1f} | {row['wall_us']:.1f}"
            f" | {row['vs_baseline']:.3f}x | {row['global_gbs']:.0f} |"
        )
    lines += ["", "Targets:", ""]
    lines += [f"- {name}: {'met' if met else 'NOT met'}" for name, met in targets.items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    status = main()
    # Every rank has passed the barrier and destroyed its process groups: leave
    # without the interpreter's finalization, where torch's gloo teardown aborts
    # a rank ("terminate called without an active exception") in 2-8% of runs,
    # also with only torch.sum on a DTensor (benchmarks/NOTES.md, session 12).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
