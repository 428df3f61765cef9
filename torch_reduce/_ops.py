"""Python side of the reduce_opt ops: version table, fake kernels, convenience."""

from typing import NamedTuple

import torch


class Version(NamedTuple):
    number: int
    name: str
    idea: str


VERSIONS: tuple[Version, ...] = (
    Version(0, "baseline", "interleaved addressing, tid % (2s) == 0: divergent warps"),
    Version(1, "no_divergence", "index = 2*s*tid: no divergence, shared-memory bank conflicts"),
    Version(2, "sequential_addressing", "stride blockDim/2 .. 1: conflict-free, half idle"),
    Version(3, "add_during_load", "first add during the global load: 2*blockDim per block"),
    Version(4, "unroll_last_warp", "last warp unrolled (with __syncwarp): no loop there"),
    Version(5, "completely_unrolled", "block size a template parameter: whole tree unrolled"),
    Version(6, "multiple_adds", "many elements per thread; grid bounded, two launches"),
    Version(7, "shuffle", "warp shuffle, 16-byte loads, one launch: the production op"),
)

SUPPORTED_DTYPES = frozenset(
    {
        torch.float32,
        torch.float64,
        torch.float16,
        torch.bfloat16,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.bool,
    }
)


def result_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype torch.sum gives: integers and bool sum to int64."""
    return dtype if dtype.is_floating_point else torch.int64


def _register_fake(version: int) -> None:
    name = f"reduce_opt::sum_v{version}"

    @torch.library.register_fake(name)
    def _(self: torch.Tensor) -> torch.Tensor:
        torch._check(
            self.dtype in SUPPORTED_DTYPES, lambda: f"{name}: unsupported dtype {self.dtype}"
        )
        return self.new_empty((), dtype=result_dtype(self.dtype))


for _version in VERSIONS:
    _register_fake(_version.number)


def sum(t: torch.Tensor, version: int = 7) -> torch.Tensor:  # noqa: A001 - mirrors torch.sum
    """Sum of all elements of ``t`` as a 0-dim tensor, like ``torch.sum(t)``.

    ``version`` picks the kernel (see ``VERSIONS``); 7 is the production one.
    """
    if not 0 <= version < len(VERSIONS):
        raise ValueError(f"version must be in 0..{len(VERSIONS) - 1}, got {version}")
    return getattr(torch.ops.reduce_opt, f"sum_v{version}")(t)
