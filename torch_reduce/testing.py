"""How far a floating-point sum may be from the exact one; shared by the tests
and the benchmark's result check."""

import torch


def sum_error_bound(
    dtype: torch.dtype, numel: int, abs_sum: float, reference: float, torch_error: float
) -> float:
    """The error a correct sum of ``numel`` elements of ``dtype`` may show.

    A tree sum in the accumulation type (float32 for 16-bit floats) loses at
    most about ceil(log2 n) * eps * sum|x|; twice that covers the per-thread
    runs of the multi-add versions. ``torch_error`` is what torch.sum loses on
    the same input, and twice it is also accepted. The output dtype's rounding
    of the result comes on top.
    """
    accumulate = torch.float64 if dtype == torch.float64 else torch.float32
    tree_bound = 2 * torch.finfo(accumulate).eps * max(numel, 2).bit_length() * abs_sum
    return max(tree_bound, 2 * torch_error) + torch.finfo(dtype).eps * abs(reference)
