"""Host cost per call of sum_v7's Python call forms beside torch.sum's, on the
eager scenario's 1024-element float32 input, with the benchmark's own
host_costs (the forms take turns over its rounds). Where sum_v7's host cost
goes: the OpOverloadPacket's overload resolution (torch.ops.reduce_opt.sum_v7,
the benchmark's form), a keyword argument, a named overload (.default), the
package's wrapper.

    PYTHONPATH=. python benchmarks/experiments/host_cost_call_forms.py
"""

from __future__ import annotations

import torch

import torch_reduce
from benchmarks import timing
from benchmarks.check import reference, verify
from benchmarks.inputs import random_data

CALL_FORMS = {
    "torch.sum": torch.sum,
    "torch.ops.reduce_opt.sum_v7": torch.ops.reduce_opt.sum_v7,
    "torch.ops.reduce_opt.sum_v7(x, dtype=None)": lambda x: torch.ops.reduce_opt.sum_v7(
        x, dtype=None
    ),
    "torch.ops.reduce_opt.sum_v7.default": torch.ops.reduce_opt.sum_v7.default,
    "torch_reduce.sum": torch_reduce.sum,
}


def main() -> None:
    x = random_data((timing.HOST_COST_NUMEL,), torch.float32, torch.device("cuda"))
    ref = reference(x, None, False)
    for name, fn in CALL_FORMS.items():
        wrong = verify(fn(x), ref)
        if wrong is not None:
            raise SystemExit(f"{name}: {wrong}")
    for name, cost in timing.host_costs(CALL_FORMS, x, min_run_time=0.4).items():
        print(f"{name:40s} {cost.median_us:6.2f} us ({cost.min_us:.2f}-{cost.max_us:.2f})")


if __name__ == "__main__":
    main()
