"""Python side of the reduce_opt ops: version table, fake kernels, convenience."""

from collections.abc import Sequence
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


def result_dtype(dtype: torch.dtype, requested: torch.dtype | None = None) -> torch.dtype:
    """The dtype torch.sum gives: ``requested`` when given, else int64 for integers and bool."""
    if requested is not None:
        return requested
    return dtype if dtype.is_floating_point else torch.int64


def _checked_result_dtype(
    name: str, dtype: torch.dtype, requested: torch.dtype | None
) -> torch.dtype:
    """result_dtype, with the kernels' errors (NotImplementedError, like torch.sum's)."""
    if dtype not in SUPPORTED_DTYPES:
        raise NotImplementedError(f"{name}: unsupported dtype {dtype}")
    if requested is not None and requested not in SUPPORTED_DTYPES:
        raise NotImplementedError(f"{name}: unsupported requested dtype {requested}")
    return result_dtype(dtype, requested)


def _reduced_dims(ndim: int, dim: Sequence[int] | None, name: str) -> list[int]:
    """The dims of an ``ndim``-dim tensor that torch.sum(t, dim) reduces, in increasing
    order: None or [] reduce all; a 0-dim tensor takes 0 and -1 and reduces nothing."""
    if dim is None or len(dim) == 0:
        return list(range(ndim))
    addressable = max(ndim, 1)
    reduced: set[int] = set()
    for requested in dim:
        if not -addressable <= requested < addressable:
            raise IndexError(
                f"{name}: dimension out of range (expected to be in range of "
                f"[{-addressable}, {addressable - 1}], but got {requested})"
            )
        wrapped = requested % addressable
        if wrapped in reduced:
            raise RuntimeError(f"{name}: dim {wrapped} appears multiple times in the list of dims")
        reduced.add(wrapped)
    return sorted(reduced) if ndim > 0 else []


def _register_fake(version: int) -> None:
    name = f"reduce_opt::sum_v{version}"

    @torch.library.register_fake(name)
    def _(self: torch.Tensor) -> torch.Tensor:
        return self.new_empty((), dtype=_checked_result_dtype(name, self.dtype, None))


for _version in VERSIONS[:-1]:
    _register_fake(_version.number)

_V7 = "reduce_opt::sum_v7"


@torch.library.register_fake(_V7)
def _(self: torch.Tensor, *, dtype: torch.dtype | None = None) -> torch.Tensor:
    return self.new_empty((), dtype=_checked_result_dtype(_V7, self.dtype, dtype))


@torch.library.register_fake(f"{_V7}.dim_IntList")
def _(
    self: torch.Tensor,
    dim: Sequence[int] | None,
    keepdim: bool = False,
    *,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    out_dtype = _checked_result_dtype(_V7, self.dtype, dtype)
    reduced = set(_reduced_dims(self.dim(), dim, _V7))
    sizes = [
        1 if d in reduced else size
        for d, size in enumerate(self.shape)
        if keepdim or d not in reduced
    ]
    return self.new_empty(sizes, dtype=out_dtype)


def sum(  # noqa: A001 - mirrors torch.sum
    t: torch.Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: torch.dtype | None = None,
    version: int = 7,
) -> torch.Tensor:
    """``torch.sum(t, dim, keepdim, dtype=dtype)`` with the version's kernel.

    ``version`` picks the kernel (see ``VERSIONS``); 7 is the production one and the
    only one that takes ``dim``, ``keepdim`` and ``dtype``; v0..v6 sum the whole tensor.
    """
    # sum_v7 first, dtype passed only when given: a keyword through torch.ops
    # costs more host time than the rest of this wrapper
    # (benchmarks/experiments/wrapper_host_cost.py; benchmarks/NOTES.md,
    # session 65).
    if version == 7:
        options = {} if dtype is None else {"dtype": dtype}
        if dim is None and not keepdim:
            return torch.ops.reduce_opt.sum_v7(t, **options)
        return torch.ops.reduce_opt.sum_v7.dim_IntList(t, dim, keepdim, **options)
    if not 0 <= version < len(VERSIONS):
        raise ValueError(f"version must be in 0..{len(VERSIONS) - 1}, got {version}")
    if dim is not None or keepdim or dtype is not None:
        raise ValueError(
            f"dim, keepdim and dtype need version 7; sum_v{version} sums the whole tensor"
        )
    return getattr(torch.ops.reduce_opt, f"sum_v{version}")(t)
