"""Opcode counts of Inductor's 16-bit sum kernels beside sum_v7's, from their SASS.

v7's fp16 reading of a buffer costs it 0.03-0.09 us at 2^24 over its bf16
reading of the same bits, where Inductor's fp16 reading was its faster one
(benchmarks/NOTES.md, session 56). This prints, for fp16 and bf16, the opcode
counts of the Triton kernels that torch.compile(torch.sum) builds for 2^24
elements (their cubins, from a Triton cache made for this run) and of
sum_v7's large-shape contiguous kernels (from the extension), so that the
widening and the accumulator layout can be compared. It needs the CUDA
toolkit's cuobjdump on the PATH. Run from the repository root, with the
in-place build:

    python -m benchmarks.experiments.inductor_sass [--log2 24] [--sass-dir DIR]

--sass-dir also writes each kernel's whole SASS there. Prepared in session 56 and
not run on a GPU: only its SASS parsing and its choice of sum_v7's kernels were
tried, on a local sm_90 build of contiguous_sum.cu.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import tempfile
from pathlib import Path

# One SASS instruction line: /*0d50*/  [@P0] OPCODE.MODIFIERS operands ;
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")
FUNCTION = re.compile(r"Function : (\S+)")
V7_KERNEL = re.compile(r"contiguous_sum_kernelILb0E.*N3c10(4Half|8BFloat16)ES")


def sass_by_function(binary: Path) -> dict[str, str]:
    """cuobjdump's SASS of every function in a cubin or a shared library."""
    dump = subprocess.run(
        ["cuobjdump", "-sass", str(binary)], check=True, capture_output=True, text=True
    ).stdout
    functions: dict[str, list[str]] = {}
    current = None
    for line in dump.splitlines():
        if match := FUNCTION.search(line):
            current = match.group(1)
            functions[current] = []
        elif current is not None:
            functions[current].append(line)
    return {name: "\n".join(lines) for name, lines in functions.items()}


def opcode_counts(sass: str) -> collections.Counter[str]:
    return collections.Counter(INSTRUCTION.findall(sass))


def report(label: str, sass: str, sass_dir: Path | None) -> None:
    counts = opcode_counts(sass)
    top = ", ".join(f"{opcode} {count}" for opcode, count in counts.most_common(16))
    print(f"{label}: {sum(counts.values())} instructions; {top}")
    if sass_dir is not None:
        (sass_dir / f"{re.sub(r'[^A-Za-z0-9_.]', '_', label)[:120]}.sass").write_text(sass)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=24)
    parser.add_argument("--sass-dir", type=Path)
    args = parser.parse_args()
    if args.sass_dir is not None:
        args.sass_dir.mkdir(parents=True, exist_ok=True)
    # A fresh Triton cache holds only this run's kernels; set before Triton loads.
    os.environ["TRITON_CACHE_DIR"] = cache = tempfile.mkdtemp(prefix="inductor_sass_")

    import torch

    import torch_reduce
    from benchmarks.inputs import flat_case
    from benchmarks.peers import inductor_for_input

    seen: set[Path] = set()
    for dtype in (torch.float16, torch.bfloat16):
        inductor_for_input(flat_case(args.log2, dtype))(
            torch.randn(1 << args.log2, device="cuda").to(dtype)
        )
        cubins = set(Path(cache).rglob("*.cubin")) - seen
        seen |= cubins
        for cubin in sorted(cubins):
            for name, sass in sass_by_function(cubin).items():
                report(f"Inductor {dtype} {name}", sass, args.sass_dir)
    library = next(Path(torch_reduce.__file__).parent.glob("_C*.so"))
    for name, sass in sass_by_function(library).items():
        if match := V7_KERNEL.search(name):
            report(f"sum_v7 {match.group(1)[1:]} (large shape)", sass, args.sass_dir)


if __name__ == "__main__":
    main()
