"""A warp's executed instructions by stretch between barriers and by opcode (ncu source page).

Where a kernel's blocks each read a round or two and then add their parked sums,
the time is a warp's chain of instructions rather than the memory (session 85:
the interleaved run's 76 blocks of bf16 20001x31 issued 612 instructions a warp
where Inductor's issued 270). The source page counts each SASS instruction's
executions; divided by the warps launched, they say which stretch of the kernel
the chain spends its instructions in. Collect and export on the GPU machine:

    ncu --profile-from-start off --kernel-name regex:interleaved_column_kernel \\
        --launch-count 1 --section SourceCounters -o bf16x31 \\
        python benchmarks/experiments/column_a_thread_for_ncu.py bf16x31
    ncu -i bf16x31.ncu-rep --page source --print-source sass --csv > bf16x31.csv

then, with the warps launched (grid x block / 32):

    python benchmarks/experiments/ncu_warp_instructions.py bf16x31.csv --warps 608
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

from benchmarks.experiments.ncu_source_stalls import EXECUTED, read_instructions

# A predicate guard (@P0, @!UP1) before the opcode, and the opcode's modifiers.
GUARD = re.compile(r"^@!?U?P\w+\s+")


def opcode(source: str) -> str:
    return GUARD.sub("", source.strip()).split(" ")[0].split(".")[0]


def summarise(path: Path, warps: int, top: int) -> None:
    stretches: collections.Counter[int] = collections.Counter()
    opcodes: collections.Counter[str] = collections.Counter()
    stretch = 0
    for instruction in read_instructions(path):
        if "BAR.SYNC" in instruction["Source"]:
            stretch += 1
        executions = int(instruction[EXECUTED] or 0)
        stretches[stretch] += executions
        opcodes[opcode(instruction["Source"])] += executions
    print(f"{path}: {sum(stretches.values()) / warps:,.0f} instructions a warp")
    for index, executions in sorted(stretches.items()):
        if executions:
            print(f"  after {index} barrier(s): {executions / warps:,.0f} a warp")
    print("  by opcode, a warp:")
    for name, executions in opcodes.most_common(top):
        print(f"    {name:>8}: {executions / warps:,.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exports", nargs="+", type=Path, help="ncu --page source --csv files")
    parser.add_argument("--warps", type=int, required=True, help="warps the kernel launched")
    parser.add_argument("--top", type=int, default=16, help="opcodes to list")
    args = parser.parse_args()
    for path in args.exports:
        summarise(path, args.warps, args.top)


if __name__ == "__main__":
    main()
