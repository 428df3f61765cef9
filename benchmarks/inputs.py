"""Cases (what is summed) and the rotating buffers each case is timed on."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import torch

from benchmarks.context import Context, Rotation, fits, rotation


@dataclasses.dataclass(frozen=True)
class Case:
    """One input shape/layout and reduction; make() builds a fresh random input."""

    label: str
    dtype: torch.dtype
    make: Callable[[torch.device], torch.Tensor]
    dims: tuple[int, ...] | None = None  # None: the sum of all elements
    keepdim: bool = False
    log2: int | None = None  # the x axis of the size sweeps


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def random_data(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """Zero-mean floats, mixed-sign integers (unsigned ones from zero), random
    booleans: data on which a wrong sum shows."""
    if dtype.is_floating_point:
        return torch.randn(shape, device=device).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, device=device) < 0.5
    low = -100 if dtype.is_signed else 0
    return torch.randint(low, 100, shape, dtype=dtype, device=device)


def contiguous_case(
    numel: int, dtype: torch.dtype, label: str = "", log2: int | None = None
) -> Case:
    return Case(
        label or f"{numel} elements",
        dtype,
        lambda device: random_data((numel,), dtype, device),
        log2=log2,
    )


def flat_case(log2: int, dtype: torch.dtype) -> Case:
    return contiguous_case(1 << log2, dtype, f"2^{log2}", log2)


def size_cases(
    ctx: Context, min_log2: int = 0, dtypes: list[torch.dtype] | None = None
) -> list[Case]:
    """The size sweep: every dtype (default: the run's) at every size (int32 at its own sizes)."""
    cases = []
    for dtype in ctx.dtypes if dtypes is None else dtypes:
        sizes = ctx.int_sizes if dtype == torch.int32 else ctx.sizes
        cases += [flat_case(log2, dtype) for log2 in sizes if log2 >= min_log2]
    return cases


def read_bytes(x: torch.Tensor) -> int:
    """Bytes of the distinct stored elements a sum must read (a broadcast
    dimension, stride 0, is stored once)."""
    distinct = math.prod(size for size, stride in zip(x.shape, x.stride(), strict=True) if stride)
    return distinct * x.element_size() if x.numel() else 0


@dataclasses.dataclass
class Inputs:
    tensors: list[torch.Tensor]
    rotation: Rotation
    read_bytes: int

    @property
    def first(self) -> torch.Tensor:
        return self.tensors[0]


def build_inputs(case: Case, ctx: Context) -> Inputs | str:
    """The case's rotating buffers, or why they cannot be built (memory)."""
    device = ctx.info.device
    first = case.make(device)
    nbytes = read_bytes(first)
    logical = first.numel() * first.element_size()
    plan = rotation(nbytes, logical, ctx.info, ctx.settings)
    storage = first.untyped_storage().nbytes()
    if not fits(plan.buffers * storage, device):
        return f"{plan.buffers} x {storage / 1e9:.2f} GB of buffers do not fit in free memory"
    tensors = [first] + [case.make(device) for _ in range(plan.buffers - 1)]
    return Inputs(tensors, plan, nbytes)
