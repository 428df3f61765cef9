"""Graph time per call of sum_v7 over the two long column shapes, without checking
results: for the measurement-only builds of column-finish-cost-*.patch, which
leave out parts of the column finish (benchmarks/NOTES.md, session 42, call 10).

    python benchmarks/experiments/column_finish_cost.py

Ten calls a graph over two buffers (256 MB, 5x an H100's L2), five timings of 20
replays each; prints the median and the five.
"""

import statistics

import torch

import torch_reduce  # noqa: F401  (registers the ops)

CASES = [
    ("8192x4096 fp32 dim=0", lambda: torch.randn(8192, 4096, device="cuda"), [0]),
    (
        "16x2048x4096 bf16 dim=(0,1)",
        lambda: torch.randn(16, 2048, 4096, device="cuda").bfloat16(),
        [0, 1],
    ),
]


def time_per_call(make, dim, calls=10, replays=20, timings=5):
    op = torch.ops.reduce_opt.sum_v7
    buffers = [make() for _ in range(2)]
    for buffer in buffers:
        op(buffer, dim)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for call in range(calls):
            op(buffers[call % 2], dim)
    for _ in range(3):
        graph.replay()
    times = []
    for _ in range(timings):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / (replays * calls))
    return times


if __name__ == "__main__":
    for name, make, dim in CASES:
        times = time_per_call(make, dim)
        spread = " ".join(f"{t:.2f}" for t in times)
        print(f"{name}: {statistics.median(times):.2f} us/call ({spread})")
