"""graph: device time per call, every call captured in a CUDA graph."""

from __future__ import annotations

from benchmarks.context import Context
from benchmarks.inputs import size_cases
from benchmarks.runner import Outcome, run_case
from benchmarks.scenarios.common import graph_time
from benchmarks.scenarios.progress import each_case

NAME = "graph"
TITLE = "Graph: device time per call"
NEEDS_CUDA = True
METHOD = (
    "The calls, on rotating buffers, are captured in one CUDA graph and replayed; "
    "time per call = CUDA-event time of a replay / calls in it (median, min and max over "
    "the replays). Each timed replay is queued right behind an untimed replay of the same "
    "graph, so that it starts behind its own calls, not after an idle gap or another peer's "
    "graph. The peers' graphs replay in turns, one replay each a round, so that a "
    "change in the GPU's state between replays reaches every peer alike. "
    "The host is out of the picture: this is the kernels' time and the gaps "
    "between their launches. v0..v6 run here at float32 (the step table)."
)


def run(ctx: Context) -> Outcome:
    rows = []
    for case in each_case(NAME, size_cases(ctx)):
        rows += run_case(ctx, NAME, case, graph_time(ctx), with_ladder=True)
    return Outcome(rows)
