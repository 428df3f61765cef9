"""benchmarks.compare: sum_v7's standing per case across runs' results.json files."""

import json

import pytest

from benchmarks import compare


def row(scenario, case, peer, median_us, status="ok", dtype="float32"):
    return {"scenario": scenario, "dtype": dtype, "case": case, "peer": peer,
            "status": status, "median_us": median_us}  # fmt: skip


def write_run(path, rows):
    path.mkdir()
    (path / "results.json").write_text(json.dumps({"metadata": {}, "rows": rows}))
    return path


def test_standing_is_the_best_peer_over_sum_v7_ignoring_the_ladder_roofline_and_failures():
    rows = [
        row("graph", "2^20", "torch.sum", 9.0),
        row("graph", "2^20", "Inductor", 5.0),
        row("graph", "2^20", "CUB", 4.0, status="WRONG"),
        row("graph", "2^20", "sum_v6", 1.0),
        row("graph", "2^20", "read roofline", 3.0),
        row("graph", "2^20", "sum_v7", 4.0),
        row("graph", "2^22", "sum_v7", 8.0),  # no peer measured: no standing
    ]
    standings = compare.standings(rows)
    assert standings == {("graph", "float32", "2^20"): (4.0, 1.25, "Inductor")}


def test_comparison_keeps_the_cases_every_run_has_and_the_scenarios_asked_for(tmp_path):
    first = write_run(tmp_path / "a", [
        row("graph", "2^20", "Inductor", 5.0), row("graph", "2^20", "sum_v7", 4.0),
        row("dims", "8x8 dim=(0)", "torch.sum", 2.0), row("dims", "8x8 dim=(0)", "sum_v7", 2.5),
        row("graph", "2^22", "Inductor", 9.0), row("graph", "2^22", "sum_v7", 9.0),
    ])  # fmt: skip
    second = write_run(tmp_path / "b", [
        row("graph", "2^20", "Inductor", 5.5), row("graph", "2^20", "sum_v7", 5.0),
        row("dims", "8x8 dim=(0)", "torch.sum", 2.0), row("dims", "8x8 dim=(0)", "sum_v7", 1.6),
    ])  # fmt: skip
    runs = [("a", compare.load(first)), ("b", compare.load(second / "results.json"))]
    table = compare.comparison(runs, None).splitlines()
    assert len(table) == 4  # header, rule, the two cases both runs measured
    assert "4.00 (1.250, Inductor)" in table[2] and "5.00 (1.100, Inductor)" in table[2]
    assert "2.50 (0.800, torch.sum)" in table[3] and "1.60 (1.250, torch.sum)" in table[3]
    only_dims = compare.comparison(runs, ["dims"]).splitlines()
    assert len(only_dims) == 3 and "dims" in only_dims[2]


def test_main_prints_the_table(tmp_path, capsys):
    run = write_run(
        tmp_path / "a", [row("graph", "2^20", "CUB", 6.0), row("graph", "2^20", "sum_v7", 3.0)]
    )
    assert compare.main([str(run), str(run / "results.json"), str(run)]) == 0
    header, _, line = capsys.readouterr().out.splitlines()
    assert header.count("v7 us") == 3 and line.count("3.00 (2.000, CUB)") == 3


def test_a_scenario_no_run_measured_is_an_error(tmp_path, capsys):
    run = write_run(
        tmp_path / "a", [row("graph", "2^20", "CUB", 6.0), row("graph", "2^20", "sum_v7", 3.0)]
    )
    with pytest.raises(SystemExit):
        compare.main([str(run), "--scenarios", "grpah"])
    assert "grpah" in capsys.readouterr().err
