"""Where the time of a column sum's mailbox finish goes, from the kernel's own stamps.

For the measurement-only build of column-mailbox-finish.patch with
column-mailbox-finish-trace.patch on top, whose column_sum_kernel prints a line per
block (bf16 16x2048x4096 dim=(0,1) only) and, in finishers, one per word of column 0
that had to be read again:

    PYTHONPATH=. python benchmarks/experiments/column_mailbox_trace.py
    TR_NO_MBOX=1 PYTHONPATH=. python benchmarks/experiments/column_mailbox_trace.py

The second run takes the acq_rel finish of the same build. The sums run in a
child process, whose standard output carries the device's printf; the last of
four launches is summarised in microseconds from its first block's start
(benchmarks/NOTES.md, session 43, calls 4 and 6).
"""

from __future__ import annotations

import collections
import statistics
import subprocess
import sys

LAUNCHES = 4
BLOCKS = 16 * 32  # 16 bands of 32 splits on an H100 or H200

CHILD = f"""
import torch
import torch_reduce  # noqa: F401
x = torch.randn(16, 2048, 4096, device="cuda").bfloat16()
for _ in range({LAUNCHES}):
    torch.ops.reduce_opt.sum_v7(x, [0, 1])
    torch.cuda.synchronize()
"""


def summarise(lines: list[list[str]]) -> None:
    # TR band split posts start loads_end finish_start finish_end smid: finish_end is 0
    # but in finishers; finish_start, in mailbox blocks, is when their posts are done.
    blocks = [line for line in lines if line[0] == "TR"][-BLOCKS:]
    start = min(int(block[4]) for block in blocks)

    def us(stamp: str) -> float:
        return (int(stamp) - start) / 1000

    loads_end = [us(block[5]) for block in blocks]
    print(
        f"{len(blocks)} blocks; loads end: min {min(loads_end):.2f}, "
        f"median {statistics.median(loads_end):.2f}, max {max(loads_end):.2f} us"
    )
    # TW band split stamp: a finisher's word of column 0 that came full late.
    rereads = collections.defaultdict(list)
    for line in lines:
        if line[0] == "TW" and int(line[3]) >= start:
            rereads[int(line[1])].append((us(line[3]), int(line[2])))
    for block in sorted(blocks, key=lambda block: int(block[1])):
        if int(block[7]) == 0:
            continue
        band = int(block[1])
        last = max(rereads[band], default=None)
        waited = f", last full at {last[0]:.2f} (split {last[1]})" if last else ""
        print(
            f"band {band:2}: finisher split {block[2]:>2} on SM {block[8]:>3}, loads end "
            f"{us(block[5]):7.2f}, finish from {us(block[6]):7.2f} to {us(block[7]):8.2f}; "
            f"{len(rereads[band])} words read again{waited}"
        )


if __name__ == "__main__":
    child = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True
    )
    summarise([line.split() for line in child.stdout.splitlines() if line[:3] in ("TR ", "TW ")])
