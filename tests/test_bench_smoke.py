"""`python -m benchmarks` runs end to end on the CPU path and refuses a missing GPU cleanly."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


def run_bench(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "benchmarks", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_cpu_smoke_with_inductor(tmp_path):
    args = ["--device", "cpu", "--scenarios", "eager", "--sizes", "10", "--dtypes", "float32"]
    proc = run_bench(*args, "--peers", "torch.sum,Inductor,sum_v7", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert {r["peer"] for r in rows} == {"torch.sum", "Inductor", "sum_v7"}, rows
    assert all(r["status"] == "ok" and r["median_us"] > 0 for r in rows), rows
    assert (tmp_path / "summary.md").is_file() and (tmp_path / "eager.png").is_file()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message shown without CUDA")
def test_no_cuda_exits_2(tmp_path):
    proc = run_bench("--out", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "no CUDA device: run with --device cpu for the CPU smoke run"
    )
