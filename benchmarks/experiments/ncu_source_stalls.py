"""Warp-stall samples of one kernel by how often its code runs, from ncu's source page.

A finish that runs once after a long stream hides in a kernel's averages: its
blocks are a few of hundreds. Nsight Compute's source page gives every SASS
instruction its executions and its warp-state samples, so the samples can be
split by execution count (the main loop's lines run far more often than the
code every warp runs once, or than a finisher's) and the finishers' code
measured in 128-byte lines. Collect and export on the GPU machine:

    ncu --kernel-name regex:column_sum --launch-skip 3 --launch-count 1 \\
        --section SourceCounters --section WarpStateStats -o A python3 case.py
    ncu -i A.ncu-rep --page source --print-source sass --csv > A.csv

then compare exports (benchmarks/NOTES.md, session 44, calls 3 and 4):

    python benchmarks/experiments/ncu_source_stalls.py A.csv E.csv --finisher-max 512
"""

from __future__ import annotations

import argparse
import collections
import csv
from pathlib import Path

CODE_LINE_BYTES = 128
SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def read_instructions(path: Path) -> list[dict[str, str]]:
    """The export's instruction rows: its first line names the kernel, the second the columns."""
    with path.open(newline="") as export:
        rows = list(csv.reader(export))
    header = rows[1]
    return [dict(zip(header, row, strict=True)) for row in rows[2:] if len(row) == len(header)]


def summarise(path: Path, finisher_max: int, top: int) -> None:
    instructions = read_instructions(path)
    stall_columns = [
        name for name in instructions[0] if name.startswith("stall_") and "Not Issued" not in name
    ]
    start = int(instructions[0]["Address"], 16)
    by_executions: collections.Counter[int] = collections.Counter()
    by_stall: collections.Counter[str] = collections.Counter()
    finisher_lines = set()
    for instruction in instructions:
        executions = int(instruction[EXECUTED] or 0)
        by_executions[executions] += int(instruction[SAMPLES] or 0)
        for name in stall_columns:
            by_stall[name.removeprefix("stall_")] += int(instruction[name] or 0)
        if 0 < executions <= finisher_max:
            offset = int(instruction["Address"], 16) - start
            finisher_lines.add(offset // CODE_LINE_BYTES)
    print(f"{path}: {sum(by_executions.values()):,} samples")
    print("  by executions of the line:")
    for executions, samples in by_executions.most_common(top):
        print(f"    {executions:>9,}: {samples:,}")
    print("  by stall reason:")
    for reason, samples in by_stall.most_common(top):
        print(f"    {reason:>17}: {samples:,}")
    print(
        f"  {CODE_LINE_BYTES}-byte code lines with instructions executed at most "
        f"{finisher_max:,} times: {len(finisher_lines)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exports", nargs="+", type=Path, help="ncu --page source --csv files")
    parser.add_argument(
        "--finisher-max",
        type=int,
        default=512,
        help="executions of a line at most, for it to count as the finishers' code "
        "(16 finishing blocks of 8 warps, 4 rounds each: 512)",
    )
    parser.add_argument("--top", type=int, default=8, help="rows of each ranking")
    args = parser.parse_args()
    for path in args.exports:
        summarise(path, args.finisher_max, args.top)


if __name__ == "__main__":
    main()
