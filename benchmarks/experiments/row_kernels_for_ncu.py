"""sum_v7 and torch.compile(torch.sum) over 8192x4096 fp32 rows: each checked, then launched 4x.

Both read a 16 KB row a block in 512 threads of 2 loads, yet sum_v7 trails Inductor by
0.1-0.2 us in the dims scenario (benchmarks/NOTES.md, session 45). This gives Nsight
Compute one process holding both kernels, so that one card profiles both (session 46
ran this on an H200; NOTES has what it gave):

    ncu --kernel-name "regex:aligned_round_row|triton" --launch-count 24 --set full \
        --clock-control none --csv --page details --print-units base \
        python3 benchmarks/experiments/row_kernels_for_ncu.py > rows.csv

Inductor's kernel is triton_red_fused_sum_0; the check launches each kernel once
before the 4 timed launches. Each result is checked against a float64 sum first.
"""

from __future__ import annotations

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)

LAUNCHES = 4


def main() -> None:
    inputs = [torch.randn(8192, 4096, device="cuda") for _ in range(2)]
    reference = inputs[0].double().sum(-1)
    candidates = {
        "sum_v7": lambda x: torch.ops.reduce_opt.sum_v7(x, [-1]),
        "Inductor": torch.compile(lambda x: torch.sum(x, -1), dynamic=False),
    }
    for name, sum_rows in candidates.items():
        torch.testing.assert_close(
            sum_rows(inputs[0]).double(), reference, rtol=1e-5, atol=1e-3, msg=name
        )
        for launch in range(LAUNCHES):
            sum_rows(inputs[launch % 2])
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
