"""How calls are timed.

- eager: torch.utils.benchmark's Timer over a Python loop of calls on the
  rotating buffers (what a model running eagerly sees; host-bound for small
  inputs), the peers taking turns;
- graph: N calls captured into one CUDA graph and replayed; device time per
  call from CUDA events around each replay, queued right behind a replay of
  the same graph (the host and the idle GPU are out of the picture); the
  peers of a case replay their graphs in turns;
- host cost: the eager time per call on a 1K-element input, where the host side
  (Python, dispatch, launch) and not the data dominates.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import torch
import torch.utils.benchmark as benchmark

HOST_COST_NUMEL = 1024
HOST_COST_ROUNDS = 5
EAGER_ROUNDS = 5

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Timing:
    """Microseconds per call: the median and the spread over repeated measurements."""

    median_us: float
    min_us: float
    max_us: float
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, samples_us: Sequence[float], **extra: Any) -> Timing:
        return cls(statistics.median(samples_us), min(samples_us), max(samples_us), extra)

    def minus(self, other: Timing) -> Timing:
        """This timing less other's median: the cost of what this one does on top."""
        base = other.median_us
        return Timing(self.median_us - base, self.min_us - base, self.max_us - base)


def make_timer(stmt: str, names: dict[str, Any], **labels: str) -> benchmark.Timer:
    """A Timer that lets torch use all its threads (Timer's default of one
    would starve the CPU path); on CUDA it synchronises around each block."""
    return benchmark.Timer(stmt, globals=names, num_threads=torch.get_num_threads(), **labels)


def eager(
    fns: dict[str, Callable[[torch.Tensor], Any]],
    inputs: Sequence[torch.Tensor],
    min_run_time: float,
    **labels: str,
) -> dict[str, tuple[Timing, benchmark.Measurement]]:
    """Per fn (by name): the time per call of a Python loop of fn over the
    inputs, and the Measurement (rescaled per call) for
    torch.utils.benchmark.Compare. The fns take turns over EAGER_ROUNDS rounds
    of min_run_time / EAGER_ROUNDS each, their blocks merged: timed one after
    the other, the first case of a run put the same host-bound call at 14.5
    and at 8.0 us (benchmarks/NOTES.md, session 12)."""
    timers = {
        name: make_timer(
            "for x in inputs: fn(x)", {"fn": fn, "inputs": inputs}, description=name, **labels
        )
        for name, fn in fns.items()
    }
    parts = in_turns(
        list(timers),
        EAGER_ROUNDS,
        lambda name: timers[name].blocked_autorange(min_run_time=min_run_time / EAGER_ROUNDS),
    )
    results = {}
    for name, measured in parts.items():
        (merged,) = benchmark.Measurement.merge(measured)  # times per loop over the inputs
        merged = dataclasses.replace(merged, number_per_run=len(inputs))
        results[name] = (Timing.of([t * 1e6 for t in merged.times]), merged)
    return results


def host_costs(
    fns: dict[str, Callable[[torch.Tensor], Any]], x: torch.Tensor, min_run_time: float
) -> dict[str, Timing]:
    """Time per call of each fn on one small input, thousands of calls per block
    and no synchronisation inside a block. The peers take turns over
    HOST_COST_ROUNDS rounds, each round's sample the median of its blocks: one
    long sample per peer moved with the host's state (the same day's runs put
    sum_v7's cost at 7.8 and at 13.6 us), and a drift now hits every peer alike.
    Each round starts one peer further along (round_order), as the eager and
    graph rounds do, so that no peer always holds the same place in a round: in
    one fixed order torch.sum was timed first in every round and sum_v7 last."""
    for fn in fns.values():
        fn(x)

    def sample(name: str) -> float:
        timer = make_timer("fn(x)", {"fn": fns[name], "x": x})
        return timer.blocked_autorange(min_run_time=min_run_time).median * 1e6

    samples = in_turns(list(fns), HOST_COST_ROUNDS, sample)
    return {name: Timing.of(times) for name, times in samples.items()}


def capture(step: Callable[[int], Any], calls: int) -> torch.cuda.CUDAGraph:
    """step(0) .. step(calls - 1) captured in one CUDA graph, uploaded.

    step has run at least once before (the correctness check). It runs once
    more on a side stream before capture, as PyTorch asks; the first replay
    uploads the graph and is not timed.
    """
    current = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    side.wait_stream(current)
    with torch.cuda.stream(side):
        step(0)
    current.wait_stream(side)
    cuda_graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(cuda_graph):
        for i in range(calls):
            step(i)
    cuda_graph.replay()
    return cuda_graph


def replay_us_per_call(cuda_graph: torch.cuda.CUDAGraph, calls: int) -> float:
    """CUDA-event time of one replay, per captured call, timed right behind an
    untimed replay of the same graph.

    The untimed lead replay is queued without a host sync in between, so the
    timed one starts on a busy GPU, behind its own calls: a replay that
    started on an idle GPU, or behind another peer's graph, took a time that
    depended on what came before. On an H100 (8192x4096 fp32 dim=-1, 10 calls
    a graph) Inductor took 44.5 us a call after idle, 43.7 queued behind its
    own replay or v7's and 42.8 behind torch.sum's; timed in turns after a
    host sync, it took 43.8 where torch.sum's turn came just before its own
    (two rounds of three in the dims scenario's order) and 44.5 otherwise
    (benchmarks/NOTES.md, session 27). The GPU stays busy as long as the lead
    replay outlasts the host's queueing of the event and the timed replay:
    true for these graphs of 10 calls or more.
    """
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    cuda_graph.replay()
    start.record()
    cuda_graph.replay()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / calls  # ms per replay -> us per call


def graphs(steps: dict[str, Callable[[int], Any]], calls: int, replays: int) -> dict[str, Timing]:
    """Device time per call of each step(0) .. step(calls - 1), one CUDA graph each.

    The graphs take turns: each of `replays` rounds replays every graph once
    (behind a lead replay of its own, replay_us_per_call), starting one
    further along each round. A state of the GPU that changes between
    replays (the same one-block kernel at 1.40 or 1.65 us per call in two
    rounds of one process, benchmarks/NOTES.md session 11) then reaches
    every peer alike instead of deciding which one wins.
    """
    captured = {name: capture(step, calls) for name, step in steps.items()}
    samples = in_turns(
        list(captured), replays, lambda name: replay_us_per_call(captured[name], calls)
    )
    return {name: Timing.of(times, calls_per_graph=calls) for name, times in samples.items()}


def round_order(names: list[str], turn: int) -> list[str]:
    """The order of round `turn`: every name once, starting `turn` names along."""
    first = turn % len(names)
    return names[first:] + names[:first]


def in_turns(names: list[str], rounds: int, measure: Callable[[str], T]) -> dict[str, list[T]]:
    """measure(name) for every name in each of `rounds` rounds, in round_order:
    the samples of each name, in round order. Every timing of peers against
    each other runs this way, so that a drift of the host's or the GPU's state
    reaches every peer alike."""
    samples: dict[str, list[T]] = {name: [] for name in names}
    for turn in range(rounds):
        for name in round_order(names, turn):
            samples[name].append(measure(name))
    return samples


def graph(step: Callable[[int], Any], calls: int, replays: int) -> Timing:
    """Device time per call of step(0) .. step(calls - 1) captured in one CUDA graph."""
    return graphs({"step": step}, calls, replays)["step"]
