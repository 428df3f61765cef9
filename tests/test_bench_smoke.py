"""benchmarks/bench.py runs end to end on the CPU path and refuses a missing GPU cleanly."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


def run_bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=120
    )


def test_cpu_smoke(tmp_path):
    args = ("--device", "cpu", "--sizes", "10,12", "--versions", "0,7", "--dtypes", "float32")
    proc = run_bench(*args, "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr

    results = json.loads((tmp_path / "results.json").read_text())
    for op in ("torch.sum", "sum_v0", "sum_v7"):
        rows = [row for row in results["rows"] if row["op"] == op]
        assert [row["log2"] for row in rows] == [10, 12], op
        assert all(row["status"] == "ok" and row["time_us"] > 0 for row in rows), rows
    assert results["ceiling"]["bandwidth_gbs"] > 0
    assert (tmp_path / "summary.md").is_file()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message shown without CUDA")
def test_no_cuda_exits_2(tmp_path):
    proc = run_bench("--out", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "no CUDA device: run with --device cpu to benchmark the CPU implementation"
    )
