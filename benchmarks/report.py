"""The run's record: results.json (everything) and summary.md (the tables a reader wants)."""

from __future__ import annotations

import dataclasses
import datetime
import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

import torch_reduce
from benchmarks.context import Context
from benchmarks.peers import INDUCTOR, ROOFLINE, TORCH_SUM, V7
from benchmarks.runner import Row

STEP_SIZES = (22, 26)  # log2 sizes of the v0 -> v7 step tables (else the largest measured)
MAIN_PEERS = (TORCH_SUM, INDUCTOR, "CUB", V7, ROOFLINE)
STEP_SCENARIOS = ("graph", "eager")


def _command_output(command: list[str]) -> str | None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None


def git_commit() -> str | None:
    """HEAD, marked "-modified" when tracked files other than results differ from
    it: a run of uncommitted code (or a checkout whose .git lags its files) says so."""
    commit = _command_output(["git", "rev-parse", "--short", "HEAD"])
    status = ["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
              ":(exclude)benchmarks/results"]  # fmt: skip
    if commit and _command_output(status):
        return f"{commit}-modified"
    return commit


def metadata(ctx: Context, scenario_seconds: dict[str, float]) -> dict[str, Any]:
    info = ctx.info
    driver = gpu_uuid = None
    if info.is_cuda:
        query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
        output = _command_output(query)
        driver = output.splitlines()[0] if output else None
        # Which card, not only which model: two H100s ran the same large-sum
        # kernels 2.7% apart (benchmarks/NOTES.md, session 38), so runs are
        # compared machine to machine.
        gpu_uuid = f"GPU-{torch.cuda.get_device_properties(info.device).uuid}"  # as nvidia-smi
    return {
        "device": info.name,
        "device_type": info.device.type,
        "gpu_uuid": gpu_uuid,
        "driver_version": driver,
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "sm_count": info.sm_count,
        "l2_bytes": info.l2_bytes,
        "git_commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python", "-m", "benchmarks", *sys.argv[1:]]),
        "settings": dataclasses.asdict(ctx.settings),
        "sizes_log2": ctx.sizes,
        "int32_sizes_log2": ctx.int_sizes,
        "dtypes": [str(d).removeprefix("torch.") for d in ctx.dtypes],
        "peers": sorted(ctx.peers),
        "scenario_seconds": scenario_seconds,
    }


def fmt(value: float | None, spec: str = ",.2f") -> str:
    return "-" if value is None else format(value, spec)


