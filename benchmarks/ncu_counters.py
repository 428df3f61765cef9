"""Hardware counters for the stage-1 kernel of every version (Nsight Compute).

The seeds claim what each step fixes: v0 diverges, v1 has bank conflicts that
v2 removes, v3 halves idle threads, v4/v5 cut loop and barrier overhead,
v6/v7 raise memory throughput. This script collects the counters that show
whether that is so, for one call of each op on 2^22 float32 elements, and
writes them as a markdown table.

    python benchmarks/ncu_counters.py [--out FILE] [--numel N]

It re-runs itself under `ncu` with --target, which only calls the ops.
"""

import argparse
import csv
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

# v0..v6 have one kernel each; v7's full sum of a contiguous input is its
# contiguous_sum_kernel (demangled names, as ncu is asked for below).
KERNEL_NAMES = r"sum_v\d_kernel|v7::.*contiguous_sum_kernel"
KERNEL_PATTERN = re.compile(r"sum_v(\d)_kernel|v(7)::.*contiguous_sum_kernel")
# Executed SASS instructions per opcode, printed per instance as "OPCODE: count".
PER_OPCODE = "sass__inst_executed_per_opcode"
BARRIER_OPCODE = re.compile(r"\bBAR\w*\s*[:=]\s*([0-9][0-9,]*)")

# (column title, metric, formatter)
COUNTERS = [
    ("duration (us)", "gpu__time_duration.sum", lambda v: f"{v / 1e3:.1f}"),
    ("DRAM % of peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed", lambda v: f"{v:.1f}"),
    (
        "smem ld bank conflicts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        lambda v: f"{v:,.0f}",
    ),
    (
        "smem st bank conflicts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        lambda v: f"{v:,.0f}",
    ),
    (
        "threads / warp instr",
        "smsp__thread_inst_executed_per_inst_executed.ratio",
        lambda v: f"{v:.1f}",
    ),
    (
        "predicated-on threads / warp instr",
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
        lambda v: f"{v:.1f}",
    ),
    (
        "uniform branches %",
        "smsp__sass_average_branch_targets_threads_uniform.pct",
        lambda v: f"{v:.1f}",
    ),
    ("warp instructions", "smsp__inst_executed.sum", lambda v: f"{v:,.0f}"),
    ("barriers executed", PER_OPCODE, lambda v: f"{v:,.0f}"),
    ("barrier stall (warp-cycles)", "smsp__warps_issue_stalled_barrier.sum", lambda v: f"{v:,.0f}"),
    (
        "achieved occupancy %",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        lambda v: f"{v:.1f}",
    ),
    ("registers / thread", "launch__registers_per_thread", lambda v: f"{v:.0f}"),
]
METRICS = [metric for _, metric, _ in COUNTERS]


def run_target(numel: int) -> None:
    """What ncu profiles: one call of every op on the same random input."""
    import torch

    import torch_reduce

    x = torch.randn(numel, device="cuda")
    expected = x.double().sum().item()
    for version in torch_reduce.VERSIONS:
        result = torch_reduce.sum(x, version=version.number).item()
        assert abs(result - expected) <= 1e-3 * x.abs().sum().item(), (version, result, expected)
    torch.cuda.synchronize()


def profile(ncu: str, numel: int) -> str:
    command = [
        ncu,
        "--target-processes",
        "all",
        "--kernel-name-base",
        "demangled",
        "--kernel-name",
        f"regex:{KERNEL_NAMES}",
        "--metrics",
        ",".join(METRICS),
        "--print-metric-instances",
        "details",
        "--csv",
        "--page",
        "raw",
        sys.executable,
        __file__,
        "--target",
        "--numel",
        str(numel),
    ]
    completed = subprocess.run(command, capture_output=True, text=True)
    output = completed.stdout + completed.stderr
    if "ERR_NVGPUCTRPERM" in output or "permission" in output.lower():
        sys.exit("ncu may not read the GPU performance counters here (ERR_NVGPUCTRPERM)")
    if completed.returncode != 0:
        sys.exit(f"ncu failed with exit code {completed.returncode}:\n{output[-4000:]}")
    return completed.stdout


def metric_value(metric: str, text: str) -> float:
    """A number, or for the per-opcode metric the count of BAR instructions
    (__syncthreads) among its instances, which read "total (OPCODE: count; ...)"."""
    if metric == PER_OPCODE:
        return float(sum(int(count.replace(",", "")) for count in BARRIER_OPCODE.findall(text)))
    # Instanced metrics read "total (instance: value; ...)".
    return float(text.split(" (")[0].replace(",", ""))


def stage_one_rows(csv_text: str) -> dict[int, dict[str, float]]:
    """The first launch of each version's kernel is its stage 1 (the later ones
    reduce partials)."""
    lines = [line for line in csv_text.splitlines() if line.startswith('"')]
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    rows: dict[int, dict[str, float]] = {}
    for row in reader:
        match = KERNEL_PATTERN.search(row.get("Kernel Name", ""))
        if not match:
            continue
        version = int(match.group(1) or match.group(2))
        if version in rows:
            continue
        rows[version] = {metric: metric_value(metric, row[metric]) for metric in METRICS}
    return rows


def markdown_table(rows: dict[int, dict[str, float]], numel: int) -> str:
    titles = [title for title, _, _ in COUNTERS]
    formatters = [fmt for _, _, fmt in COUNTERS]
    lines = [
        f"Stage-1 kernel of each version, one call on {numel:,} float32 elements.",
        "",
        "| version | " + " | ".join(titles) + " |",
        "|---|" + "---|" * len(titles),
    ]
    for version in sorted(rows):
        cells = [fmt(rows[version][m]) for fmt, m in zip(formatters, METRICS, strict=True)]
        lines.append(f"| v{version} | " + " | ".join(cells) + " |")
    lines += ["", "Metrics: " + ", ".join(f"`{m}`" for m in METRICS)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--numel", type=int, default=2**22)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/latest/counters.md"))
    parser.add_argument("--target", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.target:
        run_target(args.numel)
        return
    ncu = shutil.which("ncu")
    if ncu is None:
        sys.exit("ncu (Nsight Compute) is not on PATH")
    raw = profile(ncu, args.numel)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".csv").write_text(raw)
    rows = stage_one_rows(raw)
    if len(rows) != 8:
        sys.exit(f"expected the stage-1 kernels of v0..v7, found versions {sorted(rows)}")
    table = markdown_table(rows, args.numel)
    args.out.write_text(table)
    print(table)


if __name__ == "__main__":
    main()
