"""Small column sums of a column a thread, for Nsight Compute: each checked, then launched 4x.

With column-a-thread-next-switch.patch applied, the letters of TORCH_REDUCE_ROUTING
pick the loads in flight (g: 16, 4: 4, none: 8). At 16, bf16 2000x66 dim=0 took
5.45 us against 3.28 at 8, while int16 2001x33, the same bands and splits, gained;
under ncu the bf16 kernel's warps waited ~2,800 cycles a warp at a barrier
(benchmarks/NOTES.md, session 64, call 3). Its source counters show which code
the waiting warps ran before it:

    for letters in 8 g; do
      PYTHONPATH=. TORCH_REDUCE_ROUTING=$letters ncu --kernel-name regex:column_cluster \\
          --launch-skip 1 --launch-count 1 --section SourceCounters \\
          --section WarpStateStats -o bf16_$letters \\
          python3 benchmarks/experiments/column_a_thread_for_ncu.py bf16
      ncu -i bf16_$letters.ncu-rep --page source --print-source sass --csv > bf16_$letters.csv
    done
    python benchmarks/experiments/ncu_source_stalls.py bf16_8.csv bf16_g.csv

The result is checked first (benchmarks.check: float64, exact for int16).
--inductor launches torch.compile(torch.sum)'s kernels instead, for their
counters beside sum_v7's (session 75: the aligned fp32 20001x32 band kernel's
read, 0.6 us behind Inductor's first kernel):

    ncu --kernel-name regex:triton_red --launch-skip 1 --launch-count 1 \\
        --section SpeedOfLight --section WarpStateStats \\
        python3 benchmarks/experiments/column_a_thread_for_ncu.py fp32x32 --inductor

With --profile-from-start off, ncu sees only the kernels of the 4 calls after
the check (and after torch.compile's autotuning).
"""

from __future__ import annotations

import argparse

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.check import reference, verify
from benchmarks.inputs import random_data

LAUNCHES = 4
CASES = {
    "bf16": ((2000, 66), torch.bfloat16),
    "int16": ((2001, 33), torch.int16),
    "fp32": ((3001, 66), torch.float32),
    # Long 1-byte sums through L2 (column-a-thread-int32-and-one-byte-l2-switch.patch,
    # letter b: 4-lane bands), which gain (65 columns) or lose (127) from narrowing.
    "int8x65": ((70001, 65), torch.int8),
    "int8x127": ((70001, 127), torch.int8),
    # A long 16-bit sum through L2 in 4-lane bands, 0.76x Inductor (session 70).
    "fp16x33": ((100001, 33), torch.float16),
    # Aligned narrow bands through L2 (session 75: their read trails Inductor's).
    "fp32x32": ((20001, 32), torch.float32),
    # 1-byte columns off the vector boundary, which took clusters of off-boundary
    # vector bands at twice their aligned twin's time before c9dff14 (session 78),
    # and a column a thread since.
    "bool4095": ((1024, 4095), torch.bool),
    "bool4096": ((1024, 4096), torch.bool),
    # Small aligned narrow-integer sums that trail Inductor by 0.7-1.0 us on
    # any route (session 79): the interleaved run with a second launch, of 2
    # loads a thread since session 80 (int8, 40 splits), and of 4 (int16, 40
    # splits), beside Inductor's kernels. Per-warp instructions (session 80,
    # Next 1): --metrics smsp__inst_executed.sum,smsp__warps_launched.sum,
    # sm__cycles_elapsed.max.
    "int8x16": ((20001, 16), torch.int8),
    "int16x16": ((20001, 16), torch.int16),
    # 2 loads a thread in one launch (uint8, 30 splits, 8 columns).
    "uint8x8": ((30001, 8), torch.uint8),
    # The interleaved run in int32 shares, 3-4 vectors a thread: int8 led
    # Inductor (5.61-5.69 us against 6.08) where uint8 and int16 trailed
    # (5.59-5.66 / 5.41, 6.03-6.21 / 5.63; H200, session 83, calls 1 and 4).
    "int8x31": ((70001, 31), torch.int8),
    "uint8x31": ((70001, 31), torch.uint8),
    "int16x31": ((70001, 31), torch.int16),
    # int32 runs behind Inductor (8.27 us against 7.05; session 83, call 2),
    # their positions added in int64.
    "int32x31": ((100001, 31), torch.int32),
    # Full-wave runs (528 blocks) that half the splits sped up by 0.8-1.1 us
    # (session 83, call 4); with run-split-fraction-switch.patch, set
    # TORCH_REDUCE_ROUTING=w for half a wave of blocks.
    "fp32x31long": ((300001, 31), torch.float32),
    "fp32x3long": ((1000000, 3), torch.float32),
    # Runs of 66-131 blocks of 4 loads, the furthest behind Inductor after
    # session 84 (bf16 4.24 us against 3.54, fp32 0.87x): loads in flight or
    # the blocks' fixed work after the barrier?
    "bf16x31": ((20001, 31), torch.bfloat16),
    "fp32x17": ((30001, 17), torch.float32),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--inductor", action="store_true", help="torch.compile(torch.sum)")
    args = parser.parse_args()
    shape, dtype = CASES[args.case]
    x = random_data(shape, dtype, torch.device("cuda"))
    if args.inductor:
        compiled = torch.compile(torch.sum)

        def column_sum(x):
            return compiled(x, 0)
    else:

        def column_sum(x):
            return torch.ops.reduce_opt.sum_v7(x, [0])

    wrong = verify(column_sum(x), reference(x, (0,), False))
    if wrong is not None:
        raise SystemExit(f"sum over dim 0 of {args.case} {shape}: {wrong}")
    torch.cuda.synchronize()
    # ncu --profile-from-start off profiles only these launches, past
    # torch.compile's autotuning runs of the same kernels.
    torch.cuda.profiler.start()
    for _ in range(LAUNCHES):
        column_sum(x)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