def markdown_table(headers: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    widths = [max([len(h), *(len(r[i]) for r in body)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    return "\n".join([line(headers), rule, *(line(r) for r in body)])


def cell(row: Row | None) -> str:
    if row is None or row.status == "skipped":
        return "-"
    return "WRONG" if row.status == "WRONG" else fmt(row.median_us)


def pivot_tables(rows: list[Row]) -> list[str]:
    """Per dtype: a line per case, the main peers' times and sum_v7's standing."""
    tables = []
    for dtype in dict.fromkeys(r.dtype for r in rows):
        by_case: dict[str, dict[str, Row]] = {}
        for r in rows:
            if r.dtype == dtype:
                by_case.setdefault(r.case, {})[r.peer] = r
        ran = {r.peer for r in rows if r.dtype == dtype and r.status != "skipped"}
        peers = [p for p in MAIN_PEERS if p in ran]
        against = [p for p in (TORCH_SUM, INDUCTOR) if p in ran and V7 in ran]
        headers = ["case", *(f"{p} (us)" for p in peers)]
        if V7 in ran:
            headers += ["v7 GB/s", "v7 % fastest read", *(f"v7 vs {p}" for p in against)]
        body = []
        for case, peer_rows in by_case.items():
            line = [case, *(cell(peer_rows.get(p)) for p in peers)]
            v7 = peer_rows.get(V7)
            if V7 in ran:
                line += [fmt(v7.gbs if v7 else None, ",.1f"),
                         fmt(v7.pct_of_fastest_read if v7 else None, ".1f")]  # fmt: skip
                line += [fmt(speedup(peer_rows.get(p), v7), ".2f") for p in against]
            body.append(line)
        tables.append(f"{dtype}:\n\n" + markdown_table(headers, body))
    return tables


def speedup(peer: Row | None, v7: Row | None) -> float | None:
    """peer's time / sum_v7's time: above 1, sum_v7 is faster."""
    if peer is None or v7 is None or not peer.median_us or not v7.median_us:
        return None
    return peer.median_us / v7.median_us


def step_tables(rows: list[Row]) -> list[dict[str, Any]]:
    """Harris-style v0 -> v7 tables (float32) at STEP_SIZES, where every version ran correctly."""
    tables = []
    for scenario in STEP_SCENARIOS:
        by_key = {(r.peer, r.log2): r for r in rows if r.scenario == scenario and r.median_us}
        by_key = {k: r for k, r in by_key.items() if r.dtype == "float32"}
        measured = {log2 for _, log2 in by_key if log2 is not None}
        for log2 in [n for n in STEP_SIZES if n in measured] or sorted(measured)[-1:]:
            steps = [by_key.get((f"sum_v{v.number}", log2)) for v in torch_reduce.VERSIONS]
            if any(step is None for step in steps):
                continue
            table = [
                {
                    "version": version.number,
                    "name": version.name,
                    "time_us": step.median_us,
                    "gbs": step.gbs,
                    "step_speedup": steps[max(i - 1, 0)].median_us / step.median_us,
                    "cumulative_speedup": steps[0].median_us / step.median_us,
                }
                for i, (version, step) in enumerate(zip(torch_reduce.VERSIONS, steps, strict=True))
            ]
            tables.append({"scenario": scenario, "log2": log2, "steps": table})
    return tables


def step_markdown(table: dict[str, Any]) -> str:
    headers = ["version", "name", "time (us)", "GB/s", "step speedup", "cumulative"]
    body = [
        [
            f"sum_v{s['version']}",
            s["name"],
            fmt(s["time_us"]),
            fmt(s["gbs"], ",.0f"),
            f"{s['step_speedup']:.2f}x",
            f"{s['cumulative_speedup']:.2f}x",
        ]  # fmt: skip
        for s in table["steps"]
    ]
    title = f"{table['scenario']}, float32, 2^{table['log2']} elements:"
    return f"{title}\n\n{markdown_table(headers, body)}"


def host_cost_markdown(costs: list[dict[str, Any]]) -> str:
    body = [
        [
            c["peer"],
            fmt(c.get("median_us")),
            fmt(c.get("min_us")),
            fmt(c.get("max_us")),
            c.get("note") or "",
        ]  # fmt: skip
        for c in costs
    ]
    headers = ["peer", "us per call", "min", "max", "note"]
    return f"Host cost per call, {costs[0]['numel']} float32 elements:\n\n" + markdown_table(
        headers, body
    )


def summary_markdown(results: dict[str, Any], rows: list[Row], scenarios: dict) -> str:
    meta = results["metadata"]
    device = meta["device"]
    if meta["sm_count"]:
        device += f" ({meta['sm_count']} SMs, {meta['l2_bytes'] / 1e6:.0f} MB L2)"
    if meta["gpu_uuid"]:
        device += f", {meta['gpu_uuid']}"
    parts = [
        "# torch_reduce benchmark",
        f"{device}, driver {meta['driver_version']}, torch {meta['torch_version']} "
        f"(CUDA {meta['cuda_version']}), commit {meta['git_commit']}, {meta['date']}\n\n"
        f"`{meta['command']}`",
        "Times are microseconds per call, medians (min and max in results.json). "
        "% fastest read = the fastest time anything achieved on the same bytes (the read-only "
        "roofline kernel over its sweep, or any peer) / this time, so never above 100. "
        "vs X = X's time / sum_v7's time (above 1: sum_v7 is faster).",
    ]
    for name, outcome in results["scenarios"].items():
        parts.append(f"## {scenarios[name].TITLE}")
        parts.append(scenarios[name].METHOD)
        if outcome.get("skipped"):
            parts.append(f"Skipped: {outcome['skipped']}")
            continue
        scenario_rows = [r for r in rows if r.scenario == name]
        parts += pivot_tables(scenario_rows)
        if outcome.get("host_cost"):
            parts.append(host_cost_markdown(outcome["host_cost"]))
        parts += [step_markdown(t) for t in results["step_tables"] if t["scenario"] == name]
    parts += ["## Inputs (rotation against the L2)", rotation_lines(rows)]
    declined = sorted({(r.scenario, r.peer, r.note) for r in rows if r.status == "skipped"})
    if declined:
        parts += ["## Skipped", "\n".join(f"- {s}, {p}: {n}" for s, p, n in declined)]
    wrong = [r for r in rows if r.status == "WRONG"]
    if wrong:
        parts += ["## WRONG results (never timed)"]
        parts += ["\n".join(f"- {r.scenario} {r.peer} {r.dtype} {r.case}: {r.note}" for r in wrong)]
    return "\n\n".join(parts) + "\n"


def rotation_lines(rows: list[Row]) -> str:
    seen = dict.fromkeys((r.dtype, r.case, r.rotation) for r in rows if r.rotation)
    return "\n".join(f"- {dtype} {case}: {rotation}" for dtype, case, rotation in seen)


def write(out: Path, results: dict[str, Any], rows: list[Row], scenarios: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "summary.md").write_text(summary_markdown(results, rows, scenarios))
