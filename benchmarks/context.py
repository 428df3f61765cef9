"""What every part of a run shares: the device, the timing settings, how many
buffers to rotate through, and the roofline measured so far."""

from __future__ import annotations

import dataclasses
import math
import os
import platform
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from benchmarks.roofline import Roofline

# Inputs are rotated over buffers totalling this many times the L2, so that
# each call reads from DRAM rather than from the cache the previous calls filled.
ROTATION_FACTOR = 4
# And at least two on a GPU, so that no call sums the buffer the call before
# it summed: lines a sum leaves in L2 would hit in the next call, a gain no
# model summing fresh data sees (an experiment's sum, half an L2 of its loads
# without the L1 hint, read 24 MB of a 1 GiB input from L2 that way on an
# H200; benchmarks/NOTES.md, session 55). A case whose two buffers do not fit
# in memory is skipped, with the reason.
MIN_BUFFERS = 2
# Calls per CUDA graph: at least this many (so that a replay is long enough to
# time with events), and at most what a replay of that much logical data takes.
MIN_GRAPH_CALLS = 10
MAX_LOGICAL_BYTES_PER_REPLAY = 4 << 30
# A case runs only if its buffers fit in this fraction of free memory, less a
# reserve for the reference, outputs and the CUDA graphs' pools.
MEMORY_FRACTION = 0.85
MEMORY_RESERVE = 2 << 30


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    device: torch.device
    name: str
    sm_count: int | None
    l2_bytes: int | None  # None on the CPU: no cache rotation there

    @classmethod
    def of(cls, device: torch.device) -> DeviceInfo:
        if device.type == "cuda":
            props = torch.cuda.get_device_properties(device)
            return cls(device, props.name, props.multi_processor_count, props.L2_cache_size)
        name = f"CPU ({platform.machine()}, {torch.get_num_threads()} threads)"
        return cls(device, name, None, None)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"


@dataclasses.dataclass(frozen=True)
class Settings:
    eager_min_run_time: float  # seconds of Timer.blocked_autorange per eager measurement
    replays: int  # timed replays per CUDA graph
    max_calls: int  # calls captured per CUDA graph, and buffers rotated, at most


@dataclasses.dataclass(frozen=True)
class Rotation:
    buffers: int  # distinct inputs
    calls: int  # calls per graph replay, cycling over the buffers

    def describe(self, read_bytes: int, l2_bytes: int | None) -> str:
        if l2_bytes is None:
            return "one buffer (CPU: caches not flushed)"
        touched = self.buffers * read_bytes
        return (
            f"{self.buffers} buffer(s), {touched / 1e6:,.1f} MB read per round "
            f"({touched / l2_bytes:.1f}x L2), {self.calls} calls per graph"
        )


def rotation(read_bytes: int, logical_bytes: int, info: DeviceInfo, settings: Settings) -> Rotation:
    """How many buffers to rotate through and how many calls to capture per graph.

    Enough buffers (MIN_BUFFERS at least on a GPU) that one round of them reads
    ROTATION_FACTOR x L2, capped at settings.max_calls (small inputs below the cap
    stay partly L2-resident, and the report says so). logical_bytes (elements x
    itemsize, more than read_bytes for an expanded view) bounds the calls so that a
    replay stays short.
    """
    if info.l2_bytes is None:
        return Rotation(1, 1)
    wanted = max(MIN_BUFFERS, math.ceil(ROTATION_FACTOR * info.l2_bytes / max(read_bytes, 1)))
    by_time = max(MIN_GRAPH_CALLS, MAX_LOGICAL_BYTES_PER_REPLAY // max(logical_bytes, 1))
    calls = max(MIN_GRAPH_CALLS, min(wanted, settings.max_calls, by_time))
    return Rotation(min(wanted, calls), calls)


def free_bytes(device: torch.device) -> int | None:
    """Free memory on the device, or None where the platform cannot say."""
    if device.type == "cuda":
        torch.cuda.empty_cache()  # what PyTorch's allocator caches is free to us
        return torch.cuda.mem_get_info(device)[0]
    return available_host_bytes()


def available_host_bytes() -> int | None:
    """What the host can give a new allocation: Linux's MemAvailable, which counts
    the page cache it can drop, where it reports one; else the free pages. Free pages
    alone fall below the reserve on a host whose cache holds what a build and a
    wheel install just wrote (CI, session 66: the CPU smoke run skipped its case)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # reported in kB
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def fits(nbytes: int, device: torch.device) -> bool:
    free = free_bytes(device)
    return free is None or nbytes + MEMORY_RESERVE <= MEMORY_FRACTION * free


@dataclasses.dataclass
class Context:
    info: DeviceInfo
    settings: Settings
    peers: frozenset[str]  # the peer names chosen for this run
    sizes: list[int]  # log2 sizes of the size sweeps
    dtypes: list[torch.dtype]
    int_sizes: list[int]  # the log2 sizes at which int32 runs
    dtypes_chosen: bool  # --dtypes was given (else the defaults, which eager trims)
    roofline: Roofline | None = None  # None where it is not measured (CPU, or not chosen)
