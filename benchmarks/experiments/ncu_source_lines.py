"""Instructions and warp samples of one kernel by CUDA source line, before its first load.

ncu's source page gives every SASS instruction its executions and warp samples,
but on a build without line info only the SASS. A local build of the same file
with the same nvcc gives the same SASS instruction for instruction (checked here:
the opcodes must match), and `nvdisasm -gi` on it gives each instruction's
source line, inlined calls included. Joining the two splits a kernel's prologue
by the code that put it there (benchmarks/NOTES.md, session 76: 156 instructions
a warp before the fp32 20001x32 band kernel's first load, against Inductor's 55).

On the GPU machine, as ncu_source_stalls.py's docstring says:

    ncu --kernel-name regex:column_sum_kernel --launch-skip 1 --launch-count 1 \\
        --section SourceCounters -o v7 \\
        python3 benchmarks/experiments/column_a_thread_for_ncu.py fp32x32
    ncu -i v7.ncu-rep --page source --print-source sass --csv > v7.csv

Here, a copy of the kernel's file compiled with -lineinfo for the same
architecture (a zz_*.cu copy beside the original, so that its includes resolve),
then its cubin extracted and disassembled:

    cuobjdump -xelf all column_sum.o
    nvdisasm -c -gi column_sum.sm_90.cubin > column_sum.dis
    python benchmarks/experiments/ncu_source_lines.py v7.csv column_sum.dis \\
        --function 'column_sum_kernelIffLi4ELb0ELb1E'
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

from benchmarks.experiments.ncu_source_stalls import EXECUTED, SAMPLES, read_instructions

LINE_INFO = re.compile(r'//## File "([^"]*)", line (\d+)(?: inlined at "([^"]*)", line (\d+))?')
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
SECTION = re.compile(r"^\.text\.(\S+):")


def opcode(instruction: str) -> str:
    """The opcode of a SASS instruction, without its predicate."""
    words = instruction.split()
    return words[1] if words[0].startswith("@") else words[0]


def source_lines(disassembly: Path, function: str) -> list[tuple[str, str]]:
    """(source line, instruction) of each instruction of the first function whose
    name contains `function`; a line inlined from another file is named with the
    line it was inlined at."""
    lines: list[tuple[str, str]] = []
    inside = False
    where = "?"
    # nvdisasm names an inlined line first, then each line it was inlined at.
    innermost_next = True
    for text in disassembly.read_text().splitlines():
        section = SECTION.match(text)
        if section:
            if inside:
                break
            inside = function in section[1]
            continue
        if not inside:
            continue
        info = LINE_INFO.search(text)
        if info:
            if innermost_next:
                where = f"{Path(info[1]).name}:{info[2]}"
                if info[3]:
                    where += f" <- {Path(info[3]).name}:{info[4]}"
                innermost_next = False
            continue
        instruction = INSTRUCTION.search(text)
        if instruction:
            lines.append((where, instruction[1]))
            innermost_next = True
    if not lines:
        raise SystemExit(f"no function matching {function!r} in {disassembly}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path, help="ncu --page source --print-source sass --csv")
    parser.add_argument("disassembly", type=Path, help="nvdisasm -c -gi of a -lineinfo build")
    parser.add_argument("--function", required=True, help="part of the kernel's mangled name")
    parser.add_argument(
        "--stop", default="LDG", help="opcode prefix that ends the prologue (default: LDG)"
    )
    args = parser.parse_args()
    measured = read_instructions(args.export)
    built = source_lines(args.disassembly, args.function)
    if [opcode(row["Source"]) for row in measured] != [opcode(text) for _, text in built]:
        raise SystemExit("the two builds' SASS differ: build with the GPU machine's nvcc and flags")
    warps = max(int(row[EXECUTED] or 0) for row in measured[:1]) or 1
    executed: collections.Counter[str] = collections.Counter()
    samples: collections.Counter[str] = collections.Counter()
    for row, (where, text) in zip(measured, built, strict=True):
        if opcode(text).startswith(args.stop):
            break
        executed[where] += int(row[EXECUTED] or 0) / warps
        samples[where] += int(row[SAMPLES] or 0)
    print(f"before the first {args.stop} ({warps:,} warps): instructions a warp, samples")
    for where, count in executed.most_common():
        if count or samples[where]:
            print(f"  {count:6.1f} {samples[where]:5d}  {where}")
    print(f"  {sum(executed.values()):6.1f} {sum(samples.values()):5d}  in all")


if __name__ == "__main__":
    main()
