"""Where a small column sum's time goes, from column_cluster_kernel's own stamps.

For the measurement-only build of column-shape-override.patch with
column-cluster-trace.patch on top, whose column_cluster_kernel prints a line per
block: its band, split, SM and seven %globaltimer stamps (start; indexed,
before the loads; thread 0's own loads summed; the block's, after a barrier;
lanes summed; the cluster barrier passed; done, for block 0 after the gather
and the store). Each case runs in a child process, whose
standard output carries the device's printf, in the band shape given
(TORCH_REDUCE_COLUMN_SHAPE); the last of four launches is summarised in
microseconds from its first block's start:

    PYTHONPATH=. python benchmarks/experiments/column_trace.py 1,8,1

With --child CASE the script is that child: it runs the case LAUNCHES times,
as sum_v7 over dim 0, or with --peer as sum_v7's full sum of the same tensor or
as Inductor's column sum (for ncu, on any build).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

import torch

LAUNCHES = 4
CASES = {
    "int16_2001x32": ((2001, 32), torch.int16),
    "fp32_3001x64": ((3001, 64), torch.float32),
    "fp32_4096x256": ((4096, 256), torch.float32),
}
STAMPS = ["start", "indexed", "own loads", "loads", "lanes", "barrier", "done"]


def child(case: str, peer: str) -> None:
    import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)

    shape, dtype = CASES[case]
    x = torch.randint(-100, 100, shape, device="cuda").to(dtype)
    op = {
        "columns": lambda x: torch.ops.reduce_opt.sum_v7(x, [0]),
        "full": torch.ops.reduce_opt.sum_v7,
        "inductor": torch.compile(lambda x: torch.sum(x, 0), dynamic=False),
    }[peer]
    for _ in range(LAUNCHES):
        result = op(x)
        torch.cuda.synchronize()
        print("LAUNCH", flush=True)
    expected = x.double().sum() if peer == "full" else x.double().sum(0)
    assert torch.equal(result.double(), expected), "wrong sum"


def summarise(case: str, shape: str) -> None:
    env = dict(os.environ, TORCH_REDUCE_COLUMN_SHAPE=shape)
    output = subprocess.run(
        [sys.executable, __file__, "--child", case],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    launches = output.split("LAUNCH")[:-1]
    rows = [line.split()[1:] for line in launches[-1].splitlines() if line.startswith("TR ")]
    stamps = [[int(v) for v in row[3:]] for row in rows]
    origin = min(s[0] for s in stamps)
    print(f"{case} in shape {shape}: {len(rows)} blocks on {len({r[2] for r in rows})} SMs")
    for i, name in enumerate(STAMPS):
        times = [(s[i] - origin) / 1000 for s in stamps]
        middle = statistics.median(times)
        print(f"  {name:8s} min {min(times):6.2f}  median {middle:6.2f}  max {max(times):6.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", nargs="?", default="1,8,1", help="TORCH_REDUCE_COLUMN_SHAPE")
    parser.add_argument("--child", choices=list(CASES), help="run this case's launches only")
    parser.add_argument("--peer", choices=["columns", "full", "inductor"], default="columns")
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.peer)
        return
    for case in CASES:
        summarise(case, args.shape)


if __name__ == "__main__":
    main()
