"""Global loads that ptxas issues one latency at a time, read from SASS.

A batch of loads meant to be in flight together (a round of vectors, a finish's
batch of partials) only is if every load issues before the first instruction
that reads a register one of them wrote: the warp stalls there until that load
returns, and the loads after it wait too. The PTX may hold all of them first
and ptxas still put each add right after its load (session 87: the 8-byte
8-load run loop issued 2 of its 8 loads, warp_an_output_kernel 1-2 of 16).

This splits each kernel of a `cuobjdump -sass` listing into straight-line runs
(at branches, exits, barriers and reconvergence points) and prints, for each
run of --min-loads global loads or more where some load waits behind a read,
(loads issued before the first read, loads in the run):

    cuobjdump -sass torch_reduce/_C*.so > /tmp/c.sass   # or an nvcc -c object
    python3 benchmarks/experiments/sass_load_batches.py /tmp/c.sass --match warp_an_output

A heuristic: a read of a loaded register by a predicated-off instruction still
counts (its scoreboard wait is real), and a run that reuses a register across
two loads counts the first read only.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

LOAD = re.compile(r"\bLDG\S*\s+(R\d+),")
RUN_END = re.compile(r"\b(BRA|EXIT|BSYNC|WARPSYNC|BAR)\b")
REGISTER = re.compile(r"\bR(\d+)\b")


def kernels(listing: str) -> dict[str, list[str]]:
    """Each function's instructions, by its (mangled) name."""
    found: dict[str, list[str]] = {}
    name = None
    for line in listing.splitlines():
        if "Function : " in line:
            name = line.split("Function : ", 1)[1].strip()
            found[name] = []
        elif name is not None and ";" in line:
            found[name].append(line.split(";", 1)[0].strip())
    return found


def load_width(instruction: str) -> int:
    """Registers a global load writes, from its opcode's width (".64" also
    ends every 64-bit address operand)."""
    opcode = next(part for part in instruction.split() if part.startswith("LDG"))
    return 4 if ".128" in opcode else 2 if ".64" in opcode else 1


def registers_read(instruction: str) -> list[int]:
    """The registers an instruction reads: all its register operands but a
    destination register (the first operand, except for stores)."""
    parts = instruction.split()
    if parts and parts[0].startswith("@"):
        parts = parts[1:]
    if not parts:
        return []
    opcode, rest = parts[0], " ".join(parts[1:])
    registers = [int(r) for r in REGISTER.findall(rest)]
    writes_first = re.match(r"R\d+\b", rest) is not None and not opcode.startswith("ST")
    return registers[1:] if writes_first else registers


def waiting_runs(instructions: list[str], min_loads: int) -> list[tuple[int, int]]:
    """(loads issued before the first read of a loaded register, loads) of each
    straight-line run of min_loads loads or more where some load waits."""
    runs, current = [], []
    for instruction in instructions:
        current.append(instruction)
        if RUN_END.search(instruction):
            runs.append(current)
            current = []
    runs.append(current)
    found = []
    for run in runs:
        loads = [k for k, instruction in enumerate(run) if LOAD.search(instruction)]
        if len(loads) < min_loads:
            continue
        loaded: set[int] = set()
        first_read = None
        for k, instruction in enumerate(run):
            match = LOAD.search(instruction)
            reads = registers_read(instruction)
            if match is None and first_read is None and loaded.intersection(reads):
                first_read = k
            if match is not None:
                base = int(match.group(1)[1:])
                loaded.update(range(base, base + load_width(instruction)))
        before = sum(1 for k in loads if first_read is None or k < first_read)
        if before < len(loads):
            found.append((before, len(loads)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("listing", type=Path, help="cuobjdump -sass output")
    parser.add_argument("--match", default="", help="only kernels whose name holds this")
    parser.add_argument("--min-loads", type=int, default=4)
    args = parser.parse_args()
    for name, instructions in kernels(args.listing.read_text()).items():
        if args.match not in name:
            continue
        found = waiting_runs(instructions, args.min_loads)
        if found:
            print(f"{name}: {found}")


if __name__ == "__main__":
    main()
