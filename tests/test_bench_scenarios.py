"""The benchmark's scenarios and correctness check on the CPU path (small sizes)."""

import pytest
import torch

from benchmarks import check, cli, peers, timing
from benchmarks.inputs import flat_case, read_bytes
from benchmarks.peers import Peer
from benchmarks.scenarios import dims, eager, graph, layouts, producer

requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

FAST_PEERS = "torch.sum,CUB,sum_v0,sum_v7,read roofline"


def cpu_context(*options):
    args = [
        "--device",
        "cpu",
        "--sizes",
        "8,10",
        "--dtypes",
        "float32,int32",
        "--peers",
        FAST_PEERS,
    ]
    return cli.make_context(cli.parse_args([*args, *options]))


def by_peer(rows, name):
    return [r for r in rows if r.peer == name]


def assert_timed(rows):
    for r in rows:
        assert r.status == "ok", r
        assert 0 < r.min_us <= r.median_us <= r.max_us
        assert r.gbs > 0 and 0 < r.pct_of_fastest_read <= 100


def test_eager_times_every_peer_and_declines_cuda_ones():
    outcome = eager.run(cpu_context())
    cases = {(r.dtype, r.case) for r in outcome.rows}
    assert cases == {(d, f"2^{n}") for d in ("float32", "int32") for n in (8, 10)}
    assert_timed(by_peer(outcome.rows, "torch.sum") + by_peer(outcome.rows, "sum_v7"))
    # v0..v6 run at float32 only; CUB and the roofline need CUDA.
    assert {r.dtype for r in by_peer(outcome.rows, "sum_v0")} == {"float32"}
    for name in ("CUB", "read roofline"):
        assert {(r.status, r.note) for r in by_peer(outcome.rows, name)} == {
            ("skipped", "needs CUDA")
        }
    for row in by_peer(outcome.rows, "torch.sum"):
        assert row.vs_torch_sum == 1 and row.read_bytes == 2**row.log2 * 4
    host = {c["peer"]: c for c in outcome.extra["host_cost"]}
    assert host["torch.sum"]["median_us"] > 0 and host["sum_v7"]["median_us"] > 0
    assert host["CUB"]["status"] == "skipped"


def test_layouts_read_the_views_in_place():
    outcome = layouts.run(cpu_context("--peers", "torch.sum,sum_v7"))
    assert len({r.case for r in outcome.rows}) == len(layouts.cases(layouts.SIDE["cpu"]))
    assert_timed(outcome.rows)
    side = layouts.SIDE["cpu"]
    expanded = next(r for r in outcome.rows if "expand" in r.case)
    assert expanded.read_bytes == side * 4 and expanded.shape == [side, side]
    every_other = next(r for r in outcome.rows if "[::2]" in r.case)
    assert every_other.read_bytes == side * side * 4 // 2


def test_dims_use_the_dim_overload_or_say_why_not():
    outcome = dims.run(cpu_context("--peers", "torch.sum,sum_v7"))
    assert len({r.case for r in outcome.rows}) == len(dims.SHAPES)
    assert_timed(by_peer(outcome.rows, "torch.sum"))
    v7_rows = by_peer(outcome.rows, "sum_v7")
    if "dim_IntList" in torch.ops.reduce_opt.sum_v7.overloads():
        assert_timed(v7_rows)
    else:
        assert {r.note for r in v7_rows} == {"this build has no sum_v7.dim_IntList overload"}


def test_a_wrong_peer_is_reported_and_never_timed(monkeypatch):
    off_by_one = Peer("off by one", lambda case: lambda x: torch.sum(x) + 1)
    raising = Peer("raises", lambda case: lambda x: torch.ops.reduce_opt.sum_v7(x.to(torch.cfloat)))
    monkeypatch.setattr(peers, "PEERS", [*peers.PEERS, off_by_one, raising])
    monkeypatch.setattr("benchmarks.runner.PEERS", peers.PEERS)
    ctx = cpu_context("--peers", "torch.sum")
    ctx.peers = frozenset({"torch.sum", "off by one", "raises"})
    rows = eager.run(ctx).rows
    for name in ("off by one", "raises"):
        wrong = by_peer(rows, name)
        assert len(wrong) == 4 and all(r.status == "WRONG" and r.median_us is None for r in wrong)
    messages = {(r.peer, r.dtype): r.note for r in rows if r.status == "WRONG"}
    assert " > " in messages["off by one", "float32"]
    assert "integer sums differ" in messages["off by one", "int32"]
    assert messages["raises", "int32"].startswith("raised NotImplementedError: reduce_opt::sum_v7")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32])
