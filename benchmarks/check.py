"""Every result is checked against a float64 (floats) or exact int64 (integers)
reference on the buffer it will be timed on, before it is timed: a wrong op is
reported WRONG and never timed, so a broken kernel can never look fast."""

from __future__ import annotations

import dataclasses

import torch

from torch_reduce.testing import sum_error_bound

# A float64 copy of a large input is made in chunks of this many elements.
CHUNK = 1 << 24


@dataclasses.dataclass(frozen=True)
class Reference:
    """The exact sum (float64 / int64), sum |x|, and torch.sum's own result, per output element."""

    exact: torch.Tensor
    abs_sum: torch.Tensor | None  # floats only
    torch_result: torch.Tensor
    reduced: int  # elements summed into each output element


def reference(x: torch.Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Reference:
    torch_result = torch.sum(x) if dims is None else torch.sum(x, dims, keepdim)
    reduced = x.numel() // max(torch_result.numel(), 1)
    if not x.dtype.is_floating_point:
        exact = (
            x.sum(dtype=torch.int64) if dims is None else x.sum(dims, keepdim, dtype=torch.int64)
        )
        return Reference(exact, None, torch_result, reduced)
    if dims is None:
        exact = torch.zeros((), dtype=torch.float64, device=x.device)
        abs_sum = torch.zeros_like(exact)
        for chunk in x.flatten().split(CHUNK):
            wide = chunk.double()
            exact += wide.sum()
            abs_sum += wide.abs().sum()
        return Reference(exact, abs_sum, torch_result, reduced)
    wide = x.double()
    return Reference(wide.sum(dims, keepdim), wide.abs().sum(dims, keepdim), torch_result, reduced)


def verify(output: torch.Tensor, ref: Reference) -> str | None:
    """None if output is the sum, else what is wrong with it.

    Floats may differ from the float64 sum by torch_reduce.testing's bound per
    output element (what a tree sum in the accumulation type can lose, or twice
    what torch.sum loses, plus the output's rounding); integers must be exact.
    """
    expected = ref.torch_result
    if output.dtype != expected.dtype or output.shape != expected.shape:
        return (
            f"returned {tuple(output.shape)} {output.dtype}, "
            f"expected {tuple(expected.shape)} {expected.dtype}"
        )
    if ref.abs_sum is None:
        if torch.equal(output.to(torch.int64), ref.exact):
            return None
        wrong = (output.to(torch.int64) != ref.exact).sum().item()
        return f"{wrong} of {output.numel()} integer sums differ from the exact ones"
    values = output.double().flatten().tolist()
    exact = ref.exact.flatten().tolist()
    abs_sums = ref.abs_sum.flatten().tolist()
    torch_errors = (expected.double() - ref.exact).abs().flatten().tolist()
    for i, (value, want, abs_sum, torch_error) in enumerate(
        zip(values, exact, abs_sums, torch_errors, strict=True)
    ):
        tolerance = sum_error_bound(output.dtype, ref.reduced, abs_sum, want, torch_error)
        if not abs(value - want) <= tolerance:  # also catches NaN
            where = "" if output.dim() == 0 else f" at output index {i}"
            return f"|{value:.9g} - {want:.9g}| = {abs(value - want):.3g} > {tolerance:.3g}{where}"
    return None
