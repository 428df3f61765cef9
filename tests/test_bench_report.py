"""The benchmark's outputs: results.json fields, summary.md sections, plots."""

import json
import shutil
import subprocess

import pytest

from benchmarks import cli, report


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    args = ["--device", "cpu", "--sizes", "8,10", "--dtypes", "float32", "--out", str(out)]
    assert cli.main([*args, "--peers", "torch.sum,sum_v0,sum_v7,CUB"]) == 0
    return out, json.loads((out / "results.json").read_text())


def test_json_describes_the_machine_and_the_run(cpu_run):
    _, results = cpu_run
    meta = results["metadata"]
    for key in ("device", "gpu_uuid", "driver_version", "torch_version", "cuda_version",
                "sm_count", "l2_bytes", "date", "command", "settings",
                "scenario_seconds"):  # fmt: skip
        assert key in meta, key
    assert meta["device_type"] == "cpu" and meta["torch_version"]
    assert meta["gpu_uuid"] is None  # no card to name on the CPU
    assert set(meta["scenario_seconds"]) == {"eager", "layouts", "dims"}


def test_json_rows_and_skipped_scenarios(cpu_run):
    _, results = cpu_run
    for name in ("graph", "producer"):
        assert results["scenarios"][name]["skipped"] == "needs CUDA graphs"
    rows = results["rows"]
    assert {r["scenario"] for r in rows} == {"eager", "layouts", "dims"}
    timed = [r for r in rows if r["status"] == "ok"]
    assert timed and all(r["median_us"] > 0 and r["pct_of_fastest_read"] <= 100 for r in timed)
    assert results["scenarios"]["eager"]["host_cost"]


def test_summary_has_a_section_per_scenario(cpu_run):
    out, _ = cpu_run
    summary = (out / "summary.md").read_text()
    for title in ("Eager", "Graph", "Producer", "Layouts", "Dims"):
        assert f"## {title}" in summary, title
    assert "Skipped: needs CUDA graphs" in summary
    assert "CUB: needs CUDA" in summary
    assert "Host cost per call" in summary


def test_plots_per_timed_scenario(cpu_run):
    out, _ = cpu_run
    for name in ("eager", "layouts", "dims"):
        assert (out / f"{name}.png").stat().st_size > 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_commit_is_marked_when_the_code_differs_from_it(tmp_path, monkeypatch):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       cwd=tmp_path, check=True, capture_output=True)  # fmt: skip

    git("init", "-q")
    (tmp_path / "kernel.cu").write_text("one\n")
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results" / "summary.md").write_text("old\n")
    git("add", "-A")
    git("commit", "-q", "-m", "first")
    monkeypatch.chdir(tmp_path)
    clean = report.git_commit()
    assert clean and not clean.endswith("-modified")
    (tmp_path / "benchmarks" / "results" / "summary.md").write_text("new run\n")
    assert report.git_commit() == clean  # results being rewritten are not code
    (tmp_path / "kernel.cu").write_text("two\n")
    assert report.git_commit() == f"{clean}-modified"
