"""sum_v7's launch shapes, read from the profiler's record of each kernel launch."""

import json

import pytest
import torch
from conftest import requires_cuda


def launched_kernels(call, trace_path):
    """(name, grid, block) of every kernel that `call` launches."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        call()
        torch.cuda.synchronize()
    profile.export_chrome_trace(str(trace_path))
    with open(trace_path) as trace:
        events = json.load(trace)["traceEvents"]
    return [
        (event["name"], event["args"]["grid"], event["args"]["block"])
        for event in events
        if event.get("cat") == "kernel"
    ]


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_grid_stride_shape_fits_one_wave(dtype, tmp_path):
    """A large sum's blocks must all be resident at once: with a grid-stride loop a
    second wave runs after the first and takes as long. The mid-size sum first,
    because its smaller blocks fit more per multiprocessor, and the shapes once
    shared one cached occupancy (whichever size came first set it)."""
    mid = torch.randn(1 << 20, device="cuda").to(dtype)
    large = torch.randn(1 << 26, device="cuda").to(dtype)
    torch.ops.reduce_opt.sum_v7(mid)
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(large), tmp_path / "trace.json")
    assert len(kernels) == 1, kernels
    _, grid, block = kernels[0]
    properties = torch.cuda.get_device_properties(large.device)
    resident_threads = properties.multi_processor_count * properties.max_threads_per_multi_processor
    assert grid[0] * block[0] <= resident_threads, (grid, block)
    assert grid[0] * block[0] > resident_threads // 2, (grid, block)
