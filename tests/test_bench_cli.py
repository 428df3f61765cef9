"""The benchmark's command line: option parsing, defaults, and the missing-GPU exit."""

import argparse

import pytest
import torch

from benchmarks import cli
from benchmarks.context import (
    MIN_BUFFERS,
    MIN_GRAPH_CALLS,
    ROTATION_FACTOR,
    DeviceInfo,
    Settings,
    rotation,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10:14", [10, 11, 12, 13, 14]), ("10:30:10", [10, 20, 30]), ("20,12,12", [12, 20])],
)
def test_parse_sizes(text, expected):
    assert cli.parse_sizes(text) == expected


@pytest.mark.parametrize("text", ["", "a:b", "10:", "35", "-1,4", "12:10"])
def test_parse_sizes_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError):
        cli.parse_sizes(text)


def test_parse_dtypes():
    assert cli.parse_dtypes("float32,bfloat16,int32") == [
        torch.float32,
        torch.bfloat16,
        torch.int32,
    ]
    with pytest.raises(argparse.ArgumentTypeError, match="complex64"):
        cli.parse_dtypes("float32,complex64")


def test_unknown_scenario_or_peer_is_a_usage_error(capsys):
    for option in (["--scenarios", "graph,warp"], ["--peers", "torch.sum,numpy"]):
        with pytest.raises(SystemExit) as exit_info:
            cli.parse_args(option)
        assert exit_info.value.code == 2
    assert "numpy" in capsys.readouterr().err


def test_defaults_cover_every_scenario_peer_and_dtype():
    ctx = cli.make_context(cli.parse_args(["--device", "cpu"]))
    args = cli.parse_args([])
    assert args.scenarios == ["eager", "graph", "producer", "layouts", "dims"]
    assert set(args.peers) == {"torch.sum", "Inductor", "CUB", "read roofline"} | {
        f"sum_v{v}" for v in range(8)
    }
    assert ctx.sizes == list(range(10, 31, 2))
    assert ctx.dtypes == [torch.float32, torch.float16, torch.bfloat16, torch.int32]
    assert ctx.int_sizes == ctx.sizes[::3]
    assert ctx.roofline is None  # no roofline on the CPU


def test_explicit_dtypes_run_at_every_size():
    ctx = cli.make_context(
        cli.parse_args(["--device", "cpu", "--dtypes", "int32", "--sizes", "4,6"])
    )
    assert ctx.int_sizes == [4, 6]


def test_quick_is_smaller_than_the_default():
    quick = cli.make_context(cli.parse_args(["--device", "cpu", "--quick"]))
    full = cli.make_context(cli.parse_args(["--device", "cpu"]))
    assert len(quick.sizes) < len(full.sizes) and len(quick.dtypes) < len(full.dtypes)


def test_rotation_flushes_l2_within_the_caps():
    l2 = 50 << 20
    info = DeviceInfo(torch.device("cuda"), "test GPU", 132, l2)
    settings = Settings(eager_min_run_time=0.1, replays=5, max_calls=8192)
    large = rotation(1 << 30, 1 << 30, info, settings)
    assert large.buffers == MIN_BUFFERS == 2 and large.calls == MIN_GRAPH_CALLS
    mid = rotation(1 << 20, 1 << 20, info, settings)
    assert mid.buffers * (1 << 20) >= ROTATION_FACTOR * l2 and mid.calls == mid.buffers
    small = rotation(1 << 10, 1 << 10, info, settings)
    assert small.buffers == small.calls == settings.max_calls
    expanded = rotation(1 << 15, 1 << 28, info, settings)  # 32 KB stored, 256 MB summed
    assert MIN_GRAPH_CALLS <= expanded.calls <= 16 and expanded.buffers == expanded.calls
    cpu = DeviceInfo(torch.device("cpu"), "cpu", None, None)
    assert rotation(1 << 10, 1 << 10, cpu, settings).buffers == 1


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the exit without CUDA")
def test_no_cuda_exits_2(capsys, tmp_path):
    assert cli.main(["--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == cli.NO_CUDA_MESSAGE
    assert not any(tmp_path.iterdir())