def test_check_accepts_torch_sum_and_rejects_a_perturbed_sum(dtype):
    x = flat_case(12, dtype).make(torch.device("cpu"))
    ref = check.reference(x, None, False)
    assert check.verify(torch.sum(x), ref) is None
    assert check.verify(torch.sum(x) + 50, ref) is not None
    assert "expected () " in check.verify(torch.sum(x).reshape(1), ref)


def test_check_per_output_element_over_dims():
    x = torch.randn(64, 256)
    ref = check.reference(x, (1,), False)
    assert check.verify(x.sum(1), ref) is None
    bad = x.sum(1)
    bad[17] += 1
    assert "output index 17" in check.verify(bad, ref)


def test_read_bytes_counts_stored_elements():
    x = torch.randn(8, 16)
    assert read_bytes(x) == 8 * 16 * 4
    assert read_bytes(x.t()) == 8 * 16 * 4
    assert read_bytes(x[0:1].expand(8, 16)) == 16 * 4
    assert read_bytes(x[:, 1:5]) == 8 * 4 * 4


def test_eager_trims_the_default_dtypes_to_float32_and_int32():
    ctx = cli.make_context(
        cli.parse_args(["--device", "cpu", "--sizes", "8", "--peers", "torch.sum"])
    )
    rows = eager.run(ctx).rows
    assert {r.dtype for r in rows} == {"float32", "int32"}


def test_graph_rounds_start_one_peer_further_along_each_time():
    names = ["torch.sum", "Inductor", "sum_v7"]
    orders = [timing.round_order(names, turn) for turn in range(4)]
    assert orders[0] == names and orders[3] == names
    assert [order[0] for order in orders[:3]] == names
    assert all(sorted(order) == sorted(names) for order in orders)


def test_host_cost_rounds_start_one_peer_further_along_each_time(monkeypatch):
    """No peer's host cost is timed at the same place in every round."""
    monkeypatch.setattr(timing, "HOST_COST_ROUNDS", 3)
    calls = []
    fns = {name: (lambda x, name=name: calls.append(name)) for name in ["a", "b", "c"]}
    costs = timing.host_costs(fns, torch.zeros(1), min_run_time=1e-4)
    runs = [name for i, name in enumerate(calls) if i == 0 or calls[i - 1] != name]
    assert runs == ["a", "b", "c"] + ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert sorted(costs) == ["a", "b", "c"]


def test_a_timed_replay_follows_an_untimed_replay_of_its_own_graph(monkeypatch):
    """The start event is recorded between two replays of the same graph, with
    no wait between them, and the time is the second replay's, per call."""
    events = []

    class FakeGraph:
        def replay(self):
            events.append("replay")

    class FakeEvent:
        def __init__(self, enable_timing):
            assert enable_timing

        def record(self):
            events.append("record")

        def synchronize(self):
            events.append("synchronize")

        def elapsed_time(self, end):
            return 0.5  # ms

    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *args: events.append("host sync"))
    assert timing.replay_us_per_call(FakeGraph(), calls=10) == pytest.approx(50.0)
    assert events == ["replay", "record", "replay", "record", "synchronize"]


@requires_cuda
@pytest.mark.parametrize("scenario", [graph, producer], ids=["graph", "producer"])
def test_graph_scenarios_time_every_peer_in_turns(scenario, monkeypatch):
    """Every peer's graph is captured, then all replay in turns (each round
    replays every graph once: the producer alone is a graph too), and each peer
    gets its own timing (the producer's minus the producer alone)."""
    replayed = []
    replay_us_per_call = timing.replay_us_per_call

    def recording_replay(cuda_graph, calls):
        replayed.append(id(cuda_graph))
        return replay_us_per_call(cuda_graph, calls)

    monkeypatch.setattr(timing, "replay_us_per_call", recording_replay)
    args = ["--sizes", "20", "--dtypes", "float32", "--peers", "torch.sum,sum_v7", "--quick"]
    outcome = scenario.run(cli.make_context(cli.parse_args(args)))
    graphs = 3 if scenario is producer else 2
    assert len(set(replayed)) == graphs and len(replayed) % graphs == 0, replayed
    rounds = [replayed[i : i + graphs] for i in range(0, len(replayed), graphs)]
    assert all(len(set(each)) == graphs for each in rounds), replayed
    assert len({each[0] for each in rounds}) == graphs, "every graph leads a round"
    rows = [r for r in outcome.rows if r.peer in ("torch.sum", "sum_v7")]
    assert {r.peer for r in rows} == {"torch.sum", "sum_v7"}
    for r in rows:
        assert r.status == "ok", r
        assert r.min_us <= r.median_us <= r.max_us
        assert r.extra["calls_per_graph"] >= 10
    if scenario is producer:
        for r in rows:
            assert r.extra["producer_plus_sum_us"] > r.extra["producer_alone_us"] > 0
