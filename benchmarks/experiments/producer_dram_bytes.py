"""DRAM traffic of a large sum right after the kernel that wrote its input, per peer.

After a producer, sum_v7 at fp32 2^30 loses 16-18 us against its clean read on
an H200 and CUB 3 (benchmarks/NOTES.md, session 53). Whether CUB reads fewer
bytes from DRAM (the producer's last lines hit in L2) or hides the write-back of
the producer's dirty lines in the slack of its slower read is a question for the
DRAM counters, which this answers under Nsight Compute:

    ncu --cache-control none --csv --log-file producer.csv \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
        python -m benchmarks.experiments.producer_dram_bytes [--log2 30]

`--cache-control none` keeps ncu from flushing the caches before each kernel,
and the metrics need one pass each, so no kernel is replayed: every sum sees the
L2 as the kernel before it left it. Each peer sums x four times: once to warm up
(that sum passes the benchmark's check, benchmarks/check.py), then after
`torch.neg(source, out=x)` (the producer scenario's producer), then after sum_v7
has read another buffer of the same size (L2 then mostly holds its lines), then
right after itself (the graph scenario's order from 4x L2 until session 55, one
buffer call after call: what it reads from DRAM there shows whether lines of the
previous call still hit). Each step is printed after it runs. In ncu's log the
rows before the first peer's are the setup (random inputs, the float64
reference); then a sum is two kernels for sum_v7 and CUB at 2^28 and 2^30, and
torch.sum and the producer are one kernel each, or two where x passes 2^31 bytes
(torch splits them). Runs: sessions 53-55 (benchmarks/NOTES.md). It imports the
benchmarks package and the in-place build: run it from the repository root.
"""

from __future__ import annotations

import argparse

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference, verify

PEERS = {
    "sum_v7": torch.ops.reduce_opt.sum_v7,
    "CUB": torch.ops.reduce_opt._cub_sum,
    "torch.sum": torch.sum,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=30)
    args = parser.parse_args()
    x = torch.randn(1 << args.log2, device="cuda")
    source = x.neg()
    other = torch.randn_like(x)
    expected = reference(x, None, False)
    for name, sum_of in PEERS.items():
        wrong = verify(sum_of(x), expected)
        assert wrong is None, f"{name}: {wrong}"
        print(f"{name}: warm-up")
        torch.neg(source, out=x)
        sum_of(x)
        print(f"{name}: producer, then the sum")
        torch.ops.reduce_opt.sum_v7(other)
        sum_of(x)
        print(f"{name}: sum_v7 of another buffer, then the sum")
        sum_of(x)
        print(f"{name}: the sum right after itself")
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
